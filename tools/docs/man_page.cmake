# normsim.1 from the binary's own help (cmake -P): help2man reads `normsim
# --help` and `--version`; every subcommand's --help becomes a section, and
# the shipped configs' names a FILES section, so the page cannot drift from
# the CLI.
execute_process(COMMAND ${NORMSIM} --help OUTPUT_VARIABLE top RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "normsim --help failed")
endif()
string(REGEX REPLACE ".*Subcommands:\n" "" subs "${top}")
string(REGEX MATCHALL "\n  [a-z]+ " names "\n${subs}")
set(include "[DESCRIPTION]\nnormsim models LayerNorm/RMSNorm hardware: an ASIC datapath in SystemC (cycles, DRAM/SRAM traffic, area, energy, fixed-point error) cross-checked against Verilator-compiled RTL, and a SIMT model of GPU kernels regressed against an NVIDIA H200.\n\n")
foreach(n IN LISTS names)
  string(STRIP "${n}" n)
  execute_process(COMMAND ${NORMSIM} ${n} --help OUTPUT_VARIABLE h)
  string(REPLACE "\\" "\\\\" h "${h}")
  string(REGEX REPLACE "\n([^ \n][^\n]*:)\n" "\n.PP\n\\1\n" h "${h}")
  string(APPEND subsections ".SS \"normsim ${n}\"\n.nf\n${h}\n.fi\n")
endforeach()
string(APPEND include "[COMMANDS]\n${subsections}\n")
execute_process(COMMAND ${NORMSIM} list OUTPUT_VARIABLE shipped)
string(APPEND include "[SHIPPED CONFIGS]\nNamed without a path by every NAME|PATH argument (normsim list):\n.nf\n${shipped}\n.fi\n")
string(APPEND include "[EXIT STATUS]\n0 ok; 1 a check failed (a non-finite report, a regress gate, --fail-on-overflow); 2 bad input, with one line naming the file (line) or --set, the key, the value and what is allowed.\n")
get_filename_component(dir ${OUT} DIRECTORY)
file(WRITE ${dir}/normsim.h2m "${include}")
execute_process(COMMAND ${HELP2MAN} --no-info --section=1 --name=simulator\ of\ LayerNorm/RMSNorm\ hardware
                        --include=${dir}/normsim.h2m --output=${OUT} ${NORMSIM} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man failed")
endif()
