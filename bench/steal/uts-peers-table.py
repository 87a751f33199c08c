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
    """Median efficiency and the runs' figures; a run the study stopped is 'timeout'."""
    vals = [float(r["efficiency"]) for r in rows if r["efficiency"] not in ("", "timeout")]
    stopped = sum(r["efficiency"] == "timeout" for r in rows)
    med = statistics.median(vals) if vals else None
    runs = " ".join(["%.3f" % v for v in vals] + ["timeout"] * stopped)
    return med, runs


def fmt(x):
    return "n/a" if x is None else "%.3f" % x


cols = ["study", "tree", "ranks", "oversubscribed", "ballast_efficiency", "peer_efficiency",
        "ratio", "ballast_runs", "peer_runs", "ballast_par_s", "peer_par_s", "load1"]
rows = []
for (study, tree, ranks), progs in sorted(groups.items(), key=lambda kv: (kv[0][0] != "mpi", kv[0])):
    b, bruns = eff(progs.get("ballast", []))
    p, pruns = eff(progs.get("peer", []))
    cores = next((r["cores"] for rr in progs.values() for r in rr if r["cores"]), "")
    over = "yes" if study == "mpi" and cores and ranks > int(cores) else "no"
    par = {k: statistics.median([float(r["par_s"]) for r in v if r["par_s"]]) if any(r["par_s"] for r in v) else None
           for k, v in progs.items()}
    loads = sorted(float(r["load1"]) for v in progs.values() for r in v if r["load1"])
    load = "%.1f-%.1f" % (loads[0], loads[-1]) if loads else ""
    rows.append({"study": study, "tree": tree, "ranks": ranks, "oversubscribed": over,
                 "ballast_efficiency": fmt(b), "peer_efficiency": fmt(p),
                 "ratio": "%.2f" % (b / p) if b is not None and p else "n/a",
                 "ballast_runs": bruns, "peer_runs": pruns,
                 "ballast_par_s": "%.4g" % par["ballast"] if par.get("ballast") else "n/a",
                 "peer_par_s": "%.4g" % par["peer"] if par.get("peer") else "n/a", "load1": load})
with open(out_csv, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=cols)
    w.writeheader()
    w.writerows(rows)
with open(out_md, "w") as f:
    f.write("| study | tree | ranks | Ballast efficiency (runs) | peer efficiency (runs) | Ballast / peer | parallel time, Ballast / peer (s, median) | load (1 min) |\n")
    f.write("|---|---|---|---|---|---|---|---|\n")
    for r in rows:
        rk = "%d (oversubscribed)" % r["ranks"] if r["oversubscribed"] == "yes" else str(r["ranks"])
        f.write("| %s | %s | %s | **%s** (%s) | **%s** (%s) | %s | %s / %s | %s |\n" % (
            "real MPI" if r["study"] == "mpi" else "SMPI", r["tree"], rk, r["ballast_efficiency"],
            r["ballast_runs"], r["peer_efficiency"], r["peer_runs"], r["ratio"], r["ballast_par_s"],
            r["peer_par_s"], r["load1"]))
print(open(out_md).read(), end="")
