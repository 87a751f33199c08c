#!/usr/bin/env python3
"""bench/steal/uts-peers.sh's summary: RAW.csv (one row per run) -> OUT.csv
and OUT.md, one row per study, tree and rank count with each program's
median efficiency (each against its own sequential time), its runs, and the
load average (`uptime`, 1 min) seen after the runs.

uts-peers-table.py RAW.csv OUT.csv OUT.md
"""
import csv
import statistics
import sys

raw, out_csv, out_md = sys.argv[1:4]
runs = list(csv.DictReader(open(raw)))
groups = {}
for r in runs:
    groups.setdefault((r["study"], r["tree"], int(r["ranks"])), {}).setdefault(r["program"], []).append(r)


def eff(rows):
    """Median efficiency, the runs' figures and, when no run finished, the
    least upper bound the stopped ones give: a run the study stopped is
    'timeout', with the simulated clock read before the stop as its par_s
    (when gdb could read it), so its efficiency is below seq / (ranks x par_s)."""
    vals = [float(r["efficiency"]) for r in rows if r["efficiency"] not in ("", "timeout")]
    bounds = [float(r["seq_s"]) / (int(r["ranks"]) * float(r["par_s"]))
              for r in rows if r["efficiency"] == "timeout" and r["par_s"]]
    stopped = sum(r["efficiency"] == "timeout" for r in rows)
    med = statistics.median(vals) if vals else None
    bound = min(bounds) if bounds and not vals else None
    runs = " ".join(["%.3f" % v for v in vals] +
                    ["timeout"] * (stopped - len(bounds)) + ["stopped below %.3f" % b for b in bounds])
    return med, runs, bound


def fmt(x):
    return "n/a" if x is None else "%.3f" % x


cols = ["study", "tree", "ranks", "oversubscribed", "ballast_efficiency", "peer_efficiency",
        "peer_efficiency_below", "ratio", "ballast_runs", "peer_runs", "ballast_par_s", "peer_par_s", "load1"]
rows = []
for (study, tree, ranks), progs in sorted(groups.items(), key=lambda kv: (kv[0][0] != "mpi", kv[0])):
    b, bruns, _ = eff(progs.get("ballast", []))
    p, pruns, pbound = eff(progs.get("peer", []))
    cores = next((r["cores"] for rr in progs.values() for r in rr if r["cores"]), "")
    over = "yes" if study == "mpi" and cores and ranks > int(cores) else "no"
    # finished runs' parallel times; a stopped run's clock only says "more than"
    done = {k: [float(r["par_s"]) for r in v if r["par_s"] and r["efficiency"] != "timeout"]
            for k, v in progs.items()}
    par = {k: "%.4g" % statistics.median(t) for k, t in done.items() if t}
    for k, v in progs.items():
        clocks = [float(r["par_s"]) for r in v if r["par_s"] and r["efficiency"] == "timeout"]
        if k not in par and clocks:
            par[k] = "more than %.4g" % max(clocks)
    loads = sorted(float(r["load1"]) for v in progs.values() for r in v if r["load1"])
    load = "%.1f-%.1f" % (loads[0], loads[-1]) if loads else ""
    rows.append({"study": study, "tree": tree, "ranks": ranks, "oversubscribed": over,
                 "ballast_efficiency": fmt(b), "peer_efficiency": fmt(p),
                 "peer_efficiency_below": "%.3f" % pbound if pbound else "",
                 "ratio": "%.2f" % (b / p) if b is not None and p
                 else "above %.2f" % (b / pbound) if b is not None and pbound else "n/a",
                 "ballast_runs": bruns, "peer_runs": pruns,
                 "ballast_par_s": par.get("ballast", "n/a"),
                 "peer_par_s": par.get("peer", "n/a"), "load1": load})
with open(out_csv, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=cols)
    w.writeheader()
    w.writerows(rows)
with open(out_md, "w") as f:
    f.write("| study | tree | ranks | Ballast efficiency (runs) | peer efficiency (runs) | Ballast / peer | parallel time, Ballast / peer (s, median) | load (1 min) |\n")
    f.write("|---|---|---|---|---|---|---|---|\n")
    for r in rows:
        rk = "%d (oversubscribed)" % r["ranks"] if r["oversubscribed"] == "yes" else str(r["ranks"])
        peer = r["peer_efficiency"]
        if r["peer_efficiency_below"]:
            peer = "below " + r["peer_efficiency_below"]
        f.write("| %s | %s | %s | **%s** (%s) | **%s** (%s) | %s | %s / %s | %s |\n" % (
            "real MPI" if r["study"] == "mpi" else "SMPI", r["tree"], rk, r["ballast_efficiency"],
            r["ballast_runs"], peer, r["peer_runs"], r["ratio"], r["ballast_par_s"],
            r["peer_par_s"], r["load1"]))
print(open(out_md).read(), end="")
