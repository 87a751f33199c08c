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
echo "install check passed"
