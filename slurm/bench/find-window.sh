#!/usr/bin/env bash
# Find a window of a workload log for `ballast slurm-replay` on a small
# SLURM sandbox: COUNT consecutive jobs, scaled to NODES x CPUS and sped up
# K times by `ballast sched` itself (bal_swf_scale(), the transformation the
# replay uses), simulated as the replay simulates them (requested times in
# seconds, the worst-case runtime model, its default minimum runtime of
# 10 s), where the simulator predicts that SD-Policy lowers the
# average slowdown by at least MIN_GAIN against EASY and both replays end
# within MAX_SPAN seconds (makespan of the scaled trace: first submit to
# last end).
#
#   slurm/bench/find-window.sh [options] TRACE.swf[.gz] [-- extra ballast sched flags]
#     --build DIR       build tree with tools/ballast-sched (default: build)
#     --nodes N         sandbox nodes (4)          --cpus C      cores per node (8)
#     --count N         jobs per window (100)      --step S      windows start every S jobs (100)
#     --speedups "K.."  speedups tried (10 20 50)  --min-runtime S  (10, the replay's)
#     --time-unit S     limit granularity (1: the replay keeps seconds)
#     --runtime-model M worst (the replay's: a test job ends with its slowest
#                       node) or ideal
#     --min-gain G      required 1 - sd/easy average slowdown (0.2)
#     --max-span S      longest replay per policy, seconds (840: 15 min less margin)
#     --from I --to J   index range of window starts (whole trace)
#     --max-lengthened F  leave out windows where min-runtime lengthens more
#                       than this fraction of the jobs (0.5)
#     --all             print every window tried, marking those that qualify
#
# Prints one TSV line per window and speedup that meets both bounds
# (start index, first job, speedup, EASY and SD average and bounded
# slowdown, gain, makespans, jobs lengthened), then the chosen one: the
# fewest jobs lengthened (the replay closest to the log), ties to the
# largest gain. Windows where min-runtime lengthens too many jobs are left
# out (the replay would then be another workload). Extra flags after -- (e.g.
# --partition 10 --nodes 5040 --cores-per-node 16 for Curie's machine) go
# to every run.
set -euo pipefail
build=build nodes=4 cpus=8 count=100 step=100 speedups="10 20 50" minrt=10 unit=1 model=worst
gain=0.2 span=840 from=0 to= maxlen=0.5 all=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --cpus) cpus=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --step) step=$2; shift 2 ;;
    --speedups) speedups=$2; shift 2 ;;
    --min-runtime) minrt=$2; shift 2 ;;
    --time-unit) unit=$2; shift 2 ;;
    --runtime-model) model=$2; shift 2 ;;
    --min-gain) gain=$2; shift 2 ;;
    --max-span) span=$2; shift 2 ;;
    --from) from=$2; shift 2 ;;
    --to) to=$2; shift 2 ;;
    --max-lengthened) maxlen=$2; shift 2 ;;
    --all) all=1; shift ;;
    --) shift; break ;;
    -*) echo "find-window.sh: unknown option $1" >&2; exit 2 ;;
    *) trace=$1; shift ;;
  esac
done
: "${trace:?usage: find-window.sh [options] TRACE.swf[.gz] [-- ballast sched flags]}"
extra=("$@")
sched=$build/tools/ballast-sched
[[ -x $sched ]] || { echo "find-window.sh: no $sched (build first)" >&2; exit 1; }
if [[ -z $to ]]; then
  to=$("$sched" --json "${extra[@]}" "$trace" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["jobs"] + d["rejected_too_large"])')
  to=$((to - count))
fi
field() { python3 -c 'import json,sys; d=json.load(sys.stdin); s=d["scaling"]; print(d["avg_slowdown"], d["avg_bounded_slowdown"], d["makespan_s"], s["first_job"], s["lengthened"], s["jobs"])'; }
printf 'ok\tindex\tfirst_job\tspeedup\teasy_sd\tsd_sd\teasy_bsd\tsd_bsd\tgain\teasy_span\tsd_span\tlengthened\n'
best=
for ((i = from; i <= to; i += step)); do
  for k in $speedups; do
    args=(--from-index "$i" --count "$count" --speedup "$k" --scale-to-nodes "$nodes"
          --scale-to-cpus "$cpus" --min-runtime "$minrt" --time-unit "$unit" --runtime-model "$model" --json
          "${extra[@]}")
    read -r esd ebsd espan first len n < <("$sched" --policy easy "${args[@]}" "$trace" | field)
    read -r ssd sbsd sspan _ _ _ < <("$sched" --policy sd "${args[@]}" "$trace" | field)
    line=$(awk -v i="$i" -v f="$first" -v k="$k" -v e="$esd" -v s="$ssd" -v eb="$ebsd" -v sb="$sbsd" \
               -v es="$espan" -v ss="$sspan" -v l="$len" -v n="$n" -v g="$gain" -v m="$span" \
               -v ml="$maxlen" '
      BEGIN { gn = 1 - s / e; ok = gn >= g && es <= m && ss <= m && l <= ml * n
              printf "%s\t%d\t%d\t%g\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t%d\t%d\n", ok ? "yes" : "no",
                     i, f, k, e, s, eb, sb, gn, es, ss, l }')
    if [[ $line == yes* ]]; then
      echo "$line"
      best+="$line"$'\n'
    elif ((all)); then
      echo "$line"
    fi
  done
done
if [[ -z $best ]]; then
  echo "no window meets the bounds" >&2
  exit 1
fi
printf '%s' "$best" | sort -t$'\t' -k12,12n -k9,9gr | head -1 | sed 's/^yes/chosen/'
