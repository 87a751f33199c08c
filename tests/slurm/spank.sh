#!/bin/bash
# The SPANK plugin in a real SLURM: on a 1-node sandbox of 8 CPUs (SF 0.5),
# a malleable mate job runs examples/node_job.c (it prints its mask at each
# change); a guest job, held, is given the mate relation in its AdminComment
# and released onto the mate's node: the mate shrinks to 0-3 while the
# guest holds 4-7 (lent by the mate), and grows back to 0-7 when the guest
# ends. A second guest killed by SIGKILL gives the CPUs back too. Also:
# --malleable marks the AdminComment (job_submit.lua), a job without it is
# not registered. Skipped (77) when not root or SLURM/munge are missing.
# Usage: spank.sh SANDBOX PLUGIN BALLAST_NODE NODE_JOB
sandbox=$1 plugin=$(readlink -f "$2") node=$(readlink -f "$3") job=$(readlink -f "$4")
here=$(dirname "$0")
. "$here/common.sh"
skip_unless_possible

sandbox_start --nodes 1 --cpus 8 --plugin "$plugin"
. "$dir/env.sh" # BALLAST_SLURM_REGISTRY_PREFIX
unset SLURM_CONF
reg=${BALLAST_SLURM_REGISTRY_PREFIX}n1

# "CPUS BORROWED" of job $1 in the registry ("" if it has no process), e.g.
# "4-7 4-7 from job 2" or "0-3 -".
row() {
  local out
  out=$("$node" list --registry "$reg" --json 2>/dev/null) || return 0 # no registry yet
  python3 -c '
import json, sys
job = int(sys.argv[1])
for p in json.load(sys.stdin)["processes"]:
    if p["job"] == job:
        b = " ".join("%s from job %d" % (x["cpus"], x["from_job"]) for x in p["borrowed"]) or "-"
        print(p["cpus"], b)' "$1" <<<"$out"
}
wait_row() { # JOB WANT SECONDS WHAT
  local i got
  for ((i = 0; i < $3 * 20; i++)); do
    got=$(row "$1")
    [ "$got" = "$2" ] && return 0
    sleep 0.05
  done
  fail "$4: job $1 has '$got', expected '$2'"
  return 1
}
submit() { (cd "$dir" && sl sbatch --parsable "$@"); }
guest() { # SECONDS MATE OUT: a held guest of MATE, given the relation and released onto n1
  local g
  g=$(submit --malleable --hold -N1 -o "$3" --wrap "srun $job $1") || return 1
  sl scontrol update jobid="$g" nodelist=n1 admincomment="sd:malleable sd:mates=$2" || fail "update $g"
  sl scontrol release "$g" || fail "release $g"
  echo "$g"
}

# A job without --malleable is not registered.
plain=$(submit -N1 -o /dev/null --wrap "srun $job 1")
wait_job_done "$plain" 30 || fail "plain job not done"
[ -z "$(row "$plain")" ] || fail "a job without --malleable was registered"

mate=$(submit --malleable -N1 -o "$dir/mate.out" --wrap "srun $job 25")
sl scontrol show job "$mate" | grep -q 'AdminComment=sd:malleable' || fail "--malleable did not mark the AdminComment"
wait_row "$mate" "0-7 -" 20 "mate alone"

g1=$(guest 3 "$mate" "$dir/guest1.out")
wait_row "$g1" "4-7 4-7 from job $mate" 20 "guest admitted"
wait_row "$mate" "0-3 -" 5 "mate shrunk"
wait_job_done "$g1" 30 || fail "guest 1 not done"
wait_row "$mate" "0-7 -" 5 "mate grown back after the guest"
[ -z "$(row "$g1")" ] || fail "guest 1 still registered after it ended"
grep -q "CPUs 4-7" "$dir/guest1.out" || fail "guest 1 did not see 4-7: $(cat "$dir/guest1.out")"

g2=$(guest 60 "$mate" /dev/null)
wait_row "$g2" "4-7 4-7 from job $mate" 20 "second guest admitted"
wait_row "$mate" "0-3 -" 5 "mate shrunk again"
sl scancel --signal=KILL --full "$g2" || fail "scancel $g2"
wait_row "$mate" "0-7 -" 5 "mate grown back after the guest was killed"

wait_job_done "$mate" 40 || fail "mate not done"
[ "$(job_state "$mate")" = COMPLETED ] || fail "mate ended $(job_state "$mate")"
# The mate printed each change of its mask: alone, shrunk, back, shrunk, back.
seq=$(sed -n 's/.*CPUs //p' "$dir/mate.out" | paste -sd' ')
[ "$seq" = "0-7 0-3 0-7 0-3 0-7" ] || fail "mate's masks were '$seq'"

"$sandbox" stop --dir "$dir" >/dev/null 2>&1 || fail "stop failed"
no_survivors
[ ! -e "/dev/shm${reg}" ] || fail "registry $reg left behind"
[ $fails -eq 0 ] && echo "slurm spank: OK"
exit $((fails > 0))
