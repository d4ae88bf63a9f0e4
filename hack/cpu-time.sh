#!/usr/bin/env bash
# Runs a command and prints the CPU time it and everything it started used
# (a cgroup's CPU accounting: processes that left their parent, such as a
# cluster's etcd and API server started in a process group of their own,
# are counted too; /usr/bin/time counts only the children it waited for).
#
#   hack/cpu-time.sh steadystate explore --subject fixtures/zoo/job.yaml --budget 5m
#
# The last line, on standard error:
#   cpu-time: 812.4 CPU-seconds (user 640.2, system 172.2) in 301.7 s wall, 2.69 cores
#
# With CPU_TIME_BY_COMMAND=1 it first prints the CPU seconds by command
# name, largest first: read from /proc every second, so a process that
# lived less than a second, or the last second of one, is missed (the
# total line is exact; the table says how much of it it found).
#
# Needs root and a writable cgroup file system (v1's cpuacct controller or
# v2's cpu.stat). The group is removed when the command ends, however it
# ends; the command's exit status is kept.
set -euo pipefail

[[ $# -ge 1 ]] || { echo "usage: [CPU_TIME_BY_COMMAND=1] hack/cpu-time.sh COMMAND [ARG...]" >&2; exit 2; }

name=steadystate-cputime-$$
if [[ -w /sys/fs/cgroup/cpuacct ]]; then # cgroup v1
  dir=/sys/fs/cgroup/cpuacct/$name
  mkdir "$dir"
  used() { # user and system seconds, from the group's counters in ns
    echo "$(cat "$dir/cpuacct.usage_user") $(cat "$dir/cpuacct.usage_sys")" |
      awk '{printf "%.1f %.1f", $1/1e9, $2/1e9}'
  }
elif [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then # cgroup v2: cpu.stat is always there
  dir=/sys/fs/cgroup/$name
  mkdir "$dir"
  used() {
    awk '$1=="user_usec"{u=$2} $1=="system_usec"{s=$2} END{printf "%.1f %.1f", u/1e6, s/1e6}' "$dir/cpu.stat"
  }
else
  echo "cpu-time: no writable cgroup CPU accounting here (/sys/fs/cgroup/cpuacct or cgroup v2): run as root on a machine that has one" >&2
  exit 2
fi

# sample writes "pid comm ticks" for every process of the group once a
# second into $samples (the last line of a pid is its latest count).
samples=""
sampler=""
sample() {
  while :; do
    # Builtins only (read, not cat or $(...)): a fork per process each
    # second took about a fifth of a 2-core machine beside a 12-process
    # hunt (perf record -a: bash 15% and cat 6% of every CPU's samples).
    mapfile -t pids <"$dir/cgroup.procs" 2>/dev/null || pids=()
    for pid in "${pids[@]}"; do
      # comm is field 2, in parentheses, and may hold spaces: cut at the last ")".
      { read -r stat <"/proc/$pid/stat"; } 2>/dev/null || continue
      comm=${stat#*(}; comm=${comm%)*}; rest=${stat##*) }
      read -r -a f <<<"$rest"
      echo "$pid ${comm// /_} $((f[11] + f[12]))" # utime, stime: fields 14, 15
    done >>"$samples"
    sleep 1
  done
}

start=$(date +%s.%N)
cleanup() {
  local left user sys wall
  echo "$$" >"$(dirname "$dir")/cgroup.procs" 2>/dev/null || true
  read -r user sys <<<"$(used)"
  wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.1f", e - s}')
  if [[ -n $sampler ]]; then
    kill "$sampler" 2>/dev/null || true
    wait "$sampler" 2>/dev/null || true
    awk -v hz="$(getconf CLK_TCK)" -v total="$user $sys" '
      { last[$1] = $3; comm[$1] = $2 }
      END {
        split(total, t, " ")
        for (p in last) { by[comm[p]] += last[p] / hz; n[comm[p]]++; found += last[p] / hz }
        printf "cpu-time: by command (%.1f of %.1f CPU-seconds found):\n", found, t[1] + t[2]
        for (c in by) printf "%10.1f  %s (%d)\n", by[c], c, n[c] | "sort -rn"
        close("sort -rn")
      }' "$samples" >&2
    rm -f "$samples"
  fi
  awk -v u="$user" -v s="$sys" -v w="$wall" 'BEGIN{printf "cpu-time: %.1f CPU-seconds (user %.1f, system %.1f) in %.1f s wall, %.2f cores\n", u + s, u, s, w, (u + s) / w}' >&2
  left=$(cat "$dir/cgroup.procs" 2>/dev/null || true)
  if [[ -n $left ]]; then
    echo "cpu-time: processes still in $dir, left running: $(echo "$left" | tr '\n' ' ')" >&2
  fi
  rmdir "$dir" 2>/dev/null || true
}
trap cleanup EXIT

if [[ ${CPU_TIME_BY_COMMAND:-} == 1 ]]; then
  samples=$(mktemp)
  sample &
  sampler=$!
fi
echo $$ >"$dir/cgroup.procs"
status=0
"$@" || status=$?
exit "$status"
