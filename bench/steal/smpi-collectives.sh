#!/usr/bin/env bash
# The cost to the simulator of SMPI's collective settings: smpi_comm_dup.c
# on P ranks of simulate-dlb's platform (28-core nodes), with SMPI's "ompi"
# selector, with the algorithms `ballast simulate-dlb` named until
# 2026-11-28 (recursive-doubling allreduce, Bruck allgather) and with the
# ones it names now (tools/simulate-common/simrun.c: through a root), each
# timed with /usr/bin/time in the same run, and per collective by the
# program. SETTINGS picks some of them (default "ompi rdb root"); a run
# longer than TIMEOUT (default 1h) is stopped (time then reports exit
# status 124).
# Usage: [SETTINGS="rdb root"] [TIMEOUT=30m] bench/steal/smpi-collectives.sh [P]   (default 896)
set -euo pipefail
P=${1:-896}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
smpicc -O2 "$here/smpi_comm_dup.c" -o "$dir/dup" 2>/dev/null
nodes=$(( (P + 27) / 28 ))
cat >"$dir/platform.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="cluster" prefix="node-" suffix="" radical="0-$((nodes - 1))" speed="2.4e9f" core="28"
           sharing_policy="SPLITDUPLEX" bw="12.5e9Bps" lat="1e-6s" loopback_bw="1e10Bps" loopback_lat="3e-7s"/>
</platform>
XML
for ((r = 0; r < P; r++)); do echo "node-$((r / 28))"; done >"$dir/hosts.txt"
run() { # NAME SETTINGS...
  local name=$1
  shift
  /usr/bin/time -f "$name: %e s wall" timeout "${TIMEOUT:-1h}" smpirun -np "$P" -platform "$dir/platform.xml" \
    -hostfile "$dir/hosts.txt" -no-privatize --log=root.thres:warning "$@" "$dir/dup" 2>&1 | grep -v "^\[" || true
}
# shellcheck source-path=SCRIPTDIR source=smpi-named-colls.sh
. "$here/smpi-named-colls.sh"
for s in ${SETTINGS:-ompi rdb root}; do
  case $s in
    ompi) run "ompi selector" --cfg=smpi/coll-selector:ompi ;;
    rdb) run "named algorithms, recursive doubling and Bruck" "${SMPI_NAMED_COLLS_BASE[@]}" \
      --cfg=smpi/allreduce:rdb --cfg=smpi/allgather:bruck ;;
    root) run "named algorithms, through a root (simulate-dlb's)" "${SMPI_NAMED_COLLS[@]}" ;;
    *) echo "$0: unknown setting '$s' (ompi, rdb, root)" >&2; exit 2 ;;
  esac
done
