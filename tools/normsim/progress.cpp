#include "progress.hpp"

#include <pthread.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace normsim::cli {

namespace {
constexpr auto kQuietFor = std::chrono::seconds(2);    // a command this short says nothing
constexpr auto kEvery = std::chrono::milliseconds(500);

void write_all(const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::write(STDERR_FILENO, s.data() + off, s.size() - off);
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}
}  // namespace

ProgressLine& ProgressLine::get() {
  static ProgressLine p;
  return p;
}

// A fork (compare's and sweep's children) must not copy mu_ held by the
// ticker: the fork waits for it, and the child starts with it free.
ProgressLine::ProgressLine() {
  pthread_atfork([] { get().mu_.lock(); }, [] { get().mu_.unlock(); },
                 [] {
                   ProgressLine& p = get();
                   p.mu_.unlock();
                   p.in_child_ = true;
                 });
}

void ProgressLine::write_log(const std::string& text) {
  std::lock_guard<std::mutex> l(mu_);
  const bool shown = shown_;
  std::string s = shown ? "\r\033[K" + text : text;
  if (shown && on_ && !in_child_ && !stopping_) s += line(elapsed_s());
  write_all(s);
}

namespace {
// spdlog's stderr sink, writing through the progress line. Colours as
// spdlog's own terminal sink gives them, on a terminal only.
class ProgressAwareSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  ProgressAwareSink() : colour_(isatty(STDERR_FILENO) != 0) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    std::string s(formatted.data(), formatted.size());
    if (colour_ && msg.color_range_end > msg.color_range_start && msg.color_range_end <= s.size()) {
      static constexpr const char* kColour[] = {"\033[37m", "\033[36m", "\033[32m", "\033[33m\033[1m",
                                                "\033[31m\033[1m", "\033[1m\033[41m", ""};
      const auto level = static_cast<size_t>(msg.level);
      s.insert(msg.color_range_end, "\033[m");
      s.insert(msg.color_range_start, kColour[level < std::size(kColour) ? level : 0]);
    }
    ProgressLine::get().write_log(s);
  }
  void flush_() override {}

 private:
  bool colour_;
};
}  // namespace

std::shared_ptr<spdlog::logger> make_logger(const std::string& name) {
  return std::make_shared<spdlog::logger>(name, std::make_shared<ProgressAwareSink>());
}

bool ProgressLine::wanted(bool asked, bool quiet, bool json) { return asked || (!quiet && !json && isatty(STDERR_FILENO)); }

void ProgressLine::start(const std::string& command, bool on) {
  stop();
  on_ = on;
  status_.clear();
  command_ = command;
  if (!on) return;
  stopping_ = false;
  t0_ = std::chrono::steady_clock::now();
  ticker_ = std::thread([this] { tick(); });
}

void ProgressLine::phase(const std::string& what, int64_t total, const std::string& unit) {
  std::lock_guard<std::mutex> l(mu_);
  phase_ = what;
  total_ = total;
  unit_ = unit;
  done_.store(0, std::memory_order_relaxed);
}

void ProgressLine::status(const std::string& text, bool show_now) {
  std::string now;
  {
    std::lock_guard<std::mutex> l(mu_);
    status_ = text;
    if (show_now && on_) now = line(0);
  }
  if (now.empty()) return;
  write_all(now);
  shown_ = true;
}

std::string ProgressLine::line(double s) {
  char buf[256];
  const int64_t done = done_.load(std::memory_order_relaxed);
  if (!status_.empty())
    std::snprintf(buf, sizeof buf, "%s: %s", command_.c_str(), status_.c_str());
  else if (total_ > 0)
    std::snprintf(buf, sizeof buf, "%s: %s: %lld/%lld %s (%.0f%%), %.0f s", command_.c_str(), phase_.c_str(),
                  static_cast<long long>(done), static_cast<long long>(total_), unit_.c_str(),
                  100.0 * static_cast<double>(done) / static_cast<double>(total_), s);
  else
    std::snprintf(buf, sizeof buf, "%s: %s%s%.0f s", command_.c_str(), phase_.c_str(), phase_.empty() ? "" : ", ", s);
  return std::string("\r") + buf + "\033[K";
}

void ProgressLine::tick() {
  while (!stopping_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (std::chrono::steady_clock::now() - t0_ < kQuietFor) continue;
    {
      // Drawn under the lock, so that a log line never lands between the
      // line's text and its clearing.
      std::lock_guard<std::mutex> l(mu_);
      write_all(line(elapsed_s()));
      shown_ = true;
    }
    for (auto slept = std::chrono::milliseconds(0); slept < kEvery && !stopping_; slept += std::chrono::milliseconds(50))
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void ProgressLine::finish() {
  if (!on_) return;
  stopping_ = true;
  if (ticker_.joinable()) ticker_.join();
  std::string text;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!status_.empty()) text = line(0) + "\n";
    else if (shown_) text = "\r\033[K";
  }
  write_all(text);
  shown_ = false;
  on_ = false;
}

void ProgressLine::stop() {
  if (!ticker_.joinable()) return;
  stopping_ = true;
  ticker_.join();
  if (shown_) write_all("\r\033[K");
  shown_ = false;
}

}  // namespace normsim::cli
