#!/usr/bin/env bash
# make test / make test-slow: CTest on BUILD_DIR with JOBS jobs and the
# label selection given, every test's temporary files (TMPDIR, gtest's
# TempDir, mktemp) under one folder made for this run and removed after it.
set -uo pipefail
build=${1:?BUILD_DIR}
jobs=${2:?JOBS}
shift 2
tmp=$(mktemp -d -t normsim-test.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
TMPDIR=$tmp ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
