# Shared by the SLURM tests (sourced): a sandbox in a fresh temporary
# directory, stopped by its own script (by pid) on every exit, and checks
# that nothing it started survives.
# Needs: $sandbox (path of slurm/sandbox). Sets: $dir, $conf.
set -u
fails=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}
skip_unless_possible() {
  if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (slurmd runs jobs as their users)"; exit 77; fi
  local t
  for t in munged slurmctld-wlm slurmd-wlm sbatch squeue scontrol sinfo ss flock; do
    command -v "$t" >/dev/null 2>&1 || { echo "SKIP: '$t' not installed (scripts/install-deps)"; exit 77; }
  done
}
dir=$(mktemp -d /tmp/ballast-slurm-test-XXXXXX)
conf=$dir/slurm.conf
daemon_pids=""
cleanup() {
  "$sandbox" stop --dir "$dir" >/dev/null 2>&1
  rm -rf "$dir"
}
trap cleanup EXIT

# Run a SLURM client against this sandbox (SLURM_CONF only in its
# environment, never in this shell's: see no_survivors).
sl() { SLURM_CONF=$conf "$@"; }

sandbox_start() { # ARGS...: start, remember the daemons' pids
  local out rc
  out=$("$sandbox" start --dir "$dir" "$@" 2>"$dir.err"); rc=$?
  cat "$dir.err" >&2; rm -f "$dir.err"
  if [ $rc -eq 77 ]; then echo "SKIP: sandbox cannot run here"; exit 77; fi
  [ $rc -eq 0 ] || { echo "FAIL: sandbox start exited $rc"; tail -n 20 "$dir"/log/*.log 2>/dev/null; exit 1; }
  grep -qx "export SLURM_CONF=$conf" <<<"$out" || fail "start printed no SLURM_CONF line: $out"
  daemon_pids=$(cat "$dir"/run/*.pid | tr '\n' ' ')
}

# JobState of job $1 ("" if unknown).
job_state() { sl scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
wait_job_done() { # JOB SECONDS
  local i
  for ((i = 0; i < $2 * 10; i++)); do
    case "$(job_state "$1")" in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) return 0 ;; esac
    sleep 0.1
  done
  return 1
}

# After stop: no daemon of ours, and no process with our SLURM_CONF (steps,
# tasks), is left.
no_survivors() {
  local p
  for p in $daemon_pids; do
    if [ -d "/proc/$p" ] && tr '\0' '\n' 2>/dev/null <"/proc/$p/cmdline" | grep -qF "$dir/"; then
      fail "daemon pid $p ($(tr '\0' ' ' <"/proc/$p/cmdline")) survived stop"
    fi
  done
  for p in /proc/[0-9]*; do
    if tr '\0' '\n' 2>/dev/null <"$p/environ" | grep -qxF "SLURM_CONF=$conf"; then
      fail "process ${p#/proc/} ($(tr '\0' ' ' 2>/dev/null <"$p/cmdline")) survived stop"
    fi
  done
}
