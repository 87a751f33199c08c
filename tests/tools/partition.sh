#!/bin/bash
# `ballast partition` end to end, its figures recomputed from its own
# outputs: for every method, a 2-D grid (CSV) into 7 parts (not a power of
# two) must give an assignment with one entry per cell and every part
# used, and its --json imbalance, cut faces and neighbours must equal a
# recomputation from that assignment and the weights; the same grid as raw
# f64le gives the same assignment; --from its own assignment reports the
# items that differ between the two files; 3-D grids and points (halo
# recomputed by brute force over all pairs) likewise; --plot makes a PNG;
# a grid whose size disagrees with its header writes nothing. Files live
# in a temporary directory removed on exit.
# Usage: partition.sh PATH/TO/ballast-partition  (exit 77: no python3)
set -u
tool=$1
command -v python3 >/dev/null || { echo "SKIP: needs python3"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}

# Inputs: a 60x40 grid with a hotspot (CSV and f64le), a 12x10x6 grid,
# 400 2-D and 300 3-D points, all from a fixed seed.
python3 - "$tmp" <<'PY'
import math, random, struct, sys
d = sys.argv[1]
r = random.Random(28)
nx, ny = 60, 40
w = [1 + 30 * math.exp(-((x - 40) ** 2 + (y - 12) ** 2) / 50) + r.random() for y in range(ny) for x in range(nx)]
with open(f"{d}/g2.csv", "w") as f:
    f.write(f"ballast-grid {nx} {ny} csv\n")
    for y in range(ny):
        f.write(",".join(repr(v) for v in w[y * nx:(y + 1) * nx]) + "\n")
with open(f"{d}/g2.f64", "wb") as f:
    f.write(f"ballast-grid {nx} {ny} f64le\n".encode() + struct.pack(f"<{nx * ny}d", *w))
w3 = [0.5 + r.random() for _ in range(12 * 10 * 6)]
with open(f"{d}/g3.csv", "w") as f:
    f.write("ballast-grid 12 10 6 csv\n")
    for row in range(10 * 6):
        f.write(",".join(repr(v) for v in w3[row * 12:(row + 1) * 12]) + "\n")
with open(f"{d}/p2.csv", "w") as f:
    f.write("# x,y,w\n")
    for _ in range(400):
        f.write(f"{r.gauss(0, 1)!r},{r.gauss(0, 2)!r},{r.choice([1, 2, 3])}\n")
with open(f"{d}/p3.csv", "w") as f:
    for _ in range(300):
        f.write(f"{r.random()!r},{r.random()!r},{r.random()!r},{r.random()!r}\n")
# 60x40 cells as f64le with one cell missing
with open(f"{d}/short.f64", "wb") as f:
    f.write(f"ballast-grid {nx} {ny} f64le\n".encode() + struct.pack(f"<{nx * ny - 1}d", *w[1:]))
PY

# check.py INPUT PARTS JSON [FROM]: recompute the figures of the assignment
# in JSON's "out" file; exit 1 after printing what differs.
cat >"$tmp/check.py" <<'PY'
import json, math, sys
inp, parts, js = sys.argv[1], int(sys.argv[2]), json.load(open(sys.argv[3]))
frm = sys.argv[4] if len(sys.argv) > 4 else None
bad = []
def check(name, got, want, tol=1e-9):
    if got is None or want is None or abs(got - want) > tol * max(1.0, abs(want)):
        bad.append(f"{name}: json {got}, recomputed {want}")
lines = open(js["out"]).read().split("\n")
head, owners = lines[0].split(), [int(v) for v in lines[1:] if v != ""]
items = js["items"]
if head != ["ballast-parts", str(items), str(parts)]: bad.append(f"header {head}")
if len(owners) != items: bad.append(f"{len(owners)} entries for {items} items")
if sorted(set(owners)) != list(range(parts)): bad.append(f"parts used: {sorted(set(owners))}")
if js["parts"] != parts or js["empty_parts"] != 0: bad.append("parts/empty_parts")
text = open(inp, "rb").read()
if js["kind"] == "grid":
    n = js["cells"] + [1] * (3 - len(js["cells"]))
    body = text.split(b"\n", 1)[1].decode()
    w = [float(v) for row in body.split("\n") if row for v in row.split(",")]
    pairs = []
    for z in range(n[2]):
        for y in range(n[1]):
            for x in range(n[0]):
                i = (z * n[1] + y) * n[0] + x
                if x + 1 < n[0]: pairs.append((i, i + 1))
                if y + 1 < n[1]: pairs.append((i, i + n[0]))
                if z + 1 < n[2]: pairs.append((i, i + n[0] * n[1]))
else:
    pts = [[float(v) for v in l.split(",")] for l in text.decode().split("\n") if l and l[0] != "#"]
    w = [p[-1] for p in pts]
    c = [p[:-1] for p in pts]
    r2 = js["cutoff"] ** 2
    pairs = [(i, j) for i in range(len(c)) for j in range(i + 1, len(c))
             if sum((a - b) ** 2 for a, b in zip(c[i], c[j])) <= r2]
load = [0.0] * parts
for i, p in enumerate(owners): load[p] += w[i]
check("imbalance", js["imbalance"], max(load) / (sum(load) / parts))
nb = [set() for _ in range(parts)]
cut, halo_pts = 0, set()
for i, j in pairs:
    if owners[i] != owners[j]:
        cut += 1
        halo_pts.update((i, j))
        nb[owners[i]].add(owners[j]); nb[owners[j]].add(owners[i])
check("halo", js["halo"], cut if js["kind"] == "grid" else len(halo_pts))
check("neighbors_max", js["neighbors_max"], max(len(s) for s in nb))
check("neighbors_avg", js["neighbors_avg"], sum(len(s) for s in nb) / parts)
if frm:
    old = [int(v) for v in open(frm).read().split("\n")[1:] if v != ""]
    moved = [i for i in range(items) if old[i] != owners[i]]
    check("moved_items", js["moved_items"], len(moved))
    check("moved_weight", js["moved_weight"], sum(w[i] for i in moved))
elif js["moved_items"] is not None: bad.append("moved_items without --from")
for b in bad: print(f"{inp} {js['method']}: {b}")
sys.exit(1 if bad else 0)
PY

# the methods as --help lists them (from bal_partition_method_name())
methods=$("$tool" --help | tr -s ' \n' ' ' | sed -n 's/.*partitioning method: \(.*\) --parts .*/\1/p' |
  sed 's/(default)//' | tr -d ',')
[ -n "$methods" ] || { echo "FAIL: no methods in --help"; exit 1; }
for m in $methods; do
  run="$tool --method $m --parts 7"
  $run --out "$tmp/$m.parts" --json "$tmp/g2.csv" >"$tmp/$m.json" 2>"$tmp/err" ||
    { fail "$m g2.csv: $(cat "$tmp/err")"; continue; }
  python3 "$tmp/check.py" "$tmp/g2.csv" 7 "$tmp/$m.json" || fail "$m: figures of g2.csv"
  $run --out "$tmp/$m.raw.parts" --json "$tmp/g2.f64" >/dev/null 2>"$tmp/err" || fail "$m g2.f64: $(cat "$tmp/err")"
  cmp -s "$tmp/$m.parts" "$tmp/$m.raw.parts" || fail "$m: CSV and f64le grids partitioned differently"
  $run --from "$tmp/$m.parts" --out "$tmp/$m.again" --json "$tmp/g2.csv" >"$tmp/$m.from.json" 2>"$tmp/err" ||
    fail "$m --from: $(cat "$tmp/err")"
  python3 "$tmp/check.py" "$tmp/g2.csv" 7 "$tmp/$m.from.json" "$tmp/$m.parts" || fail "$m: --from figures"
  # the same weights from its own assignment: every method is deterministic
  # and REMAP keeps the labels, so nothing moves
  python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["moved_items"] != 0)' \
    "$tmp/$m.from.json" || fail "$m: items moved from its own assignment"
  # 12 parts of a 3-D grid, and of 2-D and 3-D points
  $tool --method $m --parts 12 --out "$tmp/$m.g3" --json "$tmp/g3.csv" >"$tmp/$m.g3.json" 2>"$tmp/err" &&
    python3 "$tmp/check.py" "$tmp/g3.csv" 12 "$tmp/$m.g3.json" || fail "$m: 3-D grid $(cat "$tmp/err")"
  $tool --method $m --parts 5 --out "$tmp/$m.p2" --json "$tmp/p2.csv" >"$tmp/$m.p2.json" 2>"$tmp/err" &&
    python3 "$tmp/check.py" "$tmp/p2.csv" 5 "$tmp/$m.p2.json" || fail "$m: 2-D points $(cat "$tmp/err")"
  $tool --method $m --parts 6 --cutoff 0.2 --out "$tmp/$m.p3" --json "$tmp/p3.csv" >"$tmp/$m.p3.json" 2>"$tmp/err" &&
    python3 "$tmp/check.py" "$tmp/p3.csv" 6 "$tmp/$m.p3.json" || fail "$m: 3-D points $(cat "$tmp/err")"
done

# The process grid of --grid-dims is the one used: 7 = 7x1 gives slabs
# along x, so every part's cut faces are vertical and it has at most 2
# neighbours.
$tool --method tensor --parts 7 --grid-dims 7x1 --out "$tmp/t71.parts" --json "$tmp/g2.csv" >"$tmp/t71.json" 2>"$tmp/err" ||
  fail "--grid-dims 7x1: $(cat "$tmp/err")"
python3 "$tmp/check.py" "$tmp/g2.csv" 7 "$tmp/t71.json" || fail "--grid-dims 7x1: figures"
python3 - "$tmp/t71.json" <<'PY' || fail "--grid-dims 7x1 did not give slabs"
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if j["neighbors_max"] <= 2 and j["halo"] == 6 * 40 and j["grid_dims"] == [7, 1] else 1)
PY

if command -v gnuplot >/dev/null; then
  $tool --parts 4 --plot "$tmp/g2.png" "$tmp/g2.csv" >/dev/null 2>"$tmp/err" || fail "--plot 2-D: $(cat "$tmp/err")"
  $tool --parts 4 --plot "$tmp/g3.png" "$tmp/g3.csv" >/dev/null 2>"$tmp/err" || fail "--plot 3-D: $(cat "$tmp/err")"
  $tool --parts 4 --plot "$tmp/p2.png" "$tmp/p2.csv" >/dev/null 2>"$tmp/err" || fail "--plot points: $(cat "$tmp/err")"
  for p in g2 g3 p2; do
    [ "$(head -c 4 "$tmp/$p.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "$p.png is not a PNG"
  done
fi

# A grid shorter than its header: an error naming the file, and no --out.
if $tool --parts 2 --out "$tmp/none.parts" "$tmp/short.f64" >/dev/null 2>"$tmp/err"; then
  fail "short.f64 accepted"
fi
grep -q "short.f64: the header says 2400 cells" "$tmp/err" || fail "short.f64: $(cat "$tmp/err")"
[ -e "$tmp/none.parts" ] && fail "short.f64: --out written"

[ "$fails" -eq 0 ] && echo "ok" || exit 1
