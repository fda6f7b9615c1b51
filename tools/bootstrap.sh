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

echo "bootstrap: installing ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "bootstrap: need root or sudo to install: ${missing[*]}" >&2; exit 2; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq >&2
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
