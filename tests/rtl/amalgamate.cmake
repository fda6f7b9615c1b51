# Gathers Verilator's generated C++ (DIR/*.cpp) into one translation unit OUT,
# as Verilator's own makefile does (V*__ALL.cpp), for CMake to compile.
file(GLOB sources RELATIVE ${DIR} ${DIR}/*.cpp)
list(REMOVE_ITEM sources model_all.cpp)
list(SORT sources)
set(text "// Generated: every C++ file Verilator wrote for this model.\n")
foreach(s ${sources})
  string(APPEND text "#include \"${s}\"\n")
endforeach()
file(WRITE ${OUT} "${text}")
