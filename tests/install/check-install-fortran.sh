#!/usr/bin/env bash
# The Fortran binding from an installed prefix: the .mod files are where
# find_package(Ballast) and pkg-config say, and the Fortran examples build
# and run through Ballast::ballast_fortran(_mpi) and through
# `pkg-config ballast-fortran(-mpi)`. Exit 77 (CTest: skipped) when the
# build has no Fortran binding or gfortran / pkg-config is missing.
# Usage: check-install-fortran.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
for tool in gfortran pkg-config; do
  command -v "$tool" >/dev/null || { echo "skipped: no $tool"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
pc=$(find "$tmp/prefix" -name ballast-fortran.pc | head -1)
[ -n "$pc" ] || { echo "skipped: Ballast was built without the Fortran binding"; exit 77; }
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
export LD_LIBRARY_PATH="$tmp/prefix/lib:$tmp/prefix/lib64:${LD_LIBRARY_PATH:-}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
moddir=$(pkg-config --variable=moddir ballast-fortran)
test -f "$moddir/ballast.mod"
test -f "$moddir/ballast_partition.mod"
ex=$src/examples/fortran
mpi=0
if pkg-config --exists ballast-fortran-mpi && command -v mpif90 >/dev/null && command -v mpiexec >/dev/null; then
  mpi=1
  test -f "$moddir/ballast_mpi.mod"
fi

# find_package(Ballast): Ballast::ballast_fortran (and _mpi).
cmake -S "$src/tests/install/fortran" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DEXAMPLES="$ex" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
"$tmp/consumer/fconsumer_loop" 20000
if [ "$mpi" = 1 ]; then
  mpiexec -n 2 "$tmp/consumer/fconsumer_heat_rows" | grep -q '^checksum '
fi

# pkg-config, as docs/fortran.md shows.
gfortran -std=f2008 -Wall -Werror "$ex/loop.f90" -J "$tmp" -o "$tmp/pc_loop" \
  $(pkg-config --cflags --libs ballast-fortran)
"$tmp/pc_loop" 20000
if [ "$mpi" = 1 ]; then
  mpif90 -std=f2008 -Wall -Werror -ffp-contract=off "$ex/heat_rows.f90" -J "$tmp" \
    -o "$tmp/pc_heat_rows" $(pkg-config --cflags --libs ballast-fortran-mpi)
  mpif90 -std=f2008 -Wall -Werror "$ex/farm.f90" -J "$tmp" -o "$tmp/pc_farm" \
    $(pkg-config --cflags --libs ballast-fortran-mpi)
  mpiexec -n 2 "$tmp/pc_heat_rows" | grep -q '^checksum '
  mpiexec -n 2 "$tmp/pc_farm" 200
fi
echo "Fortran install check passed (MPI modules: $mpi)"
