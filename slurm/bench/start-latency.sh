#!/bin/bash
# SLURM's start latency in a sandbox: how long a job takes from sbatch to
# RUNNING (SLURM's own scheduler), and from `scontrol release` of a held job
# with a chosen node to RUNNING (what the live SD-Policy scheduler sees), each
# REPS times on an idle sandbox (GAP seconds after each job ended, default
# 2; --gap 0 measures back-to-back jobs), squeue polled every 10 ms. Prints every
# sample, the medians, and release/submit as a ratio; --json: one object.
# Usage: start-latency.sh [--reps N] [--gap S] [--json]   (root; starts and stops its
# own 2-node sandbox in a temporary directory)
set -u
reps=9 json=0 gap=2
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) reps=$2; shift 2 ;;
    --gap) gap=$2; shift 2 ;;
    --json) json=1; shift ;;
    *) echo "usage: start-latency.sh [--reps N] [--gap S] [--json]" >&2; exit 2 ;;
  esac
done
[[ $gap =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "start-latency.sh: --gap: '$gap' is not a number of seconds" >&2; exit 2; }
[[ $reps =~ ^[0-9]+$ ]] && [ "$reps" -ge 1 ] || { echo "start-latency.sh: --reps: '$reps' is not a count" >&2; exit 2; }
sandbox=$(cd "$(dirname "$0")/../.." && pwd)/slurm/sandbox
dir=$(mktemp -d /tmp/ballast-slurm-latency-XXXXXX)
trap '"$sandbox" stop --dir "$dir" >/dev/null 2>&1; rm -rf "$dir"' EXIT
"$sandbox" start --dir "$dir" --nodes 2 --cpus 8 >/dev/null || exit $?
export SLURM_CONF=$dir/slurm.conf
cd "$dir" || exit 1
ms() { date +%s%3N; }
state() { squeue -h -j "$1" -o %t 2>/dev/null; }
wait_left_pending() { while :; do case "$(state "$1")" in PD | "") sleep 0.01 ;; *) return ;; esac; done; }
wait_gone() { while [ -n "$(state "$1")" ] && [ "$(state "$1")" != CD ]; do sleep 0.05; done; }
submit=() release=()
for ((i = 0; i < reps; i++)); do
  t0=$(ms); j=$(sbatch --parsable -N1 -w n1 -o /dev/null --wrap 'sleep 0.5')
  wait_left_pending "$j"; submit+=($(($(ms) - t0))); wait_gone "$j"; sleep "$gap"
  j=$(sbatch --parsable --hold -N1 -o /dev/null --wrap 'sleep 0.5'); sleep 0.3
  t0=$(ms); scontrol update jobid="$j" nodelist=n2; scontrol release "$j"
  wait_left_pending "$j"; release+=($(($(ms) - t0))); wait_gone "$j"; sleep "$gap"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ms_submit=$(median "${submit[@]}") ms_release=$(median "${release[@]}")
ratio=$(awk -v a="$ms_release" -v b="$ms_submit" 'BEGIN {printf "%.3f", a / b}')
if [ "$json" = 1 ]; then
  printf '{"tool":"start-latency","reps":%d,"gap_s":%s,"nodes":2,"cpus":8,"poll_ms":10,"submit_ms":[%s],"release_ms":[%s],"median_submit_ms":%s,"median_release_ms":%s,"release_over_submit":%s}\n' \
    "$reps" "$gap" "$(IFS=,; echo "${submit[*]}")" "$(IFS=,; echo "${release[*]}")" "$ms_submit" "$ms_release" "$ratio"
else
  echo "submit -> running (ms):  ${submit[*]}   median $ms_submit"
  echo "release -> running (ms): ${release[*]}   median $ms_release"
  echo "release / submit: $ratio"
fi
