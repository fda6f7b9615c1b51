// How a hot row loop is built: NORMSIM_ROW_CLONES compiles a function twice,
// for x86-64-v4 (AVX-512) and for the baseline ISA, the loader picking one
// by the CPU (GCC's target_clones; elsewhere a plain function), so one
// binary vectorises where it can and runs everywhere; NORMSIM_INLINE forces
// a helper into such a function (inlined code takes its clone's ISA).
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define NORMSIM_ROW_CLONES __attribute__((target_clones("arch=x86-64-v4", "default")))
#else
#define NORMSIM_ROW_CLONES
#endif

#if defined(__GNUC__)
#define NORMSIM_INLINE inline __attribute__((always_inline))
#else
#define NORMSIM_INLINE inline
#endif
