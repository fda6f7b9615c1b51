#!/usr/bin/env bash
# A sweep as a Slurm array job on a real single-node cluster
# (tools/slurm/local_cluster.sh: munged, slurmctld and slurmd from a private
# folder with a generated slurm.conf): `normsim sweep --slurm 4` submitted
# (four shards and a finishing job after them), one shard's task cancelled
# mid-run (the finishing job resubmits it, the shard resumes its journal and
# the merge follows), and the merged sweep.json and sweep.csv compared byte
# for byte with the same sweep run whole. The
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
SW=(sweep --study workloads/studies/llama3-70b-buffers.yaml --grid arch.asic.dram.latency_ns=100,200)
"$N" "${SW[@]}" --out "$D/whole" -q >/dev/null || { echo "FAIL: the whole sweep"; exit 1; }
"$N" "${SW[@]}" --slurm 4 --out "$D/array" -q >/dev/null || { echo "FAIL: sweep --slurm 4"; exit 1; }
sub=$(bash "$D/array/slurm/submit.sh") || { echo "FAIL: submit.sh: $(tail -5 "$D/cluster/slurmctld.log")"; exit 1; }
array=$(echo "$sub" | sed -n 's/.*array job \([0-9]*\).*/\1/p')
# Cancel shard 1's task once it has written some points: the finishing job must run it again.
j="$D/array/shards/sweep-shard-1-of-4.jsonl"
for _ in $(seq 1 600); do [ "$(wc -l 2>/dev/null <"$j" || echo 0)" -ge 20 ] && break; sleep 0.05; done
kept=$(($(wc -l 2>/dev/null <"$j" || echo 1) - 1))
scancel "${array}_1" || { echo "FAIL: scancel ${array}_1"; exit 1; }
WAIT_S=300 bash "$C" wait "$D/cluster" || exit 1
[ "$(ls "$D/array/shards" 2>/dev/null | wc -l)" = 4 ] ||
  { echo "FAIL: $(ls "$D/array/shards" 2>/dev/null | wc -l) shard journals, want 4: $(cat "$D/array/slurm/"*.log 2>/dev/null | tail -5)"; exit 1; }
grep -q "round 1: shards 1 again" "$D/array/slurm/merge.log" ||
  { echo "FAIL: the cancelled shard was not resubmitted: $(tail -5 "$D/array/slurm/merge.log" 2>/dev/null)"; exit 1; }
python3 -c 'import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b): d.pop("report"); d.pop("command")
sys.exit(a != b)' "$D/whole/sweep.json" "$D/array/sweep.json" ||
  { echo "FAIL: merged sweep.json differs from the whole sweep's: $(tail -3 "$D/array/slurm/merge.log" 2>/dev/null)"; exit 1; }
cmp -s "$D/whole/sweep.csv" "$D/array/sweep.csv" || { echo "FAIL: merged sweep.csv differs from the whole sweep's"; exit 1; }
echo "slurm: 4 array shards, shard 1 cancelled after $kept points and resubmitted by the finishing job, then the merge: sweep.csv byte-identical to the whole sweep ($(grep -c '"index"' "$D/whole/sweep.json") points)"
