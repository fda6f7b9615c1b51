// normsim command line: registers each subcommand (one cmd_<name>.cpp each)
// and dispatches. Logs go to stderr; `--json` prints exactly one JSON object
// on stdout. Exit codes: 0 ok, 1 a check failed, 2 bad input. The binary
// (main.cpp) and the Python module (python/normsim_module.cpp) both call it.
#include <spdlog/pattern_formatter.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli_main.hpp"
#include "command.hpp"
#include "progress.hpp"
#include "sim/asic/error_line.hpp"
#include "sim/config/printable.hpp"
#include "sim/report/report_stamp.hpp"

#ifndef NORMSIM_VERSION
#define NORMSIM_VERSION "0.0.0"
#endif

// libsystemc references sc_main; normsim has its own main and calls
// sc_start() directly (sc_elab_and_sim only stores argc/argv and calls sc_main).
extern "C" int sc_main(int, char**) { return 0; }

namespace {
// %* in the log pattern: the message with control bytes escaped (config::printable).
class PrintablePayload : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    const std::string s = normsim::config::printable(std::string_view(msg.payload.data(), msg.payload.size()));
    dest.append(s.data(), s.data() + s.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<PrintablePayload>(); }
};
// std::cout as given, counting what passes: a refusal under --json adds its
// error object only to a stdout still empty (one JSON object, never two).
class CountingBuf : public std::streambuf {
 public:
  explicit CountingBuf(std::streambuf* to) : to_(to) {}
  size_t count() const { return count_; }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    ++count_;
    return to_->sputc(traits_type::to_char_type(c));
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    count_ += static_cast<size_t>(n);
    return to_->sputn(s, n);
  }
  int sync() override { return to_->pubsync(); }

 private:
  std::streambuf* to_;
  size_t count_ = 0;
};
struct CountStdout {
  CountingBuf buf{std::cout.rdbuf()};
  std::streambuf* was = std::cout.rdbuf(&buf);
  ~CountStdout() {
    std::cout.flush();
    std::cout.rdbuf(was);
  }
};
}  // namespace

namespace normsim::cli {

int cli_main(int argc, char** argv) {
  // SystemC prints a banner on stdout when its kernel starts; stdout is for results.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  spdlog::set_default_logger(make_logger("normsim"));
  // Log messages echo names and paths from the input: the payload is printed printable.
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<PrintablePayload>('*').set_pattern("[%H:%M:%S.%e] [%^%l%$] %*");
  spdlog::set_formatter(std::move(formatter));
  spdlog::set_level(spdlog::level::info);

  CLI::App app{"normsim: cycle-approximate simulator of LayerNorm/RMSNorm hardware"};
  app.set_version_flag("--version", std::string("normsim ") + NORMSIM_VERSION);
  bool verbose = false, quiet = false, progress = false;
  auto* verbose_flag = app.add_flag("-v,--verbose", verbose, "debug logging on stderr");
  app.add_flag("-q,--quiet", quiet, "only errors on stderr")->excludes(verbose_flag);
  app.add_flag("--progress", progress,
               "a progress line on stderr for commands past 2 s even when stderr is not a terminal (default: on a terminal, "
               "without -q or --json)");
  const Command commands[] = {add_run(app),  add_compare(app), add_sweep(app), add_merge(app), add_widths(app),
                              add_simt(app), add_area(app),    add_netlist(app), add_regress(app), add_calibrate(app),
                              add_list(app)};

  bool json = false;
  for (int i = 1; i < argc; ++i) json |= std::string(argv[i]) == "--json";
  std::string names;  // the commands, for a refusal's "allowed"
  for (const Command& c : commands) names += (names.empty() ? "" : ", ") + c.app->get_name();
  // A refusal: its one line on stderr, and under --json an error object on stdout too.
  CountStdout out;
  auto refuse = [&](const std::string& text, int code) {
    std::fprintf(stderr, "normsim: %s\n", text.c_str());
    if (json && out.buf.count() == 0) std::cout << nlohmann::json{{"error", {{"message", text}, {"exit_code", code}}}}.dump() << std::endl;
    return code;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    // CLI11's "The following argument(s) was/were not expected: X": said as what it is and what is allowed.
    std::string what = e.what(), sub = "normsim";
    if (const size_t colon = what.find(": "); colon != std::string::npos) what = what.substr(colon + 2);
    for (const Command& c : commands)
      if (c.app->parsed()) sub = "normsim " + c.app->get_name();
    return refuse(sub == "normsim" ? "unknown command or argument '" + normsim::config::printable(what) + "' (allowed: " +
                                         names + "; see normsim --help)"
                                   : sub.substr(8) + ": unexpected argument '" + normsim::config::printable(what) +
                                         "' (allowed: the options of " + sub + " --help)",
                  kExitBadInput);
  } catch (const CLI::ParseError& e) {
    return refuse(normsim::config::printable(e.what()) + " (see normsim --help)", kExitBadInput);
  }
  if (quiet) spdlog::set_level(spdlog::level::err);
  if (verbose) spdlog::set_level(spdlog::level::debug);

  const char* what = "normsim";
  auto& stamp = normsim::report::current_stamp();
  stamp.normsim_version = NORMSIM_VERSION;
  stamp.command.assign(argv, argv + argc);
  // The progress line (sweep and widths put their points and evaluations on it).
  struct StopProgress {
    ~StopProgress() { ProgressLine::get().stop(); }
  } stop_progress;
  try {
    for (const Command& c : commands)
      if (*c.app) {
        what = c.app->get_name().c_str();
        stamp.report = what;
        const std::string name = what;
        if (name != "list")
          ProgressLine::get().start("normsim " + name, ProgressLine::wanted(progress, quiet, json));
        const int rc = c.run();
        ProgressLine::get().stop();
        return rc;
      }
    return refuse("no command given (allowed: " + names + "; see normsim --help)", kExitBadInput);
  } catch (...) {
    ProgressLine::get().stop();
    const normsim::asic::ErrorLine line = normsim::asic::error_line(std::current_exception(), what);
    return refuse(line.text, line.exit_code);
  }
}

}  // namespace normsim::cli
