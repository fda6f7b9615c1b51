#!/usr/bin/env bash
# A sweep as a Slurm array job on a real single-node cluster
# (tools/slurm/local_cluster.sh: munged, slurmctld and slurmd from a private
# folder with a generated slurm.conf): `normsim sweep --slurm 4` submitted
# (four shards and a merge that depends on them), and the merged sweep.json
# and sweep.csv compared byte for byte with the same sweep run whole. The
# daemons are stopped on every way out. Exit 77 (CTest: skipped) with one
# line saying why where the daemons cannot run here.
set -uo pipefail
N=${NORMSIM:?}
S=${NORMSIM_SOURCE_DIR:?}
C=$S/tools/slurm/local_cluster.sh
D=$(mktemp -d /tmp/normsim-slurm.XXXXXX)
trap 'bash "$C" stop "$D/cluster"; sleep 0.5; rm -rf "$D"' EXIT

out=$(bash "$C" start "$D/cluster"); rc=$?
[ "$rc" = 77 ] && { echo "SKIP: ${out#local_cluster: }"; exit 77; }
[ "$rc" = 0 ] || { echo "FAIL: local_cluster start: $out"; exit 1; }
export SLURM_CONF=$D/cluster/slurm.conf

# The sweep, whole and as the array job: the same arguments, from the same directory.
cd "$S"
SW=(sweep workloads/llama3-70b.yaml --grid arch.lanes=4,8,16 --zip arch.asic.rows_in_flight=2,8,arch.asic.sram.capacity_bytes=65536,262144
    --grid arch.asic.input_path=sram-replay,dram-reread,partial-replay --grid "arch.asic.replay_fraction=0.25,0.5 if arch.asic.input_path=partial-replay"
    --objectives cycles,area,energy)
"$N" "${SW[@]}" --out "$D/whole" -q >/dev/null || { echo "FAIL: the whole sweep"; exit 1; }
"$N" "${SW[@]}" --slurm 4 --out "$D/array" -q >/dev/null || { echo "FAIL: sweep --slurm 4"; exit 1; }
bash "$D/array/slurm/submit.sh" || { echo "FAIL: submit.sh: $(tail -5 "$D/cluster/slurmctld.log")"; exit 1; }
WAIT_S=120 bash "$C" wait "$D/cluster" || exit 1
[ "$(ls "$D/array/shards" 2>/dev/null | wc -l)" = 4 ] ||
  { echo "FAIL: $(ls "$D/array/shards" 2>/dev/null | wc -l) shard files, want 4: $(cat "$D/array/slurm/"*.log 2>/dev/null | tail -5)"; exit 1; }
python3 "$S/tests/cli/same_report.py" "$D/whole/sweep.json" "$D/array/sweep.json" || { echo "FAIL: merged sweep.json differs from the whole sweep's: $(tail -3 "$D/array/slurm/merge.log" 2>/dev/null)"; exit 1; }
cmp -s "$D/whole/sweep.csv" "$D/array/sweep.csv" || { echo "FAIL: merged sweep.csv differs from the whole sweep's"; exit 1; }
echo "slurm: 4 array shards and a dependent merge on a single-node cluster: sweep.json and sweep.csv byte-identical to the whole sweep ($(grep -c '"index"' "$D/whole/sweep.json") points)"
