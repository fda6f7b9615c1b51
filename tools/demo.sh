#!/usr/bin/env bash
# make demo: builds normsim alone (not the tests, the RTL test benches or the
# CUDA kernels), quietly, and runs the main job on the embedded default. The
# configure and build output goes to BUILD_DIR/logs/demo.log; on a failure
# its end is shown with its path.
set -euo pipefail
build=${1:-build}
type=${2:-Release}
jobs=${3:-$(nproc)}
mkdir -p "$build/logs"
log="$build/logs/demo.log"
quiet() {  # what, command...
  local what=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "make demo: $what failed; its whole output: $log" >&2
    exit 1
  fi
}
if [ ! -f "$build/build.ninja" ]; then
  echo "make demo: configuring $build ($type)" >&2
  quiet "configuring" cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="$type"
fi
echo "make demo: building normsim with $jobs jobs (output: $log)" >&2
quiet "building normsim" cmake --build "$build" -j "$jobs" -t normsim
case $build in /*) ;; *) build=./$build ;; esac
exec "$build/normsim" run
