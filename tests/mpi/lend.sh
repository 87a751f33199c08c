#!/usr/bin/env bash
# Lending on real CPUs (tests/mpi/test_lend.c; issue 27's acceptance): the
# same 2-rank program without and then with BALLAST_LEND=1, each under a
# separate monitor process checking the registry's invariant throughout.
# In each run odd iterations call enter/exit around the barrier and even
# ones do not (an interleaved same-run baseline). With BALLAST_LEND=1 the
# median of the odd iterations is reported against the even ones';
# without it no CPU is ever lent. Skipped (77) with fewer than 2 usable CPUs.
# Usage: lend.sh BINARY MPIEXEC [ITERS]; LEND_REQUIRE=1 fails below 25%.
set -euo pipefail
bin=$1 mpiexec=$2 iters=${3:-40}
[ "$(nproc)" -ge 2 ] || { echo "SKIP: fewer than 2 usable CPUs"; exit 77; }
# Lending helps only if the lent CPU would otherwise idle: the load average
# before the runs is printed beside the timing.
load=$(cut -d' ' -f1 /proc/loadavg)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# A waiting rank yields its CPU in Open MPI's progress loop, so that the
# borrower's worker on that CPU is not halved by the spin (docs/node.md).
export OMPI_MCA_mpi_yield_when_idle=1
unset BALLAST_LEND BALLAST_NODE
tmp=$(mktemp -d)
mon=
trap '[ -n "$mon" ] && kill "$mon" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# one LABEL [VAR=VALUE...]: a run; prints its result line
one() {
  local label=$1 name="/ballast-test-lend-$$-$1"
  shift
  "$bin" monitor "$name" >"$tmp/$label.mon" &
  mon=$!
  env "$@" "$mpiexec" -n 2 --bind-to none "$bin" run "$name" "$iters" >"$tmp/$label.out" \
    || fail "$label: the program failed: $(cat "$tmp/$label.out")"
  kill -TERM "$mon"
  wait "$mon" || fail "$label: the monitor saw the invariant broken: $(cat "$tmp/$label.mon")"
  mon=
  echo "$label: $(cat "$tmp/$label.out"); monitor: $(cat "$tmp/$label.mon")"
}

one off
one lend BALLAST_LEND=1
read -r _ off_plain _ off_ee _ off_lent _ off_err < "$tmp/off.out"
read -r _ plain_ms _ lend_ms _ lend_lent _ lend_err < "$tmp/lend.out"
[ "$off_lent" -eq 0 ] || fail "without BALLAST_LEND a CPU was lent"
# The timing is printed, not asserted: a test must not pass or fail with
# the machine's load, and the >= 25% figure is a benchmark's to measure on
# a quiet machine (LEND_REQUIRE=1 makes this script that benchmark's check).
rc=0
python3 - "$plain_ms" "$lend_ms" "$off_plain" "$off_ee" <<'PY' || rc=$?
import sys
plain, lend, off_plain, off_ee = map(float, sys.argv[1:])
cut = 1 - lend / plain
print(f"without BALLAST_LEND: {off_plain:.2f} ms, {off_ee:.2f} ms with enter/exit (no-ops)")
print(f"BALLAST_LEND=1: {plain:.2f} ms without enter/exit, {lend:.2f} ms with: "
      f"{100 * cut:.1f}% less (ideal 33.3%, the issue's target 25%)")
sys.exit(0 if cut >= 0.25 else 1)
PY
echo "load average before the runs: $load on $(nproc) CPUs"
if [ "$rc" -ne 0 ] && [ "${LEND_REQUIRE:-0}" = 1 ]; then
  fail "lending cut the iteration time by less than 25%"
fi
echo "invariant and exactness: passed"
