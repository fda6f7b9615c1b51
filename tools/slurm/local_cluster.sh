#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, from a private folder: munged,
# slurmctld and slurmd with a generated slurm.conf (no systemd, no cgroups,
# no accounting), for running a sweep's array job where no cluster exists --
# and for tests/slurm. Needs root and Debian's slurm-wlm and munge
# (tools/bootstrap.sh installs them).
#
#   tools/slurm/local_cluster.sh start DIR   start it; prints `export SLURM_CONF=DIR/slurm.conf`
#   tools/slurm/local_cluster.sh stop DIR    stop its daemons
#   tools/slurm/local_cluster.sh wait DIR    wait until no job is queued (at most WAIT_S, default 300 s)
#
# `start` exits 77 with one line saying why when the daemons cannot run here.
set -uo pipefail
export PATH=$PATH:/usr/sbin
cmd=${1:-}
D=${2:-}
[ -n "$cmd" ] && [ -n "$D" ] || { echo "usage: $0 start|stop|wait DIR" >&2; exit 2; }
cannot() { echo "local_cluster: $*"; exit 77; }

case "$cmd" in
  start)
    for t in munged mungekey slurmctld slurmd sbatch squeue sinfo; do
      command -v "$t" >/dev/null 2>&1 || cannot "$t is not installed (Debian: slurm-wlm munge; tools/bootstrap.sh installs them)"
    done
    [ "$(id -u)" = 0 ] || cannot "its daemons run as root (SlurmUser=root), and this is uid $(id -u)"
    mkdir -p "$D/state" "$D/spool" "$D/munge" || cannot "cannot make $D"
    chmod 755 "$D"
    chmod 700 "$D/munge"
    host=$(hostname -s)
    port=$((20000 + RANDOM % 20000))
    mungekey -c -k "$D/munge/munge.key" -f >/dev/null 2>&1 || cannot "mungekey could not make a key"
    chmod 400 "$D/munge/munge.key"
    munged --key-file="$D/munge/munge.key" --socket="$D/munge/munge.sock" --pid-file="$D/munged.pid" \
      --log-file="$D/munged.log" --seed-file="$D/munge/seed" -f 2>"$D/munged.err" ||
      cannot "munged did not start: $(head -c 200 "$D/munged.err")"
    cat >"$D/slurm.conf" <<CONF
ClusterName=normsim-local
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
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF=$D/slurm.conf
    slurmctld 2>"$D/slurmctld.err" || cannot "slurmctld did not start: $(tail -c 300 "$D/slurmctld.log" 2>/dev/null)"
    slurmd 2>"$D/slurmd.err" || cannot "slurmd did not start: $(tail -c 300 "$D/slurmd.log" 2>/dev/null)"
    for _ in $(seq 1 60); do
      sinfo -h -o %t 2>/dev/null | grep -q idle && { echo "export SLURM_CONF=$D/slurm.conf"; exit 0; }
      sleep 0.5
    done
    cannot "the node did not come up idle in 30 s: $(sinfo 2>&1 | tail -1) $(tail -c 300 "$D/slurmd.log" 2>/dev/null)"
    ;;
  stop)
    for p in slurmd slurmctld munged; do
      [ -f "$D/$p.pid" ] && kill "$(cat "$D/$p.pid")" 2>/dev/null
    done
    exit 0
    ;;
  wait)
    export SLURM_CONF=$D/slurm.conf
    for _ in $(seq 1 $((2 * ${WAIT_S:-300}))); do
      [ -z "$(squeue -h 2>/dev/null)" ] && exit 0
      sleep 0.5
    done
    echo "local_cluster: jobs still queued after ${WAIT_S:-300} s: $(squeue 2>&1 | tail -3)"
    exit 1
    ;;
  *)
    echo "usage: $0 start|stop|wait DIR" >&2
    exit 2
    ;;
esac
