#!/usr/bin/env bash
# A real single-host Slurm cluster for tests and trials: slurmctld + slurmd (Debian's slurmctld,
# slurmd and slurm-client packages) with MUNGE authentication (munge), everything in one temporary
# folder, so it touches no system Slurm or MUNGE and leaves nothing behind. See docs/sweeps.md.
#
#   eval "$(scripts/slurm-local.sh start)"   # prints: export SLURM_CONF=...; export NVMESIM_SLURM_DIR=...
#   sbatch --wrap 'hostname'; squeue; ...     # any Slurm command, through $SLURM_CONF
#   scripts/slurm-local.sh status            # daemons, sinfo, squeue; exit 1 when a daemon is down
#   scripts/slurm-local.sh stop              # cancels the jobs, stops the daemons, removes the folder
#
# start [DIR] makes DIR (default: a new ${TMPDIR:-/tmp}/nvmesim-slurm.XXXXXX) holding slurm.conf,
# the MUNGE key and socket, the controller's state, slurmd's spool, pid files and logs
# (DIR/log/*.log). One node, "nvmesim-node", with this machine's CPUs (nproc), in one partition,
# "debug"; every address is 127.0.0.1, so all its traffic is on loopback (the daemons still
# listen on every interface: Slurm has no listen-address setting), on free ports picked at start.
# No systemd and no cgroups: proctrack/linuxproc, task/none, no accounting (proctrack/cgroup and
# task/cgroup work as root on a machine with cgroup v1 controllers, but make a machine-wide
# slurm_<node> hierarchy that two clusters would share, and need root). stop and status take DIR
# or use $NVMESIM_SLURM_DIR. stop works whatever state the cluster is in, and removes DIR only if
# `start` made it.
#
# As root, SlurmUser is root and jobs run as whoever submits them; as another user, the daemons
# run as that user (SlurmUser and SlurmdUser) and only that user's jobs can run. Exit status: 0,
# 1 (status: a daemon is down), 2 (bad usage, packages missing), 3 (a daemon did not start: its
# log is printed).
set -euo pipefail

marker=.nvmesim-slurm-local
node=nvmesim-node

usage() { awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; }
die() { echo "slurm-local.sh: $*" >&2; exit 2; }

need_packages() {
  local missing=()
  for c in slurmctld slurmd sbatch squeue sinfo scancel scontrol munged mungekey munge; do
    command -v "$c" >/dev/null 2>&1 || missing+=("$c")
  done
  [ ${#missing[@]} -eq 0 ] ||
    die "missing ${missing[*]}: install Debian's slurmctld slurmd slurm-client munge (scripts/setup.sh --tests does)"
}

# The folder of a running cluster: the argument, else $NVMESIM_SLURM_DIR; it must be one of ours.
cluster_dir() {
  local d="${1:-${NVMESIM_SLURM_DIR:-}}"
  [ -n "$d" ] || die "which cluster? give its folder or set NVMESIM_SLURM_DIR (start prints it)"
  [ -f "$d/$marker" ] || die "$d: not a folder made by 'slurm-local.sh start'"
  (cd "$d" && pwd)
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

write_conf() { # write_conf DIR
  local d="$1" host cpus topo ctld_port slurmd_port user
  host="$(hostname -s)"
  cpus="$(nproc)"
  # slurmd -C gives sockets, cores and threads; use them when they add up to the CPUs we may use
  # (in a container limited to fewer CPUs, give the count alone; config_overrides trusts it).
  topo="$(slurmd -C 2>/dev/null | head -1 | grep -o 'CPUs=[0-9]* .*ThreadsPerCore=[0-9]*' || true)"
  case "$topo" in "CPUs=$cpus "*) ;; *) topo="CPUs=$cpus" ;; esac
  # Memory is not a consumable here (CR_CPU), but a job's --mem request is checked against it.
  topo+=" RealMemory=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)"
  ctld_port="$(free_port)"
  slurmd_port="$(free_port)"
  while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port="$(free_port)"; done
  user="$(id -un)"
  cat >"$d/slurm.conf" <<CONF
# Written by scripts/slurm-local.sh for a one-node cluster in $d.
ClusterName=nvmesim
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/munge.socket
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SlurmdParameters=config_overrides
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
KillWait=5
MinJobAge=600
InactiveLimit=0
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$host $topo State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
}

show_log() { # show_log FILE
  echo "--- $1 (last 20 lines)" >&2
  tail -n 20 "$1" >&2 2>/dev/null || echo "(none)" >&2
}

start() {
  need_packages
  [ "$(id -u)" -eq 0 ] ||
    echo "slurm-local.sh: not root: the daemons run as $(id -un), so only $(id -un)'s jobs can run (root's could run anyone's)" >&2
  local d
  if [ -n "${1:-}" ]; then
    [ ! -e "$1" ] || [ -z "$(ls -A "$1")" ] || die "$1: exists and is not empty"
    mkdir -p "$1"
    d="$(cd "$1" && pwd)"
  else
    d="$(mktemp -d "${TMPDIR:-/tmp}/nvmesim-slurm.XXXXXX")"
  fi
  touch "$d/$marker"
  chmod 755 "$d"   # munged wants every folder above its socket searchable by all
  mkdir -p "$d/munge" "$d/state" "$d/spool" "$d/run" "$d/log"
  chmod 755 "$d/munge"
  write_conf "$d"
  # From here on, a failure stops whatever started and removes the folder.
  trap 'stop_dir "$d" >/dev/null 2>&1 || true' ERR
  mungekey --create --keyfile="$d/munge/munge.key" >/dev/null
  chmod 600 "$d/munge/munge.key"
  export SLURM_CONF="$d/slurm.conf" NVMESIM_SLURM_DIR="$d"
  if ! munged --socket="$d/munge/munge.socket" --key-file="$d/munge/munge.key" --log-file="$d/log/munged.log" \
              --pid-file="$d/run/munged.pid" --seed-file="$d/munge/munged.seed" 2>"$d/log/munged.err"; then
    show_log "$d/log/munged.err"; show_log "$d/log/munged.log"; stop_dir "$d" >/dev/null 2>&1 || true; exit 3
  fi
  if ! slurmctld -c -f "$d/slurm.conf" 2>"$d/log/slurmctld.err"; then
    show_log "$d/log/slurmctld.err"; show_log "$d/log/slurmctld.log"; stop_dir "$d" >/dev/null 2>&1 || true; exit 3
  fi
  if ! slurmd -f "$d/slurm.conf" -N "$node" 2>"$d/log/slurmd.err"; then
    show_log "$d/log/slurmd.err"; show_log "$d/log/slurmd.log"; stop_dir "$d" >/dev/null 2>&1 || true; exit 3
  fi
  # Ready when the node is idle (slurmd registered with slurmctld).
  local state=""
  for _ in $(seq 1 150); do
    state="$(sinfo -h -n "$node" -o %T 2>/dev/null || true)"
    [ "$state" = "idle" ] && break
    sleep 0.2
  done
  if [ "$state" != "idle" ]; then
    echo "slurm-local.sh: the node is '${state:-unknown}', not idle, after 30 s" >&2
    show_log "$d/log/slurmctld.log"; show_log "$d/log/slurmd.log"; stop_dir "$d" >/dev/null 2>&1 || true; exit 3
  fi
  trap - ERR
  printf 'export SLURM_CONF=%q NVMESIM_SLURM_DIR=%q\n' "$d/slurm.conf" "$d" | tee "$d/env"
  echo "slurm-local.sh: cluster up in $d ($(grep -o 'CPUs=[0-9]*' "$d/slurm.conf"), logs in $d/log)" >&2
}

pid_of() { # pid_of FILE: the pid it holds if that process lives
  local p
  p="$(cat "$1" 2>/dev/null || true)"
  [ -n "$p" ] && kill -0 "$p" 2>/dev/null && echo "$p"
  return 0
}

# Processes that belong to the cluster in DIR: started with its SLURM_CONF (daemons, slurmstepd,
# jobs submitted with --export=ALL), except this script and its ancestors.
cluster_pids() { # cluster_pids DIR
  local d="$1" keep=" " p=$$ e
  while [ -n "$p" ] && [ "$p" -gt 1 ]; do
    keep+="$p "
    p="$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null || true)"
  done
  for e in /proc/[0-9]*/environ; do
    p="${e#/proc/}"; p="${p%/environ}"
    case "$keep" in *" $p "*) continue ;; esac
    if { tr '\0' '\n' <"$e"; } 2>/dev/null | grep -qxF "SLURM_CONF=$d/slurm.conf"; then echo "$p"; fi
  done
}

stop_pids() { # stop_pids PID...: SIGTERM, up to 10 s, then SIGKILL
  [ $# -gt 0 ] || return 0
  kill -TERM "$@" 2>/dev/null || true
  local p alive
  for _ in $(seq 1 50); do
    alive=()
    for p in "$@"; do kill -0 "$p" 2>/dev/null && alive+=("$p"); done
    [ ${#alive[@]} -eq 0 ] && return 0
    sleep 0.2
  done
  kill -KILL "${alive[@]}" 2>/dev/null || true
}

stop_dir() { # stop_dir DIR
  local d="$1" p
  export SLURM_CONF="$d/slurm.conf"
  # The jobs first, so that slurmstepd ends their processes; a dead controller skips this.
  if [ -n "$(pid_of "$d/run/slurmctld.pid")" ]; then
    timeout 10 scancel --full --quiet --partition=debug 2>/dev/null || true
    for p in $(seq 1 50); do
      [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null || true)" ] && break
      sleep 0.2
    done
  fi
  local daemons=()
  for f in slurmd slurmctld; do p="$(pid_of "$d/run/$f.pid")"; [ -n "$p" ] && daemons+=("$p"); done
  stop_pids "${daemons[@]}"
  # shellcheck disable=SC2046
  stop_pids $(cluster_pids "$d")
  if [ -n "$(pid_of "$d/run/munged.pid")" ]; then
    munged -s --socket="$d/munge/munge.socket" >/dev/null 2>&1 || stop_pids "$(pid_of "$d/run/munged.pid")"
  fi
  [ -f "$d/$marker" ] && rm -rf "$d"
  echo "slurm-local.sh: stopped and removed $d" >&2
}

status() {
  local d="$1" rc=0 f p
  export SLURM_CONF="$d/slurm.conf"
  for f in munged slurmctld slurmd; do
    p="$(pid_of "$d/run/$f.pid")"
    if [ -n "$p" ]; then echo "$f: running (pid $p)"; else echo "$f: not running"; rc=1; fi
  done
  if [ $rc -eq 0 ]; then
    sinfo || rc=1
    squeue || rc=1
  fi
  return $rc
}

case "${1:-}" in
  start) shift; [ $# -le 1 ] || { usage >&2; exit 2; }; start "$@" ;;
  stop) shift; [ $# -le 1 ] || { usage >&2; exit 2; }
        if [ -n "${1:-}" ] || [ -n "${NVMESIM_SLURM_DIR:-}" ]; then
          d="${1:-$NVMESIM_SLURM_DIR}"
          # Already gone: nothing to do (stop may run twice, from a trap and by hand).
          [ -e "$d" ] || { echo "slurm-local.sh: $d: already removed" >&2; exit 0; }
        fi
        stop_dir "$(cluster_dir "$@")" ;;
  status) shift; [ $# -le 1 ] || { usage >&2; exit 2; }; status "$(cluster_dir "$@")" ;;
  -h|--help) usage ;;
  *) usage >&2; exit 2 ;;
esac
