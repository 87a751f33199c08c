#!/bin/bash
# The SPANK plugin in a real SLURM: on a sandbox of 2 nodes x 8 CPUs (SF
# 0.5), a malleable 2-node mate job runs examples/node_job.c (it prints its
# mask at each change) once per node (one step, one task per node); a guest
# job, held, is given the mate relation in its AdminComment and released
# onto n2: the mate's process on n2 shrinks to 0-3 while the guest holds 4-7
# (lent by the mate), and grows back to 0-7 when the guest ends; its
# process on n1 keeps 0-7 throughout. A second guest killed by SIGKILL
# gives the CPUs back too. A guest with 2 tasks on n2 (a hybrid job's 2
# ranks per node) has both admitted: 4-5 and 6-7, both lent by the mate,
# which shrinks to 0-3 and gets all back at the end. Also: --malleable marks the AdminComment
# (job_submit.lua), a job without it is not registered, three tasks of one
# step on a node share its CPUs. Skipped (77) when not root or SLURM/munge
# are missing.
# Usage: spank.sh SANDBOX PLUGIN BALLAST_NODE NODE_JOB
sandbox=$1 plugin=$(readlink -f "$2") node=$(readlink -f "$3") job=$(readlink -f "$4")
here=$(dirname "$0")
. "$here/common.sh"
skip_unless_possible

sandbox_start --nodes 2 --cpus 8 --plugin "$plugin"
. "$dir/env.sh" # BALLAST_SLURM_REGISTRY_PREFIX
unset SLURM_CONF
reg1=${BALLAST_SLURM_REGISTRY_PREFIX}n1
reg=${BALLAST_SLURM_REGISTRY_PREFIX}n2 # where the guests go

# "CPUS BORROWED" of job $1 in registry $2 (default n2's; "" if the job has
# no process there), e.g. "4-7 4-7 from job 2" or "0-3 -"; one per process
# of the job, sorted, joined by "; ".
row() {
  local out
  out=$("$node" list --registry "${2:-$reg}" --json 2>/dev/null) || return 0 # no registry yet
  python3 -c '
import json, sys
job = int(sys.argv[1])
rows = []
for p in json.load(sys.stdin)["processes"]:
    if p["job"] == job:
        b = " ".join("%s from job %d" % (x["cpus"], x["from_job"]) for x in p["borrowed"]) or "-"
        rows.append("%s %s" % (p["cpus"], b))
if rows:
    print("; ".join(sorted(rows)))' "$1" <<<"$out"
}
wait_row() { # JOB WANT SECONDS WHAT
  local i got
  for ((i = 0; i < $3 * 20; i++)); do
    got=$(row "$1")
    [ "$got" = "$2" ] && return 0
    sleep 0.05
  done
  # Every later step depends on this one: stop here (the trap stops the
  # sandbox), rather than wait out every step and ctest's timeout, which
  # kills without running the trap.
  fail "$4: job $1 has '$got', expected '$2'"
  exit 1
}
submit() { (cd "$dir" && sl sbatch --parsable "$@"); }
guest() { # SECONDS MATE OUT [TASKS]: a held guest of MATE, given the relation and released onto n2
  local g n=${4:-1}
  g=$(submit --malleable --hold -N1 -n "$n" -o "$3" --wrap "srun -n $n $job $1") || return 1
  sl scontrol update jobid="$g" nodelist=n2 admincomment="sd:malleable sd:mates=$2" || fail "update $g"
  sl scontrol release "$g" || fail "release $g"
  echo "$g"
}

# A job without --malleable is not registered.
plain=$(submit -N1 -o /dev/null --wrap "srun $job 1")
wait_job_done "$plain" 30 || fail "plain job not done"
[ -z "$(row "$plain")" ] || fail "a job without --malleable was registered"

# Three tasks of one malleable step on a node share its CPUs: 8 / 3.
multi=$(submit --malleable -N1 -w n1 -o "$dir/multi.out" --wrap "srun -n3 $job 1")
wait_job_done "$multi" 30 || { fail "3-task job not done"; exit 1; }
# (each task's first mask: a task outliving the others by a poll also
# prints the CPUs they left it)
got=$(awk '/CPUs/ && !seen[$2]++ {print $4}' "$dir/multi.out" | sort -n | paste -sd' ')
[ "$got" = "0-1 2-4 5-7" ] || fail "3 tasks on 8 CPUs got '$got'"

mate=$(submit --malleable -N2 -o "$dir/mate.out" --wrap "srun --ntasks-per-node=1 $job 35")
sl scontrol show job "$mate" | grep -q 'AdminComment=sd:malleable' || fail "--malleable did not mark the AdminComment"
wait_row "$mate" "0-7 -" 20 "mate alone"
[ "$(row "$mate" "$reg1")" = "0-7 -" ] || fail "mate on n1: '$(row "$mate" "$reg1")'"
mate_n1=$("$node" list --registry "$reg1" | awk -v j="$mate" 'NR > 2 && $2 == j {print $1}')

g1=$(guest 3 "$mate" "$dir/guest1.out")
wait_row "$g1" "4-7 4-7 from job $mate" 20 "guest admitted"
wait_row "$mate" "0-3 -" 5 "mate shrunk"
[ "$(row "$mate" "$reg1")" = "0-7 -" ] || fail "mate on n1 changed: '$(row "$mate" "$reg1")'"
wait_job_done "$g1" 30 || { fail "guest 1 not done"; exit 1; }
wait_row "$mate" "0-7 -" 5 "mate grown back after the guest"
[ -z "$(row "$g1")" ] || fail "guest 1 still registered after it ended"
grep -q "CPUs 4-7" "$dir/guest1.out" || fail "guest 1 did not see 4-7: $(cat "$dir/guest1.out")"

g2=$(guest 60 "$mate" /dev/null)
wait_row "$g2" "4-7 4-7 from job $mate" 20 "second guest admitted"
wait_row "$mate" "0-3 -" 5 "mate shrunk again"
sl scancel --signal=KILL --full "$g2" || fail "scancel $g2"
wait_row "$mate" "0-7 -" 5 "mate grown back after the guest was killed"

# Two ranks of one guest on n2: both admitted, each with a part of what the
# mate lends, both parts still the mate's.
g3=$(guest 3 "$mate" "$dir/guest3.out" 2)
wait_row "$g3" "4-5 4-5 from job $mate; 6-7 6-7 from job $mate" 20 "2-task guest admitted"
wait_row "$mate" "0-3 -" 5 "mate shrunk for the 2-task guest"
wait_job_done "$g3" 30 || { fail "2-task guest not done"; exit 1; }
wait_row "$mate" "0-7 -" 5 "mate grown back after the 2-task guest"
got=$(awk '/CPUs/ && !seen[$2]++ {print $4}' "$dir/guest3.out" | sort | paste -sd' ')
[ "$got" = "4-5 6-7" ] || fail "2-task guest's tasks saw '$got', expected '4-5 6-7'"

wait_job_done "$mate" 50 || { fail "mate not done"; exit 1; }
[ "$(job_state "$mate")" = COMPLETED ] || fail "mate ended $(job_state "$mate")"
# The mate printed each change of its masks: on n2 alone, shrunk, back,
# shrunk, back, shrunk, back (through 0-3,6-7 or 0-5 if one of the 2-task
# guest's ranks ended a poll before the other); on n1 its first mask only.
seq=$(grep -v "^pid $mate_n1:" "$dir/mate.out" | sed -n 's/.*CPUs //p' | paste -sd' ')
[[ $seq =~ ^"0-7 0-3 0-7 0-3 0-7 0-3 "("0-3,6-7 "|"0-5 ")?"0-7"$ ]] || fail "mate's masks on n2 were '$seq'"
seq=$(grep "^pid $mate_n1:" "$dir/mate.out" | sed -n 's/.*CPUs //p' | paste -sd' ')
[ "$seq" = "0-7" ] || fail "mate's masks on n1 were '$seq'"

"$sandbox" stop --dir "$dir" >/dev/null 2>&1 || fail "stop failed"
no_survivors
[ ! -e "/dev/shm${reg}" ] && [ ! -e "/dev/shm${reg1}" ] || fail "registries left behind"
[ $fails -eq 0 ] && echo "slurm spank: OK"
exit $((fails > 0))
