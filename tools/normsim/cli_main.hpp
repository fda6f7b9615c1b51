// The whole normsim command line as a function: argv in, exit code out,
// results on stdout and logs on stderr. Call it once per process (SystemC
// elaborates once; spdlog registers its logger once).
#pragma once

namespace normsim::cli {

int cli_main(int argc, char** argv);

}  // namespace normsim::cli
