#!/usr/bin/env bash
# CPUs per job over time in the four scenarios of the distribution rule
# (docs/node.md, 16 CPUs, SF 0.5), with real processes: ballast-malleable
# jobs (sleep work, so two cores host 16-worker "nodes") started under
# `ballast node run` in a registry of 16 virtual CPUs per scenario, their
# --json turned into one step line per job (active workers per iteration),
# drawn with gnuplot in four panels:
#   1. A alone, B admitted at 2 s for 2 s, then A alone again;
#   2. A (4 s) ends while B (admitted at 1.5 s) runs: B gets every CPU;
#   3. A with 12 ranks keeps 12 CPUs when B is admitted;
#   4. A on 0-7 and C on 8-15 (both attach on their own, --cpus), B admitted
#      next to both at 2 s: each lends half.
# The scenarios run one after the other (~30 s in all); each registry is
# named after this shell's pid and destroyed on exit.
#
# Usage: bench/node/scenarios.sh [BUILD_DIR] [OUT.png]   (default build, docs/node-scenarios.png)
set -euo pipefail
build=${1:-build}
out=${2:-docs/node-scenarios.png}
node="$build/tools/ballast-node"
mall="$build/tools/ballast-malleable"
for p in "$node" "$mall"; do
  [ -x "$p" ] || { echo "scenarios: $p not found (build first)" >&2; exit 2; }
done
command -v jq >/dev/null || { echo "scenarios: jq is needed to read --json" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "scenarios: gnuplot is needed (Debian gnuplot-nox)" >&2; exit 2; }
[ -d "$(dirname "$out")" ] && [ -w "$(dirname "$out")" ] ||
  { echo "scenarios: $(dirname "$out"): not a writable directory" >&2; exit 1; }
tmp=$(mktemp -d)
registries=()
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for r in "${registries[@]}"; do "$node" destroy --registry "$r" >/dev/null 2>&1 || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

work=(--work sleep --items 16 --item-us 1000) # 1 ms per iteration on 16 workers
job() { # SCENARIO NAME [run FLAGS... --] | [direct FLAGS... --]; then malleable's flags
  local s=$1 name=$2 how=$3
  shift 3
  local pre=()
  while [ "$1" != "--" ]; do pre+=("$1"); shift; done
  shift
  if [ "$how" = run ]; then
    "$node" run --registry "$reg" "${pre[@]}" -- "$mall" "${work[@]}" "$@" --json \
      >"$tmp/$s-$name.json" 2>"$tmp/$s-$name.err" &
  else
    "$mall" --registry "$reg" "${pre[@]}" "${work[@]}" "$@" --json \
      >"$tmp/$s-$name.json" 2>"$tmp/$s-$name.err" &
  fi
  pids+=($!)
}
finish() { # wait for the scenario's jobs
  for p in "${pids[@]}"; do wait "$p" || { echo "scenarios: a job failed:" >&2; cat "$tmp"/*.err >&2; exit 1; }; done
  pids=()
}
scenario() { # N
  reg="ballast-scenarios-$$-$1"
  registries+=("$reg")
  "$node" init --registry "$reg" --cpus 16 >/dev/null
}

echo "scenarios: 1/4 A alone, B admitted, B ends" >&2
scenario 1
job 1 A run --job 1 -- --seconds 6
sleep 2
job 1 B run --job 2 -- --seconds 2
finish
echo "scenarios: 2/4 A ends while B runs" >&2
scenario 2
job 2 A run --job 1 -- --seconds 4
sleep 1.5
job 2 B run --job 2 -- --seconds 4.5
finish
echo "scenarios: 3/4 A with 12 ranks" >&2
scenario 3
job 3 A run --job 1 --ranks 12 -- --seconds 6
sleep 2
job 3 B run --job 2 -- --seconds 2
finish
echo "scenarios: 4/4 A and C, then B next to both" >&2
scenario 4
job 4 A direct --job 1 --cpus 0-7 -- --seconds 6
job 4 C direct --job 3 --cpus 8-15 -- --seconds 6
sleep 2
job 4 B run --job 2 --next-to 1,3 -- --seconds 2
finish

# One data file per scenario: every 10 ms from the scenario's first start,
# the CPUs (active workers) each job held then (0 before it started and
# after it ended), as columns t A B C, for stacked areas.
for s in 1 2 3 4; do
  t0=$(jq -s 'map(.start_clock_s) | min' "$tmp/$s"-*.json)
  for name in A B C; do
    f="$tmp/$s-$name.json"
    [ -f "$f" ] || continue
    # `active` is read after each iteration: it holds from that iteration's
    # end to the next one's. (A job's first iteration is left out: what it
    # held while it ran is known only at its end, ~1 ms later.)
    jq -r --arg n "$name" --argjson t0 "$t0" '.start_clock_s as $s | .per_iteration as $p
      | range(1; $p | length) as $k
      | "\($n) \($s + $p[$k - 1].t_s - $t0) \($s + $p[$k].t_s - $t0) \($p[$k - 1].active)"' "$f"
  done | awk '{ j[NR] = $1; b[NR] = $2; e[NR] = $3; a[NR] = $4; if ($3 > end) end = $3 }
    END {
      for (k = 0; k * 0.01 <= end + 0.05; k++) {
        t = k * 0.01; v["A"] = v["B"] = v["C"] = 0
        for (i = 1; i <= NR; i++) if (b[i] <= t && t < e[i]) v[j[i]] = a[i]
        printf "%.2f %d %d %d\n", t, v["A"], v["B"], v["C"]
      }
    }' >"$tmp/s$s.dat"
done

png="$tmp/out.png"
gnuplot <<GP
set terminal pngcairo size 1100, 760 noenhanced font ',10'
set output '$png'
set multiplot layout 2, 2 title 'ballast-malleable jobs on a node of 16 virtual CPUs (ballast node run, SF 0.5): CPUs each job holds, stacked'
set xlabel 'time (s)'
set ylabel 'CPUs held (active workers)'
set yrange [0:18.5]
set ytics 0, 4, 16
set xrange [0:6.6]
set grid front
set key top right horizontal opaque box width 1.5
set style fill solid 0.75 noborder
A = '#1f77b4'; B = '#d62728'; C = '#2ca02c'
do for [s = 1:4] {
  if (s == 1) { set title '1. A alone; B admitted at 2 s for 2 s: A 8, B 8; then A 16' }
  if (s == 2) { set title '2. A ends at 4 s while B runs: B gets every CPU' }
  if (s == 3) { set title '3. A has 12 ranks: it keeps 12 CPUs, B gets 4' }
  if (s == 4) { set title '4. A holds 0-7, C 8-15; B next to both: 4 from each' }
  f = sprintf('$tmp/s%d.dat', s)
  plot f using 1:(0):2 with filledcurves lc rgb A title (s == 3 ? 'A (12 ranks)' : 'A'), \
       f using 1:2:(\$2 + \$3) with filledcurves lc rgb B title 'B', \
       f using 1:(\$2 + \$3):(\$2 + \$3 + \$4) with filledcurves lc rgb C title (s == 4 ? 'C' : '')
}
unset multiplot
GP
[ -s "$png" ] || { echo "scenarios: gnuplot wrote nothing" >&2; exit 1; }
mv "$png" "$out"
# What each job held, in order (runs of equal active workers), for the record.
for s in 1 2 3 4; do
  for name in A B C; do
    f="$tmp/$s-$name.json"
    [ -f "$f" ] || continue
    echo "scenario $s, job $name: $(jq -r '[.per_iteration[].active] | reduce .[] as $a ([];
      if length > 0 and .[-1] == $a then . else . + [$a] end) | map(tostring) | join(" -> ")' "$f") CPUs"
  done
done
echo "scenarios: wrote $out" >&2
