#!/usr/bin/env bash
# Cycles, stalls and traffic of two normsim builds on every shipped workload
# x timing arch x input path x rows in flight (1, 2, 4), timing only, 256 rows
# each: the check behind a change to the ASIC model's processes that must not
# move any number (docs/ASIC.md). Prints each combination that differs and
# a count; exit 1 if any differs.
#   tools/asic/compare_timing.sh NORMSIM_A NORMSIM_B
set -uo pipefail
A=${1:?NORMSIM_A}; B=${2:?NORMSIM_B}
here=$(cd "$(dirname "$0")/../.." && pwd)
same=0; differ=0
for w in "$here"/workloads/*.yaml; do
  for a in "$here"/workloads/arch/*.yaml; do
    for p in sram-replay dram-reread partial-replay; do
      for rif in 1 2 4; do
        args=(run "$w" --arch "$a" --path "$p" --no-numerics --json -q --set "arch.asic.rows_in_flight=$rif" --set workload.rows=256)
        ja=$("$A" "${args[@]}" 2>/dev/null) || continue  # an arch without a timing model, or a path it rejects
        jb=$("$B" "${args[@]}" 2>/dev/null) || { echo "differ: $(basename "$w") $(basename "$a") $p $rif: B failed"; differ=$((differ + 1)); continue; }
        pick='import json,sys; d=json.load(sys.stdin); print(json.dumps([d["timing"], d["traffic"]], sort_keys=True))'
        if [ "$(/usr/bin/python3 -c "$pick" <<<"$ja")" == "$(/usr/bin/python3 -c "$pick" <<<"$jb")" ]; then
          same=$((same + 1))
        else
          echo "differ: $(basename "$w") $(basename "$a") $p rows_in_flight=$rif"; differ=$((differ + 1))
        fi
      done
    done
  done
done
echo "compare_timing: $same combinations identical, $differ differ"
[ "$differ" -eq 0 ]
