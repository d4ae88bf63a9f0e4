#!/usr/bin/env bash
# Runs a command with the CPU time of CORES cores at most (a cgroup's CPU
# quota), as a slower machine would give it: how the suites' verdicts are
# checked against a machine slower than this one.
#
#   hack/cpu-quota.sh 1.3 env SELFTEST_SUITES=reconcile make selftest
#
# Needs root and a writable cgroup file system (v1's cpu controller or
# v2's cpu.max). The command and everything it starts stay in the group;
# the group is removed when the command ends, however it ends.
set -euo pipefail

usage() { echo "usage: hack/cpu-quota.sh CORES COMMAND [ARG...]  (CORES: a positive number, say 1.3)" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
cores=$1; shift
[[ $cores =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v c="$cores" 'BEGIN{exit !(c > 0)}' || usage
period=100000
quota=$(awk -v c="$cores" -v p="$period" 'BEGIN{printf "%d", c * p}')

name=steadystate-quota-$$
if [[ -w /sys/fs/cgroup/cpu ]]; then # cgroup v1
  dir=/sys/fs/cgroup/cpu/$name
  mkdir "$dir"
  echo "$period" >"$dir/cpu.cfs_period_us"
  echo "$quota" >"$dir/cpu.cfs_quota_us"
elif [[ -f /sys/fs/cgroup/cgroup.controllers ]] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then # cgroup v2
  dir=/sys/fs/cgroup/$name
  echo +cpu >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
  mkdir "$dir"
  echo "$quota $period" >"$dir/cpu.max"
else
  echo "cpu-quota: no writable cgroup CPU controller here (/sys/fs/cgroup/cpu or cgroup v2's cpu.max): run as root on a machine that has one" >&2
  exit 2
fi

# The group is removed once the command and what it left have ended; a
# process still in it keeps it (rmdir fails) and is named.
cleanup() {
  local left
  echo "$$" >"$(dirname "$dir")/cgroup.procs" 2>/dev/null || true
  left=$(cat "$dir/cgroup.procs" 2>/dev/null || true)
  if [[ -n $left ]]; then
    echo "cpu-quota: processes still in $dir, left running: $(echo "$left" | tr '\n' ' ')" >&2
  fi
  rmdir "$dir" 2>/dev/null || true
}
trap cleanup EXIT

echo "cpu-quota: at most $cores cores ($quota us every $period us) for: $*" >&2
echo $$ >"$dir/cgroup.procs"
status=0
"$@" || status=$?
exit "$status"
