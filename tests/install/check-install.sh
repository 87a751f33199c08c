#!/usr/bin/env bash
# Install the build tree into a scratch prefix, then build and run a
# consumer through find_package(Ballast) (shared and static) and through
# pkg-config. Usage: check-install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
test -f "$tmp/prefix/include/ballast/ballast.h"
test -f "$tmp/prefix/include/ballast/version.h"
cmake -S "$src/tests/install" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DEXAMPLE="$src/examples/for_reduce.c" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
LD_LIBRARY_PATH="$tmp/prefix/lib:$tmp/prefix/lib64:${LD_LIBRARY_PATH:-}" "$tmp/consumer/consumer_shared" 20000
"$tmp/consumer/consumer_static" 20000
pc_dir=$(dirname "$(find "$tmp/prefix" -name ballast.pc | head -1)")
PKG_CONFIG_PATH="$pc_dir" cc "$src/examples/for_reduce.c" -o "$tmp/pc_consumer" \
  $(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs ballast)
LD_LIBRARY_PATH="$tmp/prefix/lib:$tmp/prefix/lib64:${LD_LIBRARY_PATH:-}" "$tmp/pc_consumer" 20000
# Flags written by hand, no MPI include path (as a user who does not use
# MPI would write them): ballast.h with BALLAST_NO_MPI, and the MPI-free
# rebalance_plan.h and partition.h on their own, all with plain cc.
libdir=$(dirname "$(find "$tmp/prefix" -name 'libballast.so' | head -1)")
cc -std=c11 -Wall -Wextra -Wpedantic -Werror -DBALLAST_NO_MPI -I"$tmp/prefix/include" \
  "$src/examples/for_reduce.c" -o "$tmp/nompi_consumer" -L"$libdir" -lballast
LD_LIBRARY_PATH="$libdir:${LD_LIBRARY_PATH:-}" "$tmp/nompi_consumer" 20000
cat >"$tmp/plan.c" <<'EOF'
#include <ballast/rebalance_plan.h>
#ifdef MPI_VERSION
#error "rebalance_plan.h included <mpi.h>"
#endif
int main(void) {
  const double rate[3] = {1, 2, 1};
  int64_t t[3];
  double h;
  if (bal_rebalance_targets(3, 8, rate, t) != BAL_OK || t[0] != 2 || t[1] != 4 || t[2] != 2)
    return 1;
  return bal_rebalance_filter_h(BAL_REBALANCE_FS_STEADY, &h) == BAL_OK && h == 0.75 ? 0 : 1;
}
EOF
cc -std=c11 -Wall -Wextra -Wpedantic -Werror -I"$tmp/prefix/include" "$tmp/plan.c" \
  -o "$tmp/plan" -L"$libdir" -lballast
LD_LIBRARY_PATH="$libdir:${LD_LIBRARY_PATH:-}" "$tmp/plan"
# partition.h is MPI-free too: four points into two boxes.
cat >"$tmp/part.c" <<'EOF'
#include <ballast/partition.h>
#ifdef MPI_VERSION
#error "partition.h included <mpi.h>"
#endif
int main(void) {
  const double xy[8] = {0.1, 0.5, 0.2, 0.5, 0.8, 0.5, 0.9, 0.5};
  bal_partition_input in = {2, {0, 0, 0}, {1, 1, 0}, 4, xy, NULL, NULL};
  bal_partition_config cfg;
  int part[4];
  bal_partition_config_init(&cfg);
  cfg.parts = 2;
  if (bal_partition_compute(&in, &cfg, NULL, part, NULL) != BAL_OK) return 1;
  return part[0] == part[1] && part[2] == part[3] && part[0] != part[2] ? 0 : 1;
}
EOF
cc -std=c11 -Wall -Wextra -Wpedantic -Werror -I"$tmp/prefix/include" "$tmp/part.c" \
  -o "$tmp/part" -L"$libdir" -lballast
LD_LIBRARY_PATH="$libdir:${LD_LIBRARY_PATH:-}" "$tmp/part"
# ballast pop finds the installed libballast_pop.so from its own directory
# and measures an installed MPI program with it (MPI builds).
if [ -x "$tmp/prefix/bin/ballast-pop" ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  LD_LIBRARY_PATH="$libdir:${LD_LIBRARY_PATH:-}" "$tmp/prefix/bin/ballast-pop" --json -- \
    mpiexec --oversubscribe -n 2 "$tmp/prefix/bin/ballast-heat" --ny 8 --iterations 2 >"$tmp/pop.json"
  grep -q '"name":"global","ranks":2' "$tmp/pop.json"
fi
echo "install check passed"
