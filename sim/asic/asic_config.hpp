// The ASIC model's parameters, by the names the SystemC modules use: the
// structs are declared once, in sim/config/asic_params.hpp (the config
// layer reads and validates them), and each module takes its slice.
#pragma once

#include "sim/config/asic_params.hpp"

namespace normsim::asic {

using config::AsicConfig;
using config::DramConfig;
using config::DramPort;
using config::InputPath;
using config::L1Config;
using config::L2Config;
using config::L2Priority;
using config::L2Replacement;
using config::parse_input_path;
using config::SramConfig;
using config::to_string;

}  // namespace normsim::asic
