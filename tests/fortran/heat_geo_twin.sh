#!/usr/bin/env bash
# The Fortran twin of examples/heat_geo (examples/fortran/heat_geo.f90) on
# 4 ranks with two methods and none, beside the C example: every checksum
# has the same bits, and the balanced Fortran runs moved cells (their cost
# is given or measured from the emulated work, without sleeping).
# Usage: heat_geo_twin.sh FORTRAN_PROG C_PROG MPIEXEC [OVERSUBSCRIBE_FLAG]
set -euo pipefail
fprog=$1 cprog=$2 mpiexec=$3 oversub=${4:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1
fail() { echo "FAIL: $*" >&2; exit 1; }
sums=()
for cfg in "rcb given" "hilbert measured" "staggered given" "none given"; do
  set -- $cfg
  # shellcheck disable=SC2086
  out=$("$mpiexec" -n 4 $oversub "$fprog" "$1" "$2" 40 30 60)
  echo "$out" | tail -2
  sum=$(sed -n 's/^checksum bits \([0-9A-F]*\)$/\1/p' <<<"$out")
  moved=$(sed -n 's/^method .* moved \([0-9]*\)$/\1/p' <<<"$out")
  [ -n "$sum" ] && [ -n "$moved" ] || fail "$cfg: no checksum or move count"
  if [ "$1" != none ] && [ "$moved" -eq 0 ]; then fail "$cfg moved no cell"; fi
  sums+=("$sum")
done
# shellcheck disable=SC2086
cjson=$("$mpiexec" -n 3 $oversub "$cprog" --nx 40 --ny 30 --steps 60 --radius 6 --method rcb \
  --cell-time 1e-6 --json)
csum=$(python3 -c 'import json,sys,struct; d=json.loads(sys.argv[1]); print(struct.pack(">d", float.fromhex(d["checksum"])).hex().upper())' "$cjson")
sums+=("$csum")
for s in "${sums[@]}"; do
  [ "$s" = "${sums[0]}" ] || fail "checksums differ: ${sums[*]}"
done
echo "heat_geo twin: Fortran (3 methods and none) and C, checksum bits ${sums[0]}"
