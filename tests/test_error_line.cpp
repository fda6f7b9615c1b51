// asic::error_line: every exception a command can meet becomes one printable
// line and an exit code -- including one thrown inside a SystemC process,
// which reaches sc_start's caller as a multi-line sc_report.
#include <gtest/gtest.h>

#include <systemc>

#include <new>

#include "sim/asic/error_line.hpp"
#include "sim/config/config_error.hpp"

extern "C" int sc_main(int, char**) { return 0; }  // libsystemc wants one; gtest's main runs the tests

namespace {

using normsim::asic::error_line;

SC_MODULE(Thrower) {
  std::string message;
  SC_CTOR(Thrower) { SC_THREAD(run); }
  void run() {
    sc_core::wait(3, sc_core::SC_NS);
    deep(6);
  }
  // Frames with buffers (and ASan's redzones around them) between the throw
  // and SystemC's handler, as a unit's check deep in a process has.
  void deep(int levels) {
    volatile char buffer[512];
    for (auto& c : buffer) c = static_cast<char>(levels);
    if (levels == 0) throw normsim::config::ConfigError(message);
    deep(levels - 1);
    buffer[0] = buffer[1];
  }
};

TEST(ErrorLine, AnExceptionInASystemCProcessIsItsOwnOneLine) {
  Thrower t("thrower");
  t.message = "w.yaml:3: key 'input.distribution.value': value 1e+39 is not finite in bf16";
  std::exception_ptr caught;
  try {
    sc_core::sc_start();
  } catch (...) {
    caught = std::current_exception();
  }
  ASSERT_TRUE(caught) << "the process's exception did not reach sc_start's caller";
  // SystemC's own text runs over several lines ("In file:", "In process:").
  try {
    std::rethrow_exception(caught);
  } catch (const sc_core::sc_report& r) {
    EXPECT_NE(std::string(r.what()).find('\n'), std::string::npos);
  } catch (...) {
  }
  const auto line = error_line(caught, "run");
  EXPECT_EQ(line.text, t.message);
  EXPECT_EQ(line.exit_code, 2);
}

TEST(ErrorLine, OutOfMemoryNamesTheCommand) {
  const auto line = error_line(std::make_exception_ptr(std::bad_alloc()), "run");
  EXPECT_EQ(line.text.rfind("run: out of memory", 0), 0u) << line.text;
  EXPECT_TRUE(line.names_what);
  EXPECT_EQ(line.exit_code, 2);
}

TEST(ErrorLine, ACheckFailureIsExitOne) {
  const auto line = error_line(std::make_exception_ptr(normsim::config::CheckFailure("run: report field 'x' is inf")), "run");
  EXPECT_EQ(line.exit_code, 1);
  EXPECT_EQ(line.text, "run: report field 'x' is inf");
}

TEST(ErrorLine, ControlBytesAreEscaped) {
  const auto line = error_line(std::make_exception_ptr(std::runtime_error("key 'a\nb' \x1b[2J")), "run");
  EXPECT_EQ(line.text, "key 'a\\nb' \\x1b[2J");
}

}  // namespace
