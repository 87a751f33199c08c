#!/usr/bin/env bash
# The cost to the simulator of SMPI's collective settings: smpi_comm_dup.c
# on P ranks of simulate-dlb's platform (28-core nodes), once with SMPI's
# "ompi" selector and once with the algorithms `ballast simulate-dlb` names
# (tools/simulate-dlb/main.c), timed with /usr/bin/time in the same run.
# Usage: bench/steal/smpi-collectives.sh [P]   (default 896)
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
  /usr/bin/time -f "$name: %e s wall" smpirun -np "$P" -platform "$dir/platform.xml" \
    -hostfile "$dir/hosts.txt" -no-privatize --log=root.thres:warning "$@" "$dir/dup" 2>&1 | tail -2
}
run "ompi selector" --cfg=smpi/coll-selector:ompi
run "named algorithms" --cfg=smpi/coll-selector:default --cfg=smpi/bcast:binomial_tree \
  --cfg=smpi/reduce:binomial --cfg=smpi/allreduce:rdb --cfg=smpi/allgather:bruck \
  --cfg=smpi/gather:ompi_binomial --cfg=smpi/barrier:ompi_tree
