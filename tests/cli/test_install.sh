#!/usr/bin/env bash
# `make install PREFIX=...` as a new user meets it: into a fresh folder, then
# used from another directory -- the binary with shipped names, the man page,
# bash completion and the Python package. BUILD_DIR: the build to install.
set -uo pipefail
source "$(dirname "$0")/cli_lib.sh"
B=${BUILD_DIR:?}
P="$T/prefix"
cmake --install "$B" --prefix "$P" >"$T/install.log" 2>&1 || { bad "cmake --install: $(tail -3 "$T/install.log")"; cli_summary; exit 1; }
mkdir -p "$T/elsewhere" && cd "$T/elsewhere" || exit 1

# The binary, by shipped names, from another directory; its data (RTL sources, plot script) found under PREFIX/share.
"$P/bin/normsim" run --arch asic-fp32 --set workload.rows=64 -q >out.txt && grep -q "arch: asic-fp32" out.txt && ok || bad "installed run --arch asic-fp32"
"$P/bin/normsim" list gpus | grep -q "^h200" && ok || bad "installed list gpus"
# The golden data installed with it: simt --explain puts ncu's column beside its own.
[ -f "$P/share/normsim/gpu_ref/golden/h200/index.json" ] && ok || bad "installed golden data"
"$P/bin/normsim" simt --kernel fast_ln --rows 1024 --hidden 4096 --dtype bf16 --block 128 --explain >out.txt 2>&1 && grep -q "ncu's golden case" out.txt &&
  ok || bad "installed simt --explain without ncu's column: $(grep -i "ncu" out.txt | head -3)"
NORMSIM_DATA_DIR="$T/nowhere" "$P/bin/normsim" simt --kernel fast_ln --rows 4096 --hidden 4096 --explain --golden "$T/elsewhere" >/dev/null 2>err.txt
grep -q "index.json: missing" err.txt && ok || bad "simt --golden with no index: $(cat err.txt)"
[ -f "$P/share/normsim/workloads/arch/asic-fp32.yaml" ] && [ -f "$P/share/normsim/rtl_models/rsqrt_newton.v" ] &&
  [ -f "$P/share/normsim/tools/sweep/pareto_plot.py" ] && [ -f "$P/share/doc/normsim/PYTHON.md" ] && ok || bad "installed share/ files"

# The man page: generated from --help, every subcommand has a section.
if command -v man >/dev/null; then
  page=$(MANWIDTH=100 man -l "$P/share/man/man1/normsim.1" 2>/dev/null)
  for sub in run compare sweep merge widths simt area regress calibrate list; do
    grep -q "normsim $sub" <<<"$page" && ok || bad "man page lacks normsim $sub"
  done
  grep -q -- "--fail-on-overflow" <<<"$page" && grep -q "asic-fp32" <<<"$page" && ok || bad "man page lacks a flag or a shipped name"
else
  echo "skipped: man (man-db) not installed: the page is checked by its source only"
  grep -q '^\.SS "normsim run"' "$P/share/man/man1/normsim.1" && ok || bad "man page source"
fi

# bash completion: names from `normsim list`, flags from --help.
complete_words() {  # words... -> COMPREPLY, one per line
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; _normsim; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$P/share/bash-completion/completions/normsim" "$@" 2>/dev/null
}
complete_words "$P/bin/normsim" run --arch asic- | grep -qx asic-fp32 && ok || bad "completion of --arch"
complete_words "$P/bin/normsim" simt --kernel fast_ | grep -qx fast_rms && ok || bad "completion of --kernel"
complete_words "$P/bin/normsim" com | grep -qx compare && ok || bad "completion of a subcommand"
complete_words "$P/bin/normsim" run --fail | grep -qx -- --fail-on-overflow && ok || bad "completion of a flag"

# The Python package.
site=$(ls -d "$P"/lib/python3*/dist-packages 2>/dev/null | head -1)
if [ -n "$site" ] && [ -d "$site/normsim" ]; then
  PYTHONPATH="$site" /usr/bin/python3 -c \
    "import normsim; t = normsim.compare('llama2-7b', set={'workload.rows': 64})['paths'][0]['timing']; assert t['cycles'] > 0" &&
    ok || bad "installed Python package"
else
  echo "skipped: no Python package was built (pybind11-dev missing)"
fi
cli_summary
