#!/usr/bin/env bash
# A sweep as a Slurm array job on a real single-node cluster: munged,
# slurmctld and slurmd started here from a private folder with a generated
# slurm.conf, `normsim sweep --slurm 4` submitted (four shards and a merge
# that depends on them), and the merged sweep.json and sweep.csv compared
# byte for byte with the same sweep run whole. The daemons are stopped on
# every way out. Exit 77 (CTest: skipped) with one line saying why where the
# daemons cannot run here.
set -uo pipefail
N=${NORMSIM:?}
S=${NORMSIM_SOURCE_DIR:?}
skip() { echo "SKIP: $*"; exit 77; }

for t in munged mungekey slurmctld slurmd sbatch squeue sinfo; do
  command -v "$t" >/dev/null 2>&1 || [ -x "/usr/sbin/$t" ] || skip "$t is not installed (Debian: slurm-wlm munge; tools/bootstrap.sh installs them)"
done
[ "$(id -u)" = 0 ] || skip "the Slurm daemons of this test run as root (SlurmUser=root), and this is uid $(id -u)"
export PATH=$PATH:/usr/sbin

D=$(mktemp -d /tmp/normsim-slurm.XXXXXX)
chmod 755 "$D"
stop() {
  for p in slurmd slurmctld munged; do
    [ -f "$D/$p.pid" ] && kill "$(cat "$D/$p.pid")" 2>/dev/null
  done
  sleep 0.5
  rm -rf "$D"
}
trap stop EXIT

host=$(hostname -s)
port=$((20000 + RANDOM % 20000))
mkdir -p "$D/state" "$D/spool" "$D/munge"
chmod 700 "$D/munge"
mungekey -c -k "$D/munge/munge.key" -f >/dev/null 2>&1 || skip "mungekey could not make a key"
chmod 400 "$D/munge/munge.key"
munged --key-file="$D/munge/munge.key" --socket="$D/munge/munge.sock" --pid-file="$D/munged.pid" \
  --log-file="$D/munged.log" --seed-file="$D/munge/seed" -f 2>"$D/munged.err" || skip "munged did not start: $(head -c 200 "$D/munged.err")"

cat >"$D/slurm.conf" <<CONF
ClusterName=normsim-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$D/munge/munge.sock
CredType=cred/munge
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=normsim Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$D/slurm.conf
slurmctld 2>"$D/slurmctld.err" || skip "slurmctld did not start: $(tail -c 300 "$D/slurmctld.log" 2>/dev/null)"
slurmd 2>"$D/slurmd.err" || skip "slurmd did not start: $(tail -c 300 "$D/slurmd.log" 2>/dev/null)"
up=0
for _ in $(seq 1 60); do
  sinfo -h -o %t 2>/dev/null | grep -q idle && { up=1; break; }
  sleep 0.5
done
[ "$up" = 1 ] || skip "the node did not come up idle in 30 s: $(sinfo 2>&1 | tail -2 | tr '\n' ' ') $(tail -c 300 "$D/slurmd.log" 2>/dev/null)"

# The sweep, whole and as the array job: the same arguments, from the same directory.
cd "$S"
SW=(sweep workloads/llama3-70b.yaml --grid arch.lanes=4,8,16 --zip arch.asic.rows_in_flight=2,8,arch.asic.sram.capacity_bytes=65536,262144
    --grid arch.asic.input_path=sram-replay,dram-reread,partial-replay --grid "arch.asic.replay_fraction=0.25,0.5 if arch.asic.input_path=partial-replay"
    --objectives cycles,area,energy)
"$N" "${SW[@]}" --out "$D/whole" -q >/dev/null || { echo "FAIL: the whole sweep"; exit 1; }
"$N" "${SW[@]}" --slurm 4 --out "$D/array" -q >/dev/null || { echo "FAIL: sweep --slurm 4"; exit 1; }
bash "$D/array/slurm/submit.sh" || { echo "FAIL: submit.sh: $(tail -5 "$D/slurmctld.log")"; exit 1; }
for _ in $(seq 1 240); do
  [ -z "$(squeue -h 2>/dev/null)" ] && break
  sleep 0.5
done
[ -z "$(squeue -h 2>/dev/null)" ] || { echo "FAIL: jobs still queued after 120 s: $(squeue 2>&1)"; exit 1; }
ls "$D/array/shards"/sweep-shard-*-of-4.json >/dev/null 2>&1 || { echo "FAIL: no shards written: $(cat "$D/array/slurm/"*.log 2>/dev/null | tail -5)"; exit 1; }
[ "$(ls "$D/array/shards" | wc -l)" = 4 ] || { echo "FAIL: $(ls "$D/array/shards" | wc -l) shard files, want 4"; exit 1; }
cmp -s "$D/whole/sweep.json" "$D/array/sweep.json" || { echo "FAIL: merged sweep.json differs from the whole sweep's: $(tail -3 "$D/array/slurm/merge.log" 2>/dev/null)"; exit 1; }
cmp -s "$D/whole/sweep.csv" "$D/array/sweep.csv" || { echo "FAIL: merged sweep.csv differs from the whole sweep's"; exit 1; }
echo "slurm: 4 array shards and a dependent merge on a single-node cluster: sweep.json and sweep.csv byte-identical to the whole sweep ($(grep -c '"index"' "$D/whole/sweep.json") points)"
