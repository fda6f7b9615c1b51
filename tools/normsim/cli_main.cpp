// normsim command line: registers each subcommand (one cmd_<name>.cpp each)
// and dispatches. Logs go to stderr; `--json` prints exactly one JSON object
// on stdout. Exit codes: 0 ok, 1 a check failed, 2 bad input. The binary
// (main.cpp) and the Python module (python/normsim_module.cpp) both call it.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

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
}  // namespace

namespace normsim::cli {

int cli_main(int argc, char** argv) {
  // SystemC prints a banner on stdout when its kernel starts; stdout is for results.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  auto logger = spdlog::stderr_color_mt("normsim");
  spdlog::set_default_logger(logger);
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

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "normsim: %s (see normsim --help)\n", normsim::config::printable(e.what()).c_str());
    return kExitBadInput;
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
  bool json = false;
  for (int i = 1; i < argc; ++i) json |= std::string(argv[i]) == "--json";
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
    std::cout << app.help();
    return kExitOk;
  } catch (...) {
    ProgressLine::get().stop();
    const normsim::asic::ErrorLine line = normsim::asic::error_line(std::current_exception(), what);
    std::fprintf(stderr, "normsim: %s\n", line.text.c_str());
    return line.exit_code;
  }
}

}  // namespace normsim::cli
