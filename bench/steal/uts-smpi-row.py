#!/usr/bin/env python3
"""One `ballast simulate-uts --json` run and its /usr/bin/time -v output.

uts-smpi-row.py RUN.json RUN.time   prints one line (and fails on a count that
                                     differs from the published one)
uts-smpi-row.py --csv RUN.json ...  prints the CSV of the runs (RUN.time
                                     beside each RUN.json)
"""
import json
import os
import re
import sys

PUBLISHED = {  # (type, b0, root seed) -> nodes, leaves, depth [Olivier 2006]
    ("geometric", 4.0, 29): (102181082, 81746377, 13),
    ("binomial", 2000.0, 7): (111345631, 89076904, 17844),
}
COLS = ["study", "ranks", "policy", "type", "branching", "nodes", "leaves", "max_depth",
        "nodes_per_rank", "node_cost_s", "work_per_rank_s", "slice_s", "check_every", "poll_interval_s", "backoff_max_s", "time_s",
        "efficiency", "steal_attempts", "thefts", "tasks_spawned", "messages",
        "termination_waves", "wall_s", "max_rss_mb", "peak_pss_mb"]


def timev(path):
    t = open(path).read()
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
    w = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", t).group(1)
    s = 0.0
    for part in w.split(":"):
        s = 60 * s + float(part)
    return s, rss / 1024.0


def row(jpath):
    d = json.load(open(jpath))
    u = d["uts"]
    if not d["ok"] or u is None:
        sys.exit(f"{jpath}: the simulation failed")
    key = (u["type"], float(u["branching"]), int(u["root_seed"]))
    got = (u["nodes"], u["leaves"], u["max_depth"])
    if key in PUBLISHED and PUBLISHED[key] != got:
        sys.exit(f"{jpath}: counted {got}, published {PUBLISHED[key]}")
    wall, rss = timev(jpath[:-5] + ".time")
    p = d["platform"]["ranks"]
    s = u["steal"]
    return {"study": os.path.basename(jpath).split("-")[0], "ranks": p, "policy": u["policy"],
            "type": u["type"], "branching": u["branching"], "nodes": u["nodes"],
            "leaves": u["leaves"], "max_depth": u["max_depth"],
            "nodes_per_rank": round(u["nodes"] / p), "node_cost_s": u["node_cost_s"],
            "work_per_rank_s": round(u["work_per_rank_s"], 4), "slice_s": u["slice_s"], "check_every": u["check_every"], "poll_interval_s": u.get("poll_interval_s", 1e-4),
            "backoff_max_s": u.get("backoff_max_s", 0.002),
            "time_s": round(u["time_s"], 5), "efficiency": round(u["efficiency"], 4),
            "steal_attempts": s["steal_attempts"], "thefts": s["thefts"],
            "tasks_spawned": s["tasks_spawned"], "messages": s["messages"],
            "termination_waves": s["termination_waves"], "wall_s": round(wall, 1),
            "max_rss_mb": round(rss), "peak_pss_mb": round(d["simulation"]["peak_mb"])}


if sys.argv[1] == "--csv":
    print(",".join(COLS))
    rows = [row(j) for j in sys.argv[2:]]
    rows.sort(key=lambda r: (r["study"], r["policy"], r["slice_s"] > 1.5e-5, r["backoff_max_s"], r["poll_interval_s"], r["ranks"]))
    for r in rows:
        print(",".join(str(r[c]) for c in COLS))
else:
    r = row(sys.argv[1])
    print(" ".join(f"{c}={r[c]}" for c in COLS))
