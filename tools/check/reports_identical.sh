#!/usr/bin/env bash
# Every report normsim writes, from two builds, compared byte for byte: the
# check behind a change that must move no number (a refactor of the models
# or the reports). For each shipped workload x arch (with an `asic` section)
# x input path x fuse mode (residual workloads) it writes `run`'s report.json
# and report.csv and `--json` stdout, and timing-only runs at one and four
# rows in flight; for each workload x arch `compare --fuse
# all` (compare.json, compare.csv) and `area --json`; one `sweep` over paths,
# lanes and rows in flight, one over fuse modes with numerics, the shipped
# study (sweep.json, sweep.csv); `regress --json` on the
# committed golden data; `simt --json` for every kernel at two shapes and
# both dtypes. Runs both builds in one scratch folder with the same relative
# paths, so the command line each report echoes is the same.
#   tools/check/reports_identical.sh NORMSIM_A NORMSIM_B [JOBS]
#   tools/check/reports_identical.sh --write NORMSIM DIR [JOBS]   (one side only)
#   tools/check/reports_identical.sh --diff DIR_A DIR_B
# Exit 0: every file identical; 1: some differ (listed); 2: bad arguments.
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
usage() { echo "usage: $0 NORMSIM_A NORMSIM_B [JOBS] | --write NORMSIM DIR [JOBS] | --diff DIR_A DIR_B" >&2; exit 2; }

# The commands, one a line: "<name> <normsim arguments...>". A name is the
# folder its files land in.
command_list() {
  local w a wn an p fuse modes
  for w in "$here"/workloads/*.yaml; do
    wn=$(basename "$w" .yaml)
    modes=none
    grep -q '^residual:' "$w" && modes="none residual residual_dropout"
    for a in "$here"/workloads/arch/*.yaml; do
      an=$(basename "$a" .yaml)
      grep -q '^asic:' "$a" || continue
      for p in sram-replay dram-reread partial-replay; do
        for fuse in $modes; do
          local set=()
          [ "$modes" != none ] && set=(--set "arch.fuse.mode=$fuse")
          echo "run.$wn.$an.$p.$fuse run $w --arch $a --path $p ${set[*]} --json -q --out OUT"
        done
        # Timing only, 256 rows, one and four rows in flight: the row buffers' back-pressure.
        for rif in 1 4; do
          echo "timing.$wn.$an.$p.rif$rif run $w --arch $a --path $p --no-numerics --set arch.asic.rows_in_flight=$rif --set workload.rows=256 --json -q"
        done
      done
      if [ "$modes" != none ]; then
        echo "compare.$wn.$an compare $w --arch $a --fuse all --json -q --out OUT"
      else
        echo "compare.$wn.$an compare $w --arch $a --json -q --out OUT"
      fi
      echo "area.$wn.$an area $w --arch $a --json -q"
    done
  done
  echo "sweep.llama2-7b sweep $here/workloads/llama2-7b.yaml --arch asic-default --grid arch.asic.input_path=sram-replay,dram-reread,partial-replay --grid arch.lanes=8,16,32 --grid arch.asic.rows_in_flight=1,2,4 --objectives cycles,area --json -q --out OUT"
  echo "sweep.postnorm-7b sweep $here/workloads/postnorm-7b.yaml --arch asic-default --grid arch.fuse.mode=none,residual,residual_dropout --grid arch.asic.input_path=sram-replay,dram-reread,partial-replay --numerics --set workload.rows=64 --json -q --out OUT"
  echo "sweep.study sweep --study llama3-70b-buffers --json -q --out OUT"
  echo "regress regress $here/gpu_ref/golden/h200 --json -q"
  local k dt shape
  for k in $("$1" list kernels 2>/dev/null | awk 'NR>0 {print $1}'); do
    for dt in fp32 bf16; do
      for shape in "4096 4096" "1000 3000"; do
        set -- "$1" $shape
        echo "simt.$k.$dt.${2}x${3} simt --kernel $k --rows $2 --hidden $3 --dtype $dt --json"
        set -- "$1"
      done
    done
  done
}

# Runs every command with normsim $1 into folder $2 (absolute), $3 jobs at once.
write_reports() {
  local bin=$1 dest=$2 jobs=${3:-2}
  mkdir -p "$dest"
  local scratch; scratch=$(mktemp -d)
  command_list "$bin" > "$scratch/commands"
  # Both builds run as `normsim` from PATH: the command line a report echoes names no build folder.
  mkdir -p "$scratch/bin" && ln -s "$bin" "$scratch/bin/normsim"
  export PATH="$scratch/bin:$PATH" DEST=$dest SCRATCH=$scratch
  # Each command runs in $SCRATCH/work/<name> with --out OUT, so what it echoes is the same for both builds.
  xargs -P "$jobs" -d '\n' -n 1 bash -c '
    line=$0; name=${line%% *}; args=${line#* }
    mkdir -p "$SCRATCH/work/$name" && cd "$SCRATCH/work/$name" || exit 1
    # shellcheck disable=SC2086
    normsim ${args} > stdout.json 2> stderr.txt; echo "rc=$?" > rc.txt
    # stderr is compared only where the command failed: its one error line.
    grep -q "rc=0" rc.txt && rm -f stderr.txt
    mkdir -p "$DEST/$name" && cp -r . "$DEST/$name/"
  ' < "$scratch/commands"
  cp "$scratch/commands" "$dest/commands.txt"
  rm -rf "$scratch"
  echo "reports_identical: $(wc -l < "$dest/commands.txt") commands written to $dest"
}

diff_reports() {
  local a=$1 b=$2 files differ
  files=$( (cd "$a" && find . -type f; cd "$b" && find . -type f) | sort -u)
  local same=0; differ=0
  while IFS= read -r f; do
    # A sweep's journal holds a line a point in the order the points finish
    # (parallel children): the same lines in any order are the same journal.
    if cmp -s "$a/$f" "$b/$f" ||
      { [[ $f == */sweep.jsonl ]] && [ -f "$a/$f" ] && [ -f "$b/$f" ] && cmp -s <(sort "$a/$f") <(sort "$b/$f"); }; then
      same=$((same + 1))
    else
      echo "differ: $f"; differ=$((differ + 1))
    fi
  done <<<"$files"
  echo "reports_identical: $same files identical, $differ differ"
  [ "$differ" -eq 0 ]
}

case "${1:-}" in
  --write) [ $# -ge 3 ] || usage; write_reports "$(realpath "$2")" "$(realpath -m "$3")" "${4:-2}" ;;
  --diff) [ $# -eq 3 ] || usage; diff_reports "$2" "$3" ;;
  ""|-h|--help) usage ;;
  *)
    [ $# -ge 2 ] || usage
    out=$(mktemp -d)
    write_reports "$(realpath "$1")" "$out/a" "${3:-2}" >/dev/null
    write_reports "$(realpath "$2")" "$out/b" "${3:-2}" >/dev/null
    diff_reports "$out/a" "$out/b"; rc=$?
    echo "reports_identical: both sides kept in $out"
    exit $rc ;;
esac
