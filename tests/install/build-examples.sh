#!/usr/bin/env bash
# Every program under examples/ builds from an installed Ballast with only a
# compiler and pkg-config, as a user who copies it would build it:
#   examples/NAME.c   one program from one file
#   examples/NAME/    one program from all the .c files of the directory
# A program whose sources mention MPI is built with mpicc, the others with
# cc (with -fopenmp when they use ballast/node_omp.h), in C11 with -Wall
# -Wextra -Wpedantic -Werror: examples use only the
# public API (<ballast/...>, MPI, libc), so a private header fails here.
# Exit 77 (CTest: skipped) without pkg-config or mpicc.
# Usage: build-examples.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
for tool in pkg-config mpicc cc; do
  command -v "$tool" >/dev/null || { echo "skipped: no $tool"; exit 77; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
pc=$(find "$tmp/prefix" -name ballast.pc | head -1)
[ -n "$pc" ] || { echo "FAIL: no ballast.pc installed" >&2; exit 1; }
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
read -r -a flags <<<"$(pkg-config --cflags --libs ballast)"

built=0
for path in "$src"/examples/*.c "$src"/examples/*/; do
  name=$(basename "$path" .c)
  if [ -d "$path" ]; then
    srcs=("$path"*.c)
  else
    srcs=("$path")
  fi
  [ -e "${srcs[0]}" ] || continue
  compiler=cc
  if grep -q "mpi\.h\|MPI_\|ballast/rebalance\.h\|ballast/steal\.h" "${srcs[@]}"; then compiler=mpicc; fi
  extra=()
  if grep -q "ballast/node_omp\.h" "${srcs[@]}"; then extra=(-fopenmp); fi
  if ! "$compiler" -std=c11 -Wall -Wextra -Wpedantic -Werror "${extra[@]}" -o "$tmp/$name" \
    "${srcs[@]}" "${flags[@]}" 2>"$tmp/err"; then
    echo "FAIL: examples/$name does not build against the installed Ballast with" >&2
    echo "  $compiler ... \$(pkg-config --cflags --libs ballast):" >&2
    cat "$tmp/err" >&2
    exit 1
  fi
  echo "examples/$name: built with $compiler and pkg-config"
  built=$((built + 1))
done
[ "$built" -ge 2 ] || { echo "FAIL: only $built examples found" >&2; exit 1; }
# The programs run against the installed shared library.
LD_LIBRARY_PATH="$tmp/prefix/lib:$tmp/prefix/lib64:${LD_LIBRARY_PATH:-}" "$tmp/for_reduce" 20000 >/dev/null
LD_LIBRARY_PATH="$tmp/prefix/lib:$tmp/prefix/lib64:${LD_LIBRARY_PATH:-}" "$tmp/sor_pipeline" --version
echo "every example built from the installed prefix"
