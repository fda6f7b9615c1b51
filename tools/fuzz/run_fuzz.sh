#!/usr/bin/env bash
# Runs each libFuzzer target for SECONDS: `make fuzz` calls it after building
# BUILD_DIR with -DNORMSIM_LIBFUZZER=ON.
#   run_fuzz.sh BUILD_DIR SECONDS TARGET...
# The corpus of a target starts from tests/fuzz/corpus/TARGET (committed:
# inputs that reached new code in earlier runs) and the target's seeds (its
# own and the shipped files it parses, written by TARGET_driver); new inputs
# go to BUILD_DIR/corpus/TARGET (FUZZ_UPDATE_CORPUS=1 merges the small ones
# that add coverage into the committed corpus). The dictionary
# is the schema's keys and values, taken from the key tables (config_keys),
# so it follows the registries. A crash leaves BUILD_DIR/crash-* and makes
# the script exit 1; each target's status and corpus size are appended to
# BUILD_DIR/fuzz-summary.txt.
set -uo pipefail
build=$(cd "$1" && pwd) seconds=$2
shift 2
src=$(cd "$(dirname "$0")/../.." && pwd)
dict=$build/schema.dict
{
  for t in workload arch asic gpu; do "$build/config_keys" "$t"; done |
    grep -o '`[^`]*`' | tr -d '`' | tr '.' '\n' | sort -u | sed 's/.*/"&"/'
  printf '"%s"\n' ': ' '- ' '{' '}' '[' ']' ', ' '---' '...' '!!str' '&a' '*a' '~' 'null' 'true' 'false' \
    'inf' '.nan' '1e308' '-1' '0x10' '9223372036854775808' '"id"' '"ncu"' '"outputs"' '"shard"' '"points"' '"study"' \
    '#SHARD' 'NUMPY' "'descr'" "'shape'" "'fortran_order'" '<f4' '<u2' '|i1' '<f2'
} | grep -v '^""$' > "$dict"

rc=0
echo "# $(date -u +%FT%TZ) ${seconds}s each" >> "$build/fuzz-summary.txt"
for t in "$@"; do
  corpus=$build/corpus/$t
  mkdir -p "$corpus"
  committed=$src/tests/fuzz/corpus/$t
  [ -d "$committed" ] && cp -n "$committed"/* "$corpus"/ 2>/dev/null
  "$build/tests/${t}_driver" --write-seeds "$corpus" >/dev/null || { echo "fuzz: $t: cannot write its seeds" >&2; exit 1; }
  echo "fuzz: $t for ${seconds}s" >&2
  (cd "$build" && "./tests/$t" -max_total_time="$seconds" -print_final_stats=1 -dict="$dict" -max_len=65536 \
      -timeout=25 -rss_limit_mb=4096 "$corpus") > "$build/$t.log" 2>&1
  status=$?
  files=$(ls "$corpus" | wc -l)
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/$t.log" | grep -o '[0-9]*$')
  echo "$t exit=$status runs=${runs:-?} corpus_files=$files seconds=$seconds" | tee -a "$build/fuzz-summary.txt"
  [ $status -eq 0 ] || { rc=1; tail -40 "$build/$t.log" >&2; }
  # FUZZ_UPDATE_CORPUS=1: the committed corpus gains the new inputs under 8 kB
  # that reach code it does not (libFuzzer's -merge=1).
  if [ $status -eq 0 ] && [ "${FUZZ_UPDATE_CORPUS:-0}" = 1 ]; then
    small=$build/small/$t
    rm -rf "$small" && mkdir -p "$small" "$committed"
    find "$corpus" -type f -size -8k -exec cp {} "$small"/ \;
    "$build/tests/$t" -merge=1 "$committed" "$small" > "$build/$t.merge.log" 2>&1 || rc=1
    echo "$t committed corpus: $(ls "$committed" | wc -l) files" | tee -a "$build/fuzz-summary.txt"
  fi
done
exit $rc
