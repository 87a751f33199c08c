#!/usr/bin/env bash
# examples/heat_geo end to end on a small grid (sleep-emulated cells, a few
# seconds): with every partition method (given weights; measured too for
# hilbert and rcb) and none, every run ends, the final temperatures' checksum equals the
# unbalanced run's (moving cells must not change a bit of the result), the
# balanced runs move cells, --json has its keys, --owners writes one block
# per snapshot; a bad option is exit 2 naming it.
# Usage: heat_geo.sh BINARY MPIEXEC OVERSUBSCRIBE_FLAG RANKS
set -euo pipefail
bin=$1 mpiexec=$2 oversub=$3 ranks=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1
small=(--nx 40 --ny 30 --steps 60 --radius 6 --heavy 10 --cell-time 2e-5)
run() { # shellcheck disable=SC2086
  "$mpiexec" -n "$ranks" $oversub "$bin" "${small[@]}" --json "$@"
}
field() { python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(d[sys.argv[2]])' "$1" "$2"; }

ref=$(run --method none)
for k in method weights ranks nx ny steps heavy radius cell_time interval efficiency halo_per_step moved \
         rebalances quiet_step_fraction wall_s checksum; do
  python3 -c 'import json,sys; assert sys.argv[2] in json.loads(sys.argv[1])' "$ref" "$k" ||
    fail "--json lacks $k"
done
sum=$(field "$ref" checksum)
[ "$(field "$ref" moved)" = 0 ] || fail "none moved cells"
methods=$("$bin" --help | sed -n 's/.*partition method (\(.*\)none).*/\1/p' | tr -d ',')
[ -n "$methods" ] || fail "no methods in --help"
for m in $methods; do
  weights=given
  case $m in hilbert | rcb) weights="given measured" ;; esac
  for w in $weights; do
    out=$(run --method "$m" --weights "$w")
    [ "$(field "$out" checksum)" = "$sum" ] || fail "$m/$w: checksum differs: $out"
    [ "$(field "$out" method)" = "$m" ] || fail "$m/$w: method not echoed"
    if [ "$ranks" -gt 1 ] && [ "$w" = given ]; then
      [ "$(field "$out" moved)" -gt 0 ] || fail "$m/$w moved nothing: $out"
    fi
    echo "$m $w: $(field "$out" efficiency) (none $(field "$ref" efficiency))"
  done
done

"$mpiexec" -n "$ranks" $oversub "$bin" "${small[@]}" --method rcb --owners "$tmp/own.dat" \
  --owners-every 20 >/dev/null
blocks=$(grep -c '^# step' "$tmp/own.dat")
[ "$blocks" = 3 ] || fail "--owners wrote $blocks blocks, expected 3"

set +e
err=$("$bin" --method voronoi 2>&1 >/dev/null)
rc=$?
set -e
[ $rc = 2 ] || fail "bad --method: exit $rc"
case "$err" in *"--method"*voronoi*) ;; *) fail "bad --method: message '$err'" ;; esac
echo "heat_geo: all checks passed"
