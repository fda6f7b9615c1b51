# Sourced by the run_*.sh scripts (which set $here to gpu_ref/ and $work to
# their scratch folder): configures and builds gpu_ref in $GPU_REF_BUILD --
# a build folder shared between the scripts of one device call -- or else
# in $work/build, and sets $build. TARGETS: cmake targets (all when
# none); NORMSIM_LAB=ON also builds lab/gpu's probes. On failure it prints the log's tail and exits 1.
#   build_gpu_ref LOG [TARGET ...]
build_gpu_ref() {
  local log=$1 t
  shift
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  build=${GPU_REF_BUILD:-$work/build}
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DNORMSIM_LAB="${NORMSIM_LAB:-OFF}" >"$log" 2>&1 &&
    cmake --build "$build" -j 16 "${targets[@]}" >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
}
