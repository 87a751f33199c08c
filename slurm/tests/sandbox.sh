#!/bin/bash
# The SLURM sandbox end to end: a 2-node sandbox starts (idempotently), a
# batch job runs on each node, a second sandbox runs beside it with --hold
# (a job waits until released), and stop leaves no daemon, step or task of
# either running. Skipped (77) when not root or SLURM/munge are not installed.
# Usage: sandbox.sh PATH/TO/slurm/sandbox
sandbox=$1
here=$(dirname "$0")
. "$here/common.sh"
skip_unless_possible

sandbox_start --nodes 2 --cpus 4
states=$(sl sinfo -h -N -o '%N %t %c' | sort)
[ "$states" = "$(printf 'n1 idle 4\nn2 idle 4')" ] || fail "nodes after start: $states"

# Idempotent: a second start changes nothing and prints the same env.
first=$(cat "$dir/env.sh")
"$sandbox" start --dir "$dir" >/dev/null 2>&1 || fail "second start failed"
[ "$(cat "$dir"/run/*.pid | tr '\n' ' ')" = "$daemon_pids" ] || fail "second start restarted daemons"
[ "$(cat "$dir/env.sh")" = "$first" ] || fail "second start changed env.sh"
"$sandbox" start --dir "$dir" --nodes 3 >/dev/null 2>&1 && fail "start with another node count was accepted"
"$sandbox" status --dir "$dir" | grep -q '^  n2 idle' || fail "status does not show n2 idle"

# One batch job per node; each writes the node it ran on.
jobs=""
for n in n1 n2; do
  j=$(cd "$dir" && sl sbatch --parsable -N1 -w $n -o "$dir/out-$n" --wrap 'echo "ran on $SLURMD_NODENAME"') ||
    fail "sbatch on $n failed"
  jobs="$jobs $j"
done
for j in $jobs; do
  wait_job_done "$j" 30 || { fail "job $j not done after 30 s (state $(job_state "$j"))"; exit 1; }
  [ "$(job_state "$j")" = COMPLETED ] || fail "job $j ended $(job_state "$j")"
done
for n in n1 n2; do
  [ "$(cat "$dir/out-$n" 2>/dev/null)" = "ran on $n" ] || fail "job on $n wrote '$(cat "$dir/out-$n" 2>/dev/null)'"
done

# A second sandbox beside the first (as parallel tests and experiments run
# them), with --hold: its own slot, ports and cluster; a job waits held
# until root gives it a node and releases it.
dir2=$(mktemp -d /tmp/ballast-slurm-test-XXXXXX)
trap 'cleanup; "$sandbox" stop --dir "$dir2" >/dev/null 2>&1; rm -rf "$dir2"' EXIT
"$sandbox" start --dir "$dir2" --nodes 1 --hold >/dev/null 2>&1 || fail "second sandbox did not start"
conf2=$dir2/slurm.conf
[ "$(grep ^ClusterName= "$conf2")" != "$(grep ^ClusterName= "$conf")" ] || fail "both sandboxes have one cluster name"
[ "$(grep ^SlurmctldPort= "$conf2")" != "$(grep ^SlurmctldPort= "$conf")" ] || fail "both sandboxes have one slurmctld port"
h=$(cd "$dir2" && SLURM_CONF=$conf2 sbatch --parsable -N1 -o /dev/null --wrap true) || fail "sbatch in the held sandbox"
sleep 2
reason=$(SLURM_CONF=$conf2 squeue -h -j "$h" -o '%t %r')
[ "$reason" = "PD JobHeldUser" ] || fail "a job of the held sandbox is '$reason', not held"
SLURM_CONF=$conf2 scontrol update jobid="$h" nodelist=n1 && SLURM_CONF=$conf2 scontrol release "$h" || fail "release"
for _ in $(seq 100); do
  st=$(SLURM_CONF=$conf2 scontrol show job "$h" | sed -n 's/.*JobState=\([A-Z]*\).*/\1/p')
  [ "$st" = COMPLETED ] && break
  sleep 0.1
done
[ "$st" = COMPLETED ] || fail "the released job is $st"
"$sandbox" stop --dir "$dir2" >/dev/null 2>&1 || fail "stop of the second sandbox"
[ "$(sl sinfo -h -N -o '%N %t' | sort | paste -sd,)" = "n1 idle,n2 idle" ] || fail "the first sandbox suffered from the second's stop"

# A job still running at stop time is stopped with the sandbox.
j=$(cd "$dir" && sl sbatch --parsable -N1 -w n1 -o /dev/null --wrap 'sleep 300')
for _ in $(seq 50); do [ "$(job_state "$j")" = RUNNING ] && break; sleep 0.1; done
[ "$(job_state "$j")" = RUNNING ] || fail "the sleeping job did not start"

"$sandbox" stop --dir "$dir" || fail "stop failed"
no_survivors
"$sandbox" status --dir "$dir" >/dev/null; [ $? -eq 3 ] || fail "status of a stopped sandbox is not 3"
"$sandbox" stop --dir "$dir" >/dev/null 2>&1 || fail "a second stop failed"
slot=$(sed -n 's/^s_slot=//p' "$dir/sandbox.state")
[ ! -e "/tmp/ballast-slurm-slots/$slot" ] || [ "$(cat "/tmp/ballast-slurm-slots/$slot")" != "$dir" ] ||
  fail "slot $slot still taken after stop"

[ $fails -eq 0 ] && echo "slurm sandbox: OK"
exit $((fails > 0))
