#!/usr/bin/env bash
# Build the SWF-reader fuzzer with clang in its own build directory and run
# it for SECONDS (default 30), seeded with the hand-written seeds of
# tests/fuzz/corpus (one file per kind of input, named for what it holds).
# Findings (crash-*, leak-*) are written to the build directory; the inputs
# the run discovers stay in BUILD_DIR/fuzz-corpus.
# Usage: tests/fuzz/run.sh [SECONDS] [BUILD_DIR]
#
# Never commit what a run generates: a new kind of input the fuzzer should
# start from is one more hand-written, named seed file.
set -euo pipefail
secs=${1:-30}
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(mkdir -p "${2:-$src/build-fuzz}" && cd "${2:-$src/build-fuzz}" && pwd)
cmake -S "$src" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DBALLAST_BUILD_BENCH=OFF -DBALLAST_BUILD_EXAMPLES=OFF -DBALLAST_BUILD_TOOLS=OFF >/dev/null
cmake --build "$build" --target fuzz_swf -j2 >/dev/null
# libFuzzer writes new inputs into the FIRST directory: the build tree's.
mkdir -p "$build/fuzz-corpus"
cd "$build"
"$build/tests/fuzz/fuzz_swf" -max_total_time="$secs" -max_len=4096 -rss_limit_mb=1024 \
  "$build/fuzz-corpus" "$src/tests/fuzz/corpus"
