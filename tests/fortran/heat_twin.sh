#!/usr/bin/env bash
# The Fortran heat solver and its C twin (examples/fortran/heat_rows.f90,
# examples/heat_rows.c) on 4 ranks, balanced and not: the four checksums
# (the bits of the final sum) are identical, and the balanced runs did move
# rows (rank 0 is slowed 50 us per row, which no noise hides).
# Usage: heat_twin.sh FORTRAN_PROG C_PROG MPIEXEC [OVERSUBSCRIBE_FLAG]
set -euo pipefail
fprog=$1 cprog=$2 mpiexec=$3 oversub=${4:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
sums=()
for prog in "$fprog" "$cprog"; do
  for mode in "" --no-balance; do
    out=$("$mpiexec" -n 4 $oversub "$prog" $mode)
    echo "$out"
    sum=$(sed -n 's/^checksum \([-0-9]*\) .*/\1/p' <<<"$out")
    moved=$(sed -n 's/^rows moved \([0-9]*\),.*/\1/p' <<<"$out")
    [ -n "$sum" ] && [ -n "$moved" ] || { echo "FAIL: no checksum or move count" >&2; exit 1; }
    if [ -z "$mode" ] && [ "$moved" -eq 0 ]; then
      echo "FAIL: $prog balanced moved no row" >&2; exit 1
    fi
    if [ -n "$mode" ] && [ "$moved" -ne 0 ]; then
      echo "FAIL: $prog moved rows with --no-balance" >&2; exit 1
    fi
    sums+=("$sum")
  done
done
for s in "${sums[@]}"; do
  [ "$s" = "${sums[0]}" ] || { echo "FAIL: checksums differ: ${sums[*]}" >&2; exit 1; }
done
echo "heat twin: Fortran and C, balanced and not, checksum ${sums[0]}"
