#!/usr/bin/env bash
# Ballast's UTS against the UTS authors' own MPI work-stealing program
# (docs/BENCHMARKS.md, "steal: UTS against the reference MPI programs").
# The peer (../shared/peers/uts: uts-seq, uts-mpi-ws) is built from its own
# build.sh into OUT_DIR/peer-mpi and OUT_DIR/peer-smpi, outside the
# repository's sources; nothing of it is linked into Ballast. When it is
# missing the study says so and exits 0 ("skipped").
#
# Usage: bench/steal/uts-peers.sh [BUILD_DIR] [OUT_DIR]
#   PEER=DIR            the peer's sources (default: ../shared/peers/uts
#                       beside the repository)
#   STUDIES="mpi smpi"
#   mpi   real MPI on this machine, MPI_RANKS ranks (more ranks than cores
#         are oversubscribed, and labelled so), trees TREES, REPS runs
#         each. Every run pairs a sequential and a parallel search of the
#         same program: the peer's uts-seq then uts-mpi-ws under mpirun;
#         `ballast uts`, whose rank 0 searches the whole tree sequentially
#         first. Efficiency = sequential time / (ranks x parallel time),
#         each program against its OWN sequential time.
#   smpi  SimGrid SMPI on the platform `ballast simulate-uts` writes (28-core
#         nodes, 1 us links), SMPI_RANKS ranks, trees SMPI_TREES. The peer
#         (built by smpicc) runs real code that SMPI times; its sequential
#         time is its own 1-rank run under SMPI, and that time / nodes is
#         the node cost given to `ballast simulate-uts --node-cost`. Both
#         get the same MPI_Test/MPI_Iprobe cost (PROBE_COST s). The peer's
#         parallel runs get PEER_SMPI_ARGS (default "-i 90": it polls every
#         90 nodes, about Ballast's check interval at SLICE; its default
#         adaptive interval polls at every node while thieves ask, which
#         SMPI charges a test each); its 1-rank run has its defaults.
#         PRIVATIZATION=dlopen (a copy of the peer per rank: what SimGrid
#         3.32's default selects on Linux; mmap, which remaps the globals at
#         every switch between ranks, simulated it about half as fast).
#   REPS=3  MPI_RANKS="1 2 3 4"  TREES="T1 T3"
#   SMPI_RANKS="28 112"  SMPI_TREES="T1"  PROBE_COST=1e-6  SLICE=2e-5
#   PEER_SMPI_ARGS="-i 90"  PRIVATIZATION=dlopen
#   TIMEOUT=900         seconds one simulation may take before it is stopped;
#                       the peer's simulated clock is read with gdb
#                       CLOCK_AHEAD=30 s before, and a stopped run's row
#                       carries it as par_s: the table prints the bound
#                       on its efficiency, seq / (P x par_s)
# Output: OUT_DIR/raw.csv (one row per run, with `uptime`'s load), then
# OUT_DIR/uts-peers.csv and .md (medians) and OUT_DIR/uts-peers.png;
# beside them every Ballast run's JSON (mpi-ballast.jsonl, smpi-*.json)
# and every peer run's output (smpi-*-peer.log; peer.log: the last real one).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=smpi-named-colls.sh
. "$here/smpi-named-colls.sh"
build=${1:-build}
out=${2:-$build/peers}
PEER=${PEER:-$here/../../../shared/peers/uts}
STUDIES=${STUDIES:-"mpi smpi"}
REPS=${REPS:-3}
MPI_RANKS=${MPI_RANKS:-"1 2 3 4"}
TREES=${TREES:-"T1 T3"}
SMPI_RANKS=${SMPI_RANKS:-"28 112"}
SMPI_TREES=${SMPI_TREES:-"T1"}
PROBE_COST=${PROBE_COST:-1e-6}
SLICE=${SLICE:-2e-5}
PEER_SMPI_ARGS=${PEER_SMPI_ARGS:--i 90}
PRIVATIZATION=${PRIVATIZATION:-dlopen}
TIMEOUT=${TIMEOUT:-900}

if [ ! -x "$PEER/build.sh" ]; then
  echo "uts-peers.sh: no UTS peer at $PEER (set PEER=DIR): skipped"
  exit 0
fi
ballast=$build/tools/ballast
[ -x "$ballast" ] || { echo "uts-peers.sh: $ballast missing: build Ballast first" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
raw=$out/raw.csv
[ -s "$raw" ] || echo "study,tree,program,ranks,cores,rep,nodes,seq_s,par_s,efficiency,wall_s,load1" >"$raw"
cores=$(nproc)
export TMPDIR=${TMPDIR:-/tmp}
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

tree_args() { # the UTS paper's trees, as the peer's sample_trees.sh sets them
  case $1 in
  T1) echo "-t 1 -a 3 -d 10 -b 4 -r 19" ;;
  T3) echo "-t 0 -b 2000 -q 0.124875 -m 8 -r 42" ;;
  T1L) echo "-t 1 -a 3 -d 13 -b 4 -r 29" ;;
  T3L) echo "-t 0 -b 2000 -q 0.200014 -m 5 -r 7" ;;
  *) echo "uts-peers.sh: unknown tree $1" >&2; exit 2 ;;
  esac
}
tree_nodes() { # published sizes [Olivier 2006]
  case $1 in T1) echo 4130071 ;; T3) echo 4112897 ;; T1L) echo 102181082 ;; T3L) echo 111345631 ;; esac
}
load1() { uptime | sed 's/.*load average: *//; s/,.*//'; }
# "Tree size = N ..." and "Wallclock time = S sec" of a peer run: "N S"
peer_parse() {
  sed -n 's/^Tree size = \([0-9]*\),.*/\1/p; s/^Wallclock time = \([0-9.]*\) sec.*/\1/p' "$1" | tr '\n' ' '
}
check_nodes() { # WHAT GOT WANT
  [ "$2" = "$3" ] || { echo "uts-peers.sh: $1 counted '$2' nodes, published $3" >&2; exit 1; }
}
row() { echo "$*" | tr ' ' ',' >>"$raw"; echo "$*"; }

study_mpi() {
  [ -x "$out/peer-mpi/uts-mpi-ws" ] || "$PEER/build.sh" "$out/peer-mpi" >/dev/null
  local tree p rep args want log n s np tp j
  log=$out/peer.log
  for tree in $TREES; do
    args=$(tree_args "$tree") want=$(tree_nodes "$tree")
    for p in $MPI_RANKS; do
      for ((rep = 1; rep <= REPS; rep++)); do
        # the two programs take turns in each repetition, so they share the load
        # shellcheck disable=SC2086 # word lists
        "$out/peer-mpi/uts-seq" $args >"$log"
        read -r n s <<<"$(peer_parse "$log")"
        check_nodes "uts-seq $tree" "$n" "$want"
        # shellcheck disable=SC2086
        mpirun -n "$p" --oversubscribe "$out/peer-mpi/uts-mpi-ws" $args >"$log" </dev/null
        read -r np tp <<<"$(peer_parse "$log")"
        check_nodes "uts-mpi-ws $tree on $p" "$np" "$want"
        row mpi "$tree" peer "$p" "$cores" "$rep" "$np" "$s" "$tp" \
          "$(awk -v s="$s" -v t="$tp" -v p="$p" 'BEGIN {printf "%.4f", s / (p * t)}')" "" "$(load1)"
        # shellcheck disable=SC2086
        j=$("$ballast" uts --ranks "$p" --workers 1 $args --json </dev/null)
        # every run's JSON (its thefts, idle time) for the why of a figure
        printf '%s\n' "$j" >>"$out/mpi-ballast.jsonl"
        read -r n s tp e <<<"$(printf '%s' "$j" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["nodes"], d["sequential"]["time_s"], d["time_s"], "%.4f" % d["efficiency"])')"
        check_nodes "ballast uts $tree on $p" "$n" "$want"
        row mpi "$tree" ballast "$p" "$cores" "$rep" "$n" "$s" "$tp" "$e" "" "$(load1)"
      done
    done
  done
}

# The platform and host files `ballast simulate-uts` writes for P ranks,
# obtained from a one-node tree (--keep-files): the peer runs on the same.
platform_for() { # P DIR
  local msg
  msg=$("$ballast" simulate-uts --ranks "$1" --keep-files -t 1 -d 1 -b 1 -r 0 --node-cost 1e-6 2>&1 >/dev/null)
  local kept=${msg##*kept in }
  [ -f "$kept/platform.xml" ] || { echo "uts-peers.sh: no platform from simulate-uts: $msg" >&2; exit 1; }
  mkdir -p "$2"
  mv "$kept/platform.xml" "$kept/hosts.txt" "$2/"
  rmdir "$kept"
}

# The peer under smpirun with simulate-uts's settings (tools/simulate-common/
# simrun.c), except two that real code needs: its globals are privatized
# (PRIVATIZATION) and its computation is timed (simulate-computation's
# default), every burst of it (cpu-threshold -1: a node costs less than
# SMPI's default threshold of 1 us).
peer_smpi() { # P PLATFORM_DIR LOG ARGS...
  local p=$1 dir=$2 log=$3 pid w st
  shift 3
  rm -f "$log.clock"
  nice -n 19 /usr/bin/time -f "%e" -o "$log.time" timeout "$TIMEOUT" smpirun -np "$p" \
    -platform "$dir/platform.xml" -hostfile "$dir/hosts.txt" \
    --cfg=smpi/privatization:"$PRIVATIZATION" --cfg=smpi/host-speed:2.4e9f --cfg=smpi/cpu-threshold:-1 \
    "${SMPI_NAMED_COLLS[@]}" --cfg=smpi/grow-injected-times:no \
    --cfg=smpi/iprobe:"$PROBE_COST" --cfg=smpi/test:"$PROBE_COST" \
    --log=root.thres:warning --log=xbt_cfg.thres:warning \
    "$out/peer-smpi/uts-mpi-ws" "$@" >"$log" 2>&1 </dev/null &
  pid=$!
  clock_before_stop "$pid" "$log.clock" &
  w=$!
  st=0
  wait "$pid" || st=$?
  kill "$w" 2>/dev/null || true
  wait "$w" 2>/dev/null || true
  return "$st"
}

# The simulated clock of the smpimain below PID, read with gdb
# (simgrid_get_clock()) CLOCK_AHEAD s before TIMEOUT stops the run, into
# FILE: a run still going at simulated time t has efficiency below
# seq / (P t), the bound the table prints for a stopped peer. Nothing is
# written without gdb or when the run ends first.
CLOCK_AHEAD=${CLOCK_AHEAD:-30}
descendants() { # PID: its children, theirs, ...
  local c
  for c in $(pgrep -P "$1"); do echo "$c"; descendants "$c"; done
}
clock_before_stop() { # PID FILE
  local s q
  s=$((TIMEOUT > 2 * CLOCK_AHEAD ? TIMEOUT - CLOCK_AHEAD : TIMEOUT / 2))
  trap 'kill "$q" 2>/dev/null; exit 0' TERM
  sleep "$s" &
  q=$!
  wait "$q"
  command -v gdb >/dev/null || return 0
  for q in $(descendants "$1"); do
    [ "$(cat "/proc/$q/comm" 2>/dev/null)" = smpimain ] || continue
    # shellcheck disable=SC2016 # gdb's value history, not a shell variable
    timeout 60 gdb -p "$q" -batch -ex 'call (double)simgrid_get_clock()' 2>/dev/null |
      sed -n 's/^\$1 = //p' >"$2"
  done
}

study_smpi() {
  [ -x "$out/peer-smpi/uts-mpi-ws" ] || "$PEER/build.sh" "$out/peer-smpi" smpicc >/dev/null
  local tree p args want n seq cost tp st j e w
  platform_for 28 "$out/platform-1"
  for tree in $SMPI_TREES; do
    args=$(tree_args "$tree") want=$(tree_nodes "$tree")
    # shellcheck disable=SC2086
    peer_smpi 1 "$out/platform-1" "$out/smpi-$tree-1-peer.log" $args
    read -r n seq <<<"$(peer_parse "$out/smpi-$tree-1-peer.log")"
    check_nodes "uts-mpi-ws (SMPI) $tree on 1" "$n" "$want"
    cost=$(awk -v s="$seq" -v n="$n" 'BEGIN {printf "%.4g", s / n}')
    row smpi "$tree" peer 1 "" 1 "$n" "$seq" "$seq" 1 "$(tail -n 1 "$out/smpi-$tree-1-peer.log.time")" "$(load1)"
    echo "uts-peers.sh: $tree: the peer's node cost under SMPI: $seq s / $n nodes = $cost s"
    for p in $SMPI_RANKS; do
      platform_for "$p" "$out/platform-$p"
      # shellcheck disable=SC2086
      j=$(nice -n 19 /usr/bin/time -f "%e" -o "$out/smpi-$tree-$p-ballast.time" timeout "$TIMEOUT" \
        "$ballast" simulate-uts --ranks "$p" $args --node-cost "$cost" --probe-cost "$PROBE_COST" \
        --slice "$SLICE" --json </dev/null)
      printf '%s\n' "$j" >"$out/smpi-$tree-$p-ballast.json"
      read -r n tp e <<<"$(printf '%s' "$j" | python3 -c '
import json, sys
u = json.load(sys.stdin)["uts"]
print(u["nodes"], u["time_s"], "%.4f" % u["efficiency"])')"
      check_nodes "simulate-uts $tree on $p" "$n" "$want"
      w=$(cat "$out/smpi-$tree-$p-ballast.time")
      # Ballast's sequential time: the same nodes at the same node cost
      row smpi "$tree" ballast "$p" "" 1 "$n" "$(awk -v n="$n" -v c="$cost" 'BEGIN {printf "%.6g", n * c}')" \
        "$tp" "$e" "$w" "$(load1)"
      # shellcheck disable=SC2086
      if peer_smpi "$p" "$out/platform-$p" "$out/smpi-$tree-$p-peer.log" $args $PEER_SMPI_ARGS; then
        read -r n tp <<<"$(peer_parse "$out/smpi-$tree-$p-peer.log")"
        check_nodes "uts-mpi-ws (SMPI) $tree on $p" "$n" "$want"
        e=$(awk -v s="$seq" -v t="$tp" -v p="$p" 'BEGIN {printf "%.4f", s / (p * t)}')
      else
        st=$?
        [ "$st" = 124 ] || { echo "uts-peers.sh: the peer failed on $p ranks (status $st): $out/smpi-$tree-$p-peer.log" >&2; exit 1; }
        # the clock read before the stop, as its parallel time: a lower bound
        tp=$(cat "$out/smpi-$tree-$p-peer.log.clock" 2>/dev/null || true)
        echo "uts-peers.sh: the peer did not finish $tree on $p simulated ranks in $TIMEOUT s: stopped" \
          "${tp:+at simulated time $tp or later}"
        n="" e=timeout
      fi
      row smpi "$tree" peer "$p" "" 1 "$n" "$seq" "$tp" "$e" "$(tail -n 1 "$out/smpi-$tree-$p-peer.log.time")" "$(load1)"
    done
  done
}

for study in $STUDIES; do
  case $study in
  mpi) study_mpi ;;
  smpi) study_smpi ;;
  *) echo "uts-peers.sh: unknown study $study" >&2; exit 2 ;;
  esac
done
python3 "$here/uts-peers-table.py" "$raw" "$out/uts-peers.csv" "$out/uts-peers.md"
"$here/uts-peers-plot.sh" "$out/uts-peers.csv" "$out/uts-peers.png"
