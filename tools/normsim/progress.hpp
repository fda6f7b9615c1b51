// One progress line on stderr for a command that runs longer than about two
// seconds: what it is doing, how far (when it knows), and for how long; or
// the command's own status (sweep's points and rate, widths' evaluations),
// which it ends with on a line of its own. On
// when stderr is a terminal and neither -q nor --json is given, or when
// --progress asks for it. The ticker writes with write(2), never through
// stdio, so a fork (compare, sweep) cannot inherit a held stdio lock.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace spdlog {
class logger;
}

namespace normsim::cli {

/// The command line's logger: stderr, coloured on a terminal, each line
/// written through ProgressLine::write_log so that it never lands on the
/// progress line's tail.
std::shared_ptr<spdlog::logger> make_logger(const std::string& name);

class ProgressLine {
 public:
  static ProgressLine& get();
  /// Whether a command should show progress: asked, or a terminal without -q/--json.
  static bool wanted(bool asked, bool quiet, bool json);

  /// Starts the ticker for `command` (nothing when `on` is false); a
  /// ticker already running is stopped first.
  void start(const std::string& command, bool on);
  /// What the command does now; `total` > 0: done/total of `unit` is shown.
  void phase(const std::string& what, int64_t total = 0, const std::string& unit = "");
  /// Advances done (also readable by a model through done_counter()).
  void set_done(int64_t done) { done_.store(done, std::memory_order_relaxed); }
  std::atomic<int64_t>* done_counter() { return &done_; }
  bool on() const { return on_; }
  /// The command's own words for how far it is, shown instead of the
  /// phase's; `show_now`: written at once (a milestone such as a width
  /// search's confirmation), not at the next tick.
  void status(const std::string& text, bool show_now = false);
  /// Stops the ticker and leaves the last status on a line of its own.
  void finish();
  /// Stops the ticker and clears its line.
  void stop();
  /// One log line (with its newline): the progress line cleared first and
  /// drawn again after it, so the two never share a line.
  void write_log(const std::string& text);
  ~ProgressLine() { stop(); }

 private:
  ProgressLine();
  void tick();
  std::string line(double seconds);  ///< under mu_
  double elapsed_s() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }
  std::chrono::steady_clock::time_point t0_;
  bool in_child_ = false;  ///< a forked child (compare's, sweep's): its logs clear the line, never draw it
  std::string command_, phase_, unit_, status_;
  int64_t total_ = 0;
  std::atomic<int64_t> done_{0};
  std::atomic<bool> stopping_{false};
  bool on_ = false;
  std::atomic<bool> shown_{false};
  std::mutex mu_;
  std::thread ticker_;
};

}  // namespace normsim::cli
