#!/usr/bin/env bash
# Every ```fortran block of docs/fortran.md is a whole program (its modules
# and a main program) that compiles against this build's Fortran modules,
# so that a reader can paste any of them. Blocks that use MPI (mpi_f08 or
# ballast_mpi) are compiled with the MPI wrapper, the others with gfortran.
# -Wno-unused-dummy-argument: callbacks must take every argument of their
# interface, used or not. Compiled, not run (some need mpiexec or a node
# registry); the examples and tests run the same calls.
# Exit 77 (CTest: skipped) when an MPI block could not be compiled for lack
# of the wrapper; a block that does not compile fails, naming its line.
# Usage: doc_snippets.sh DOC MODDIR GFORTRAN [MPIF90]
set -euo pipefail
doc=$1 moddir=$2 fc=$3 mpifc=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One file per block, named after the line of its opening fence.
awk -v dir="$tmp" '
  /^```fortran[ \t]*$/ { inside = 1; out = sprintf("%s/line%05d.f90", dir, NR + 1); next }
  /^```/ { inside = 0; next }
  inside { print > out }
' "$doc"
checked=0 skipped=0
for f in "$tmp"/line*.f90; do
  [ -e "$f" ] || continue
  line=$((10#$(basename "$f" .f90 | sed 's/^line//')))
  compiler=$fc
  if grep -qiE '^[[:space:]]*use[[:space:]]+(mpi_f08|ballast_mpi)' "$f"; then
    if [ -z "$mpifc" ]; then
      echo "$doc:$line: not checked (no MPI Fortran wrapper)"
      skipped=$((skipped + 1))
      continue
    fi
    compiler=$mpifc
  fi
  mkdir -p "$f.mod"
  if ! "$compiler" -std=f2008 -Wall -Wno-unused-dummy-argument -Werror -I"$moddir" \
    -J "$f.mod" -c "$f" -o "$f.o" 2>"$f.err"; then
    echo "FAIL: $doc:$line: this Fortran block does not compile:" >&2
    cat "$f.err" >&2
    exit 1
  fi
  checked=$((checked + 1))
done
[ "$checked" -gt 0 ] || { echo "FAIL: no \`\`\`fortran block in $doc" >&2; exit 1; }
echo "$checked Fortran blocks of $doc compile"
if [ "$skipped" -gt 0 ]; then exit 77; fi
