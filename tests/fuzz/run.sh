#!/usr/bin/env bash
# Build the SWF-reader fuzzer with clang in its own build directory and run
# it for SECONDS (default 30). Usage: tests/fuzz/run.sh [SECONDS] [BUILD_DIR]
# Findings (crash-*, leak-*) are written to the build directory.
set -euo pipefail
secs=${1:-30}
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(mkdir -p "${2:-$src/build-fuzz}" && cd "${2:-$src/build-fuzz}" && pwd)
cmake -S "$src" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DBALLAST_BUILD_BENCH=OFF -DBALLAST_BUILD_EXAMPLES=OFF -DBALLAST_BUILD_TOOLS=OFF >/dev/null
cmake --build "$build" --target fuzz_swf -j2 >/dev/null
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
cp "$src"/tests/data/*.swf "$corpus"/
cd "$build"
"$build/tests/fuzz/fuzz_swf" -max_total_time="$secs" -max_len=4096 -rss_limit_mb=1024 "$corpus"
