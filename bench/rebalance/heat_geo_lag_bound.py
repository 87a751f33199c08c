#!/usr/bin/env python3
"""What any balancer that acts on measured costs can reach on heat_geo.

examples/heat_geo moves a heavy disc across the grid; a balancer sees the
costs of a step only after it ran, so the partition a step runs on was
computed from an older step's costs. This program computes, for the
example's cost field (the same rule as examples/heat_geo/cells.c,
cell_cost()), the efficiency (sum over steps of the average part load over
the largest) of an oracle that partitions each step's exact costs with
`ballast partition` and runs that partition LAG steps later, with a new
partition every PERIOD steps: the bound for a balancer whose decisions
are LAG steps behind and come every PERIOD steps. LAG 0 is the partitioner
alone (its imbalance on the field it was given).

Usage: heat_geo_lag_bound.py BALLAST P [--nx 512 --ny 384 --radius 64
       --heavy 8 --steps 200 --method rcb --lags 0,1,2 --period 1 --every 1]
  BALLAST   the `ballast` program (build/tools/ballast)
  --every K partition only every K-th step of the run (faster; the bound
            is then over those steps)
Prints one line per lag: lag, efficiency (sum avg / sum max), worst step.
"""
import argparse
import array
import os
import subprocess
import sys
import tempfile


def cell_costs(nx, ny, radius, heavy, steps, step):
    """The example's cost of every cell at a step, x fastest."""
    travel = nx - 2.0 * radius
    cx = radius + travel * step / (steps - 1 if steps > 1 else 1)
    cy = 0.5 * ny
    r2 = radius * radius
    out = array.array("d", [1.0]) * (nx * ny)
    y0, y1 = max(0, int(cy - radius) - 1), min(ny, int(cy + radius) + 2)
    x0, x1 = max(0, int(cx - radius) - 1), min(nx, int(cx + radius) + 2)
    for y in range(y0, y1):
        dy = y + 0.5 - cy
        for x in range(x0, x1):
            dx = x + 0.5 - cx
            if dx * dx + dy * dy <= r2:
                out[y * nx + x] = heavy
    return out


def partition(ballast, costs, nx, ny, parts, method, tmp):
    grid = os.path.join(tmp, "field.f64")
    with open(grid, "wb") as f:
        f.write(b"ballast-grid %d %d f64le\n" % (nx, ny))
        if sys.byteorder != "little":
            costs = array.array("d", costs)
            costs.byteswap()
        f.write(costs.tobytes())
    out = os.path.join(tmp, "parts.txt")
    try:
        subprocess.run([ballast, "partition", "--method", method, "--parts", str(parts), "--out",
                        out, grid], check=True, stdout=subprocess.DEVNULL)
    except OSError as e:
        sys.exit(f"heat_geo_lag_bound: {ballast}: {e.strerror}")
    except subprocess.CalledProcessError as e:
        sys.exit(f"heat_geo_lag_bound: `{ballast} partition` failed (exit {e.returncode})")
    with open(out) as f:
        head = f.readline().split()
        owner = [int(line) for line in f]
    if len(head) != 3 or head[0] != "ballast-parts" or len(owner) != nx * ny:
        sys.exit(f"{out}: not an assignment of {nx * ny} items")
    return owner


def loads(owner, costs, parts):
    load = [0.0] * parts
    for o, c in zip(owner, costs):
        load[o] += c
    return sum(load) / parts, max(load)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ballast")
    ap.add_argument("parts", type=int)
    ap.add_argument("--nx", type=int, default=512)
    ap.add_argument("--ny", type=int, default=384)
    ap.add_argument("--radius", type=float, default=64)
    ap.add_argument("--heavy", type=float, default=8)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--method", default="rcb")
    ap.add_argument("--lags", default="0,1,2")
    ap.add_argument("--period", type=int, default=1)
    ap.add_argument("--every", type=int, default=1)
    a = ap.parse_args()
    lags = [int(v) for v in a.lags.split(",")]
    if a.parts < 1 or a.period < 1 or a.every < 1 or min(lags) < 0:
        ap.error("parts, --period and --every must be >= 1, lags >= 0")
    if a.nx < 1 or a.ny < 1 or a.steps < 1 or not a.radius > 0 or not a.heavy >= 0:
        ap.error("--nx, --ny and --steps must be >= 1, --radius > 0, --heavy >= 0")
    if a.parts > a.nx * a.ny:
        ap.error(f"{a.parts} parts for {a.nx * a.ny} cells")
    field = lambda s: cell_costs(a.nx, a.ny, a.radius, a.heavy, a.steps, s)
    sums = {lag: [0.0, 0.0, 1.0] for lag in lags}  # sum avg, sum max, worst avg/max
    with tempfile.TemporaryDirectory() as tmp:
        made = {}  # partitions by the step whose costs made them
        oldest = max(lags) + a.period  # no step uses a partition older than this
        for s in range(0, a.steps, a.every):
            now = field(s)
            for old in [k for k in made if k < s - oldest]:
                del made[old]
            for lag in lags:
                # The partition step s runs on: made from the costs of the
                # last decision step at or before s - lag.
                src = s - lag
                if src < 0:
                    continue
                src -= src % a.period
                if src not in made:
                    costs = now if src == s else field(src)
                    made[src] = partition(a.ballast, costs, a.nx, a.ny, a.parts, a.method, tmp)
                avg, mx = loads(made[src], now, a.parts)
                t = sums[lag]
                t[0] += avg
                t[1] += mx
                t[2] = min(t[2], avg / mx)
    print(f"# heat_geo cost field {a.nx} x {a.ny}, radius {a.radius:g}, heavy {a.heavy:g}, "
          f"{a.steps} steps, every {a.every}; {a.parts} parts by {a.method}, a partition every "
          f"{a.period} step(s)")
    print("lag efficiency worst_step")
    for lag in lags:
        t = sums[lag]
        print(f"{lag} {t[0] / t[1]:.4f} {t[2]:.4f}")


if __name__ == "__main__":
    main()
