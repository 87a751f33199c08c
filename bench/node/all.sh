#!/usr/bin/env bash
# The node benchmarks of docs/BENCHMARKS.md ("node"), one after the other,
# each headed by the time and the machine's load (the machine is shared:
# a figure taken under load says so).
# Usage: bench/node/all.sh [BUILD_DIR] [REPS]   (default build; each bench's own default)
set -euo pipefail
build=${1:-build}
reps=${2:-}
b="$build/bench/node"
for p in bench_node_poll bench_node_lend bench_node_for bench_node_adapt bench_node_run; do
  [ -x "$b/$p" ] || { echo "all.sh: $b/$p not found (build first)" >&2; exit 2; }
done
head() { echo "== $(date -u '+%F %T UTC')  $(uptime | sed 's/.*load/load/')"; }
head; "$b/bench_node_poll" $reps
head; "$b/bench_node_lend" $reps 16
head; "$b/bench_node_lend" $reps 1024
head; "$b/bench_node_for" $reps
head; "$b/bench_node_adapt" $reps
head; "$b/bench_node_adapt" ${reps:-1000} virtual
head; "$b/bench_node_run" "$build/tools/ballast-node" $reps
