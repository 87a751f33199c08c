#!/bin/bash
# `ballast malleable` keeps bounded memory whatever the run's length: with
# tiny items (hundreds of thousands of iterations a second) its resident
# size at the end of a run is within a few MiB of what it was early on,
# without outputs, with --csv (streamed to its file) and with --json
# (windows of merged iterations past 65,536 entries, which a 4 s run of
# spin items of 1 ns passes). Before, every iteration was kept: tens of
# MB a second.
# Usage: malleable_memory.sh PATH/TO/ballast-malleable
set -u
mall=$1
tmp=$(mktemp -d)
pid=""
cleanup() {
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fails=0

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }

for mode in plain csv json; do
  args=(--threads 1 --work spin --items 1 --item-us 0.001 --seconds 4)
  [ "$mode" = csv ] && args+=(--csv "$tmp/run.csv")
  [ "$mode" = json ] && args+=(--json)
  "$mall" "${args[@]}" >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  sleep 1
  early=$(rss_kib "$pid")
  sleep 2.5
  late=$(rss_kib "$pid")
  wait "$pid"
  st=$?
  pid=""
  if [ "$st" != 0 ] || [ -z "$early" ] || [ -z "$late" ]; then
    echo "FAIL: $mode: exit $st, RSS '$early' and '$late' KiB: $(head -c 300 "$tmp/err")"
    fails=$((fails + 1))
    continue
  fi
  n=$(grep -o '[0-9]* iterations in' "$tmp/out" | cut -d' ' -f1)
  [ "$mode" = json ] && n=$(grep -o '"iterations_run": *[0-9]*' "$tmp/out" | grep -o '[0-9]*$')
  echo "$mode: $n iterations; RSS $early KiB after 1 s, $late KiB after 3.5 s"
  # 8 MiB of slack: the JSON entries (3 MiB at most) and the allocator.
  if [ $((late - early)) -gt 8192 ]; then
    echo "FAIL: $mode: RSS grew by $((late - early)) KiB in 2.5 s"
    fails=$((fails + 1))
  fi
  if [ "$mode" = json ] && command -v jq >/dev/null; then
    # the windows cover every iteration, in order, within the bound
    jq -e '(.per_iteration | length) <= 65536 and .per_iteration_window > 1
      and ([.per_iteration[].iterations] | add) == .iterations_run' "$tmp/out" \
      >/dev/null || { echo "FAIL: json: windows: $(jq -c 'del(.per_iteration)' "$tmp/out")"; fails=$((fails + 1)); }
  fi
  if [ "$mode" = csv ]; then
    rows=$(($(wc -l <"$tmp/run.csv") - 1))
    [ "$rows" = "$n" ] || { echo "FAIL: csv: $rows rows for $n iterations"; fails=$((fails + 1)); }
  fi
done
[ "$fails" = 0 ] || exit 1
echo "ok"
