// The normsim binary: the command line of tools/normsim/cli_main.cpp.
#include "cli_main.hpp"

int main(int argc, char** argv) { return normsim::cli::cli_main(argc, argv); }
