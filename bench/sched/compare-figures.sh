#!/usr/bin/env bash
# Do two builds of `ballast sched` give the same figures? For fcfs, easy
# and sd on KTH-SP2, LLNL-Thunder and Curie partition 10 (5,040 x 16),
# compares the --json objects key by key (leaving out the timings and the
# `scaling` key, absent from builds before it), then the per-job CSV of sd
# on Thunder byte for byte.
#
#   bench/sched/compare-figures.sh OLD_BUILD_DIR NEW_BUILD_DIR
#
# The swf logs are read from ../shared/data/swf (SWF_DIR overrides).
set -uo pipefail
OLD=${1:?usage: compare-figures.sh OLD_BUILD NEW_BUILD}/tools/ballast-sched
NEW=${2:?usage: compare-figures.sh OLD_BUILD NEW_BUILD}/tools/ballast-sched
D=${SWF_DIR:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/data/swf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
logs=("KTH|$D/KTH-SP2-1996-2.1-cln.swf.gz" "Thunder|$D/LLNL-Thunder-2007-1.1-cln.swf.gz" "Curie10|--partition 10 --nodes 5040 --cores-per-node 16 $D/CEA-Curie-2011-2.1-cln.swf.gz")
for l in "${logs[@]}"; do name=${l%%|*}; args=${l#*|}
 for p in fcfs easy sd; do
  $OLD --policy $p --json $args > $tmp/old.$name.$p.json 2>/dev/null
  $NEW --policy $p --json $args > $tmp/new.$name.$p.json 2>/dev/null
  python3 - $tmp/old.$name.$p.json $tmp/new.$name.$p.json $name $p <<'PY'
import json,sys
def strip(o):
    if isinstance(o,dict):
        return {k:strip(v) for k,v in o.items() if k not in ('read_s','simulate_s','baseline_s','scale','scaling')}
    return o
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
sa,sb=strip(a),strip(b)
print(sys.argv[3], sys.argv[4], 'identical' if sa == sb else 'DIFFERENT', len(sa), 'keys; avg_slowdown',
      a['avg_slowdown'], 'makespan', a['makespan_s'], 'mate_selections', a['mate_selections'])
if sa!=sb:
    for k in sa:
        if sa.get(k)!=sb.get(k): print('  ',k,sa.get(k),sb.get(k))
PY
 done
done
$OLD --policy sd --jobs-csv $tmp/old.csv $D/LLNL-Thunder-2007-1.1-cln.swf.gz >/dev/null 2>&1
$NEW --policy sd --jobs-csv $tmp/new.csv $D/LLNL-Thunder-2007-1.1-cln.swf.gz >/dev/null 2>&1
if cmp -s $tmp/old.csv $tmp/new.csv; then
  echo "jobs-csv sd Thunder byte-identical ($(wc -l < $tmp/new.csv) lines)"
else
  echo "jobs-csv sd Thunder DIFFERENT"
fi
