#!/usr/bin/env python3
"""SD-Policy live on a stock SLURM, end to end, in a sandbox of 4 nodes x 8 CPUs
(slurm/sandbox) with the SPANK plugin under test. Two scenarios, chosen by the first argument:

live    slurm/tests/tiny-sd.swf replayed at speedup 10 by `ballast slurm-replay`
        (which starts `ballast slurm-sd --policy sd`): the guest (job 3) starts on
        its mates' nodes before they end; the mates' masks shrink while it runs and
        grow back; every job completes exactly once; start times match `ballast
        sched --policy sd` on the same scaled trace within 2 x the start latency
        measured in this run + 2 s (SLURM's times are whole seconds); the mates'
        limits were extended and they were not killed.
faults  slurm-sd refuses a --sharing-factor other than the plugin's and a
        missing --partition; then the same trace with the daemon run by this test: the daemon is SIGKILLed
        after it started the guest and restarted (no job lost or started twice);
        the guest's processes are SIGKILLed (its mates get their CPUs back within
        0.5 s; the test job's malleability point comes every 0.1 s); a job asking for 5 nodes stays
        pending with its reason in squeue (%k) and in the daemon's log while the
        rest goes on.

Exit 77 (skipped) without root, SLURM's daemons, munge, the sandbox script or
the tools. Every process it starts is stopped by pid; the sandbox by its own
`stop`, which kills by pid what it started.

usage: sd_live.py live|faults SOURCE_DIR TOOLS_DIR PLUGIN_SO
(CMake passes the plugin of the build under test: $<TARGET_FILE:ballast_spank>)
"""
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SKIP = 77


def skip(why):
    print("SKIP: " + why)
    sys.exit(SKIP)


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


def read_lines(path):
    out = []
    try:
        with open(path, errors="replace") as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    try:
                        out.append(json.loads(line))
                    except ValueError:
                        pass
    except OSError:
        pass
    return out


def job_outputs(out_dir, trace_id):
    """The JSON lines of every per-node process of trace job trace_id."""
    lines = []
    for name in sorted(os.listdir(out_dir)):
        if name.startswith("job-%d-" % trace_id) and name.endswith(".out"):
            lines += read_lines(os.path.join(out_dir, name))
    return lines


class Sandbox:
    def __init__(self, src, work, plugin):
        self.script = os.path.join(src, "slurm", "sandbox")
        self.plugin = plugin
        self.dir = os.path.join(work, "sandbox")
        self.started = False

    def start(self):
        p = subprocess.run([self.script, "start", "--nodes", "4", "--cpus", "8", "--dir", self.dir,
                            "--plugin", self.plugin, "--print-env"], capture_output=True, text=True)
        if p.returncode == SKIP:
            skip("slurm-sandbox: " + p.stderr.strip())
        self.started = True
        if p.returncode != 0:
            fail("slurm-sandbox start: " + p.stderr.strip())
        for line in p.stdout.splitlines():
            if line.startswith("export ") and "=" in line:
                k, v = line[len("export "):].split("=", 1)
                os.environ[k] = v.strip("'\"")
        if "SLURM_CONF" not in os.environ:
            fail("slurm-sandbox start printed no SLURM_CONF")

    def stop(self):
        if self.started:
            subprocess.run([self.script, "stop", "--dir", self.dir], capture_output=True)


def replay(tools, trace, out_dir, extra):
    cmd = [os.path.join(tools, "ballast-slurm-replay"), trace, "--speedup", "10", "--policy", "sd",
           "--out-dir", out_dir, "--jobs-csv", os.path.join(out_dir, "jobs.csv"), "--json"] + extra
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish_replay(p, timeout):
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        fail("the replay took more than %d s" % timeout)
    sys.stderr.write(err)
    if p.returncode != 0:
        fail("ballast slurm-replay exited %d" % p.returncode)
    return json.loads(out)


def read_csv(path):
    import csv
    with open(path) as f:
        return {int(r["id"]): r for r in csv.DictReader(f)}


def simulated(tools, trace, min_runtime):
    """`ballast sched --policy sd` on the same scaled trace (the replay's rules)."""
    with tempfile.NamedTemporaryFile(suffix=".csv") as f:
        cmd = [os.path.join(tools, "ballast-sched"), "--policy", "sd", "--runtime-model", "worst",
               "--speedup", "10", "--scale-to-nodes", "4", "--scale-to-cpus", "8",
               "--min-runtime", str(min_runtime), "--jobs-csv", f.name, trace]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            fail("ballast sched: " + p.stderr)
        return read_csv(f.name)


def check_common(res, jobs, out_dir, daemon_log, faults):
    if res["lost"] != 0:
        fail("%d jobs lost" % res["lost"])
    for i, r in jobs.items():
        if r["state"] != "COMPLETED":
            fail("job %d ended %s" % (i, r["state"]))
        if int(r["restarts"]) != 0:
            fail("job %d was requeued %s times" % (i, r["restarts"]))
    events = read_lines(daemon_log)
    # nothing started twice: one start decision per job over every daemon run
    starts = {}
    for e in events:
        if e.get("event") == "start":
            starts[e["job"]] = starts.get(e["job"], 0) + 1
    slurm_ids = {int(r["slurm_id"]): i for i, r in jobs.items()}
    for sid, i in slurm_ids.items():
        if starts.get(sid, 0) != 1:
            fail("job %d (SLURM %d) has %d start decisions in the daemon's log"
                 % (i, sid, starts.get(sid, 0)))
    # each node's process started once and (but for a killed guest) ended once
    for i, r in jobs.items():
        lines = job_outputs(out_dir, i)
        n = int(r["nodes"])
        nstart = sum(1 for e in lines if e["event"] == "start")
        if nstart != n:
            fail("job %d: %d process starts for %d nodes" % (i, nstart, n))
        if not (faults and i == 3):
            nend = sum(1 for e in lines if e["event"] == "end")
            if nend != n:
                fail("job %d: %d process ends for %d nodes" % (i, nend, n))
    guest = [e for e in events if e.get("event") == "start" and e.get("kind") == "guest"]
    if len(guest) != 1 or guest[0]["job"] != int(jobs[3]["slurm_id"]):
        fail("expected one guest start, job 3: %s" % guest)
    mate_nodes = set()
    for e in events:
        if e.get("event") == "start" and e["job"] in (int(jobs[1]["slurm_id"]),
                                                       int(jobs[2]["slurm_id"])):
            mate_nodes |= set(e["nodes"])
    if set(guest[0]["nodes"]) != mate_nodes or len(mate_nodes) != 4:
        fail("guest on %s, mates on %s" % (guest[0]["nodes"], sorted(mate_nodes)))
    g = jobs[3]
    if not float(g["live_start"]) < min(float(jobs[1]["live_end"]), float(jobs[2]["live_end"])):
        fail("the guest did not start before its mates ended")
    if int(g["live_mates"]) != 2:
        fail("the guest's admin comment names %s mates" % g["live_mates"])
    ext = {e["job"] for e in events if e.get("event") == "extend"}
    for m in (1, 2):
        if int(jobs[m]["slurm_id"]) not in ext:
            fail("mate %d's time limit was not extended" % m)
    return events


def masks(out_dir, i):
    return [(e["t"], e.get("cpus"), e["event"], e.get("node")) for e in job_outputs(out_dir, i)
            if e["event"] in ("start", "mask")]


def check_masks(out_dir, guest_gone_at=None):
    """Each mate process: fewer than 8 CPUs while the guest runs (its first report
    may already be shrunk, when the guest was admitted before the mate's first
    malleability point), then 8 again."""
    for m in (1, 2):
        by_node = {}
        for t, cpus, ev, node in masks(out_dir, m):
            by_node.setdefault(node, []).append((t, cpus))
        if not by_node:
            fail("mate %d: no mask report (is the SPANK plugin loaded?)" % m)
        for node, seq in by_node.items():
            seq.sort()
            counts = [c for _, c in seq]
            if min(counts) >= 8 or counts[-1] != 8:
                fail("mate %d on %s: CPUs %s, expected fewer than 8, then 8" % (m, node, counts))
            if guest_gone_at is not None:
                back = [t for t, c in seq if c == 8 and t > guest_gone_at]
                if not back:
                    fail("mate %d on %s: no CPUs back after the guest was killed" % (m, node))
                delay = back[0] - guest_gone_at
                print("mate %d on %s: CPUs back %.3f s after the guest was killed" % (m, node, delay))
                if delay > 0.5:
                    fail("mate %d on %s: CPUs back only after %.3f s" % (m, node, delay))
    g = [c for _, c, ev, _ in masks(out_dir, 3) if ev == "start"]
    if not g or max(g) >= 8:
        fail("guest processes started with %s CPUs, expected the lent share" % g)


def live(src, tools, work, trace):
    out_dir = os.path.join(work, "replay")
    os.makedirs(out_dir, exist_ok=True)
    p = replay(tools, trace, out_dir, [])
    res = finish_replay(p, 170)
    jobs = read_csv(os.path.join(out_dir, "jobs.csv"))
    check_common(res, jobs, out_dir, res["daemon_log"], False)
    check_masks(out_dir)
    lat = res["start_latency_s"]
    tol = 2 * lat + 2
    sim = simulated(tools, trace, res["min_runtime"])
    for i, r in jobs.items():
        d = abs(float(r["live_start"]) - float(sim[i]["start"]))
        print("job %d: live start %s, ballast sched %s (|diff| %.1f s, tolerance %.1f s)"
              % (i, r["live_start"], sim[i]["start"], d, tol))
        if d > tol:
            fail("job %d starts %.1f s away from the simulator's start" % (i, d))
    print("live: avg slowdown %.3f (simulator %.3f), latency %.2f s"
          % (res["avg_slowdown"], res["simulator"]["avg_slowdown"], lat))


def check_refusals(tools, work):
    """The daemon starts only when it agrees with the plugin: the sandbox's
    plugstack.conf line sets no sharing_factor, so the plugin's default
    (0.5) is accepted and 0.25 refused, naming the plugin's value, before
    any log is written; a --partition the cluster lacks is refused too."""
    sd = os.path.join(tools, "ballast-slurm-sd")
    log = os.path.join(work, "refused.log")
    for extra, want_rc, want in ((["--sharing-factor", "0.5"], 0, None),
                                 (["--sharing-factor", "0.25"], 1,
                                  "differs from the SPANK plugin's sharing_factor=0.5"),
                                 (["--partition", "nope"], 1, "no partition 'nope'")):
        p = subprocess.run([sd, "--policy", "sd", "--polls", "1", "--log", log] + extra,
                           capture_output=True, text=True, timeout=60)
        if p.returncode != want_rc or (want and want not in p.stderr):
            fail("slurm-sd %s: exit %d, %r" % (" ".join(extra), p.returncode, p.stderr))
        if want and os.path.exists(log):
            fail("slurm-sd %s left a log behind" % " ".join(extra))
        if want is None:
            begin = [e for e in read_lines(log) if e.get("event") == "begin"]
            if not begin or begin[0].get("sharing_factor") != 0.5:
                fail("slurm-sd's begin line: %r" % begin)
            os.unlink(log)


def faults(src, tools, work, trace):
    out_dir = os.path.join(work, "replay")
    os.makedirs(out_dir, exist_ok=True)
    log = os.path.join(out_dir, "slurm-sd.log")
    daemon_cmd = [os.path.join(tools, "ballast-slurm-sd"), "--policy", "sd", "--core-demand",
                  "node", "--log", log]
    check_refusals(tools, work)
    procs = []
    try:
        d = subprocess.Popen(daemon_cmd)
        procs.append(d)
        # an impossible request: 5 nodes of 4
        p = subprocess.run(["sbatch", "--parsable", "--hold", "-N", "5", "--comment=sd:malleable",
                            "-o", "/dev/null", "--wrap", "true"], capture_output=True, text=True)
        if p.returncode != 0:
            fail("sbatch -N 5: " + p.stderr)
        impossible = int(p.stdout.strip().split(";")[0])
        r = replay(tools, trace, out_dir, ["--no-daemon", "--daemon-log", log])
        procs.append(r)
        # wait for the guest's start, then kill the daemon and restart it
        deadline = time.time() + 90
        while time.time() < deadline:
            if any(e.get("kind") == "guest" for e in read_lines(log)):
                break
            time.sleep(0.2)
        else:
            fail("no guest started within 90 s")
        d.send_signal(signal.SIGKILL)
        d.wait()
        time.sleep(2)
        d = subprocess.Popen(daemon_cmd)
        procs.append(d)
        # kill the guest's processes once they run
        gone_at = None
        deadline = time.time() + 30
        while time.time() < deadline and gone_at is None:
            pids = [e["pid"] for e in job_outputs(out_dir, 3) if e["event"] == "start"]
            if len(pids) == 4:
                time.sleep(1)
                # taken before the first kill: a mate may get its CPUs back
                # before this loaded process has sent the last one
                gone_at = time.time()
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            time.sleep(0.1)
        if gone_at is None:
            fail("the guest's four processes did not report within 30 s")
        # the impossible job: pending, reason in squeue and the daemon's log
        q = subprocess.run(["squeue", "-h", "-j", str(impossible), "-o", "%T %k"],
                           capture_output=True, text=True).stdout
        if "PENDING" not in q or "sd:pending=" not in q:
            fail("job %d: squeue says %r" % (impossible, q))
        if not any(e.get("event") == "pending" and e.get("job") == impossible
                   for e in read_lines(log)):
            fail("no pending event for job %d in the daemon's log" % impossible)
        res = finish_replay(r, 170)
        jobs = read_csv(os.path.join(out_dir, "jobs.csv"))
        events = check_common(res, jobs, out_dir, log, True)
        if not any(e.get("event") == "adopt" for e in events):
            fail("the restarted daemon adopted no running job")
        check_masks(out_dir, gone_at)
        subprocess.run(["scancel", str(impossible)])
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("live", "faults"):
        print(__doc__)
        return 2
    mode, src, tools, plugin = sys.argv[1:]
    if os.geteuid() != 0:
        skip("needs root (the sandbox runs SLURM's daemons)")
    for b in ("slurmctld-wlm", "slurmd-wlm", "munged", "sbatch", "squeue"):
        if not shutil.which(b) and not os.path.exists("/usr/sbin/" + b):
            skip("%s not installed (Debian slurm-wlm, munge)" % b)
    if not os.access(os.path.join(src, "slurm", "sandbox"), os.X_OK):
        skip("no slurm/sandbox")
    if not os.access(plugin, os.R_OK):
        fail("the SPANK plugin %s is not built" % plugin)
    for t in ("ballast-slurm-sd", "ballast-slurm-replay", "ballast-slurm-job", "ballast-sched"):
        if not os.access(os.path.join(tools, t), os.X_OK):
            skip("%s not built (needs libslurm-dev)" % t)
    trace = os.path.join(src, "slurm", "tests", "tiny-sd.swf")
    work = tempfile.mkdtemp(prefix="ballast-sd-%s-" % mode)
    box = Sandbox(src, work, plugin)
    try:
        box.start()
        (live if mode == "live" else faults)(src, tools, work, trace)
    finally:
        box.stop()
    # kept after a failure (fail() exits before this), for its logs
    shutil.rmtree(work, ignore_errors=True)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
