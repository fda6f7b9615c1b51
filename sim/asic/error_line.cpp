#include "sim/asic/error_line.hpp"

#include <systemc>

#include <cstring>
#include <new>

#include "sim/config/config_error.hpp"
#include "sim/config/printable.hpp"

namespace normsim::asic {

ErrorLine error_line(const std::exception_ptr& e, const std::string& what) {
  using config::printable;
  try {
    std::rethrow_exception(e);
  } catch (const config::ConfigError& x) {
    return {printable(x.what()), 2};
  } catch (const config::CheckFailure& x) {
    return {printable(x.what()), 1};
  } catch (const sc_core::sc_report& r) {
    // An exception escaped a SystemC process: SystemC keeps its text as the
    // report's message and adds the file and process on further lines.
    const char* type = r.get_msg_type();
    const char* msg = r.get_msg();
    if (type && std::strcmp(type, sc_core::SC_ID_SIMULATION_UNCAUGHT_EXCEPTION_) == 0)
      return {printable(msg ? msg : "an exception in the simulation"), 2};
    return {printable(what + ": SystemC error: " + (type ? type : "") + (msg && *msg ? std::string(": ") + msg : "")), 2, true};
  } catch (const std::bad_alloc&) {
    return {printable(what + ": out of memory (allowed: fewer rows or a smaller hidden size, or a machine with more memory)"), 2, true};
  } catch (const std::exception& x) {
    return {printable(x.what()), 2};
  } catch (...) {
    return {printable(what + ": an unknown error"), 2, true};
  }
}

}  // namespace normsim::asic
