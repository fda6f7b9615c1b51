#!/usr/bin/env bash
# Installs the Debian packages normsim builds and tests with, and nothing else.
# Idempotent: prints nothing and touches nothing when everything is present.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config make
  libsystemc-dev verilator yosys
  libgtest-dev libspdlog-dev libfmt-dev libcli11-dev libyaml-cpp-dev nlohmann-json3-dev zlib1g-dev
  python3 python3-numpy python3-matplotlib time
  python3-dev pybind11-dev python3-pytest python3-jsonschema help2man man-db graphviz
  slurm-wlm munge
)

# `bootstrap.sh fuzz`: clang and its libFuzzer runtime as well (make fuzz).
[ "${1:-}" = fuzz ] && packages+=(clang libclang-rt-14-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

# apt's own lines go to a log, kept (and its end shown) only when it fails.
log=$(mktemp "${TMPDIR:-/tmp}/normsim-bootstrap.XXXXXX.log")
echo "bootstrap: installing ${#missing[@]} Debian packages: ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "bootstrap: need root or sudo to install: ${missing[*]}" >&2; exit 2; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
if ! { "${sudo_cmd[@]}" apt-get update -qq && "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  tail -n 20 "$log" >&2
  echo "bootstrap: apt-get failed; its whole output: $log" >&2
  exit 1
fi
rm -f "$log"
