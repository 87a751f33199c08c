#!/usr/bin/env python3
"""The bad-input table: run every command-line case of cases.txt against the
built tools and check what a user would see.

Each case says which tool runs with which arguments, the exit status it must
end with (docs/CONVENTIONS.md: 0 success, 1 run-time failure, 2 usage), a
regular expression the FIRST line of its stderr must match, and files that
must not exist afterwards (a failed run leaves nothing half-written). Every
case runs in its own process group with a timeout, so a hang is a failure
and nothing it started outlives it.

The table must keep up with the tools: the run fails when a flag that a
tool's --help lists has no case, and when an environment variable that the
library or a tool reads (getenv in src/ and tools/) is set by no case.

Usage: run.py --bin DIR --cases FILE [--src DIR] [--timeout S] [--only TOOL]
Prints one line per failure and closes with "N passed, M failed".
"""
import argparse
import gzip
import os
import random
import re
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

# A small valid trace: a header that fixes the machine and a few jobs.
TINY_SWF = """; MaxNodes: 8
; MaxProcs: 8
1 0 0 100 2 -1 -1 2 200 -1 1 1 1 -1 1 1 -1 -1
2 10 0 50 4 -1 -1 4 100 -1 1 1 1 -1 1 1 -1 -1
3 20 0 300 8 -1 -1 8 400 -1 1 2 1 -1 1 1 -1 -1
4 30 0 20 1 -1 -1 1 60 -1 1 2 1 -1 1 1 -1 -1
"""


def make_fixtures(d):
    """Input files the cases refer to as @D@/NAME."""
    def write(name, data, mode="w"):
        with open(os.path.join(os.fsencode(d), os.fsencode(name)), mode) as f:
            f.write(data)
    write("tiny.swf", TINY_SWF)
    with gzip.open(os.path.join(d, "tiny.swf.gz"), "wt") as f:
        f.write(TINY_SWF * 50)
    full = open(os.path.join(d, "tiny.swf.gz"), "rb").read()
    write("truncated.swf.gz", full[: len(full) // 2], "wb")
    write("empty.swf", "")
    write("comments.swf", "; MaxNodes: 8\n; MaxProcs: 8\n; nothing else\n")
    write("garbage.swf", bytes(range(256)) * 8, "wb")
    write("image.png", b"\x89PNG\r\n\x1a\n" + bytes(200), "wb")
    # 2 MB of bytes that look random (as /dev/urandom), gzip'd
    with gzip.open(os.path.join(d, "garbage.swf.gz"), "wb") as f:
        f.write(random.Random(26).randbytes(2 << 20))
    write("nan.swf", "; MaxNodes: 8\n; MaxProcs: 8\n1 0 0 nan 2 -1 -1 2 200 -1 1 1 1 -1 1 1 -1 -1\n")
    write("huge.swf", "; MaxNodes: 8\n; MaxProcs: 8\n1 0 0 1234567890123456789 2 -1 -1 2 200 -1 1 1 1 -1 1 1 -1 -1\n")
    # 18 digits, still 9e17 or more: "too large" as 9e17 is (swf.h)
    write("big18.swf", "; MaxNodes: 8\n; MaxProcs: 8\n1 0 0 999999999999999999 2 -1 -1 2 200 -1 1 1 1 -1 1 1 -1 -1\n")
    write("negbig18.swf", "; MaxNodes: 8\n; MaxProcs: 8\n1 0 0 -999999999999999999 2 -1 -1 2 200 -1 1 1 1 -1 1 1 -1 -1\n")
    # a line past BAL_SWF_MAX_LINE (65536 bytes), then a valid job
    write("longline.swf", "; MaxNodes: 8\n; MaxProcs: 8\n" + "1" * 70000 + "\n" + TINY_SWF.split("\n", 2)[2])
    # machines past the simulator's limit of 2^31 - 1 nodes or cores per node
    job = "1 0 0 100 2 -1 -1 2 200 -1 1 1 1 -1 1 1 -1 -1\n"
    write("bignodes.swf", "; MaxNodes: 2147483648\n; MaxProcs: 2147483648\n" + job)
    write("bigcores.swf", "; MaxNodes: 1\n; MaxProcs: 2147483648\n" + job)
    write("short.swf", "; MaxNodes: 8\n; MaxProcs: 8\n1 0 0 100 2\n")
    write("noheader.swf", TINY_SWF.split("\n", 2)[2])
    write(b"tr\xffce.swf", TINY_SWF)  # a file name that is not UTF-8
    os.mkdir(os.path.join(d, "dir.swf"))
    # a --csv file of another version's columns (simulate-*: refused, kept)
    write("old-columns.csv", "ranks,cores_per_node,latency,bandwidth\n4,28,1e-06,1.25e+10\n")
    partition_fixtures(write)


def partition_fixtures(write):
    """Inputs of `ballast partition` (docs/partition.md, "File formats"):
    a 4 x 3 grid in each encoding, 3-D and point files, assignments, and
    one broken copy per error the readers report."""
    rows = ["1,2,3,4", "5,6,7,8", "9,10,11,12"]
    write("grid.csv", "ballast-grid 4 3 csv\n" + "\n".join(rows) + "\n")
    write("grid3.csv", "ballast-grid 4 3 2 csv\n" + "\n".join(rows * 2) + "\n")
    f64 = struct.pack("<12d", *range(1, 13))
    write("grid.f64", b"ballast-grid 4 3 f64le\n" + f64, "wb")
    write("grid.f32", b"ballast-grid 4 3 f32le\n" + struct.pack("<12f", *range(1, 13)), "wb")
    write("short.f64", b"ballast-grid 4 3 f64le\n" + f64[:-8], "wb")
    write("long.f64", b"ballast-grid 4 3 f64le\n" + f64 + b"\0", "wb")
    # cell 5 negative: byte 23 (the header) + 5 * 8 = 63
    write("neg.f64", b"ballast-grid 4 3 f64le\n" + struct.pack("<12d", *[1, 1, 1, 1, 1, -2, 1, 1, 1, 1, 1, 1]), "wb")
    write("nan.f32", b"ballast-grid 4 3 f32le\n" + struct.pack("<12f", *([1] * 11 + [float("nan")])), "wb")
    write("enc.grid", "ballast-grid 4 3 f16le\n")
    write("header.grid", "ballast-grid 4\n")
    write("zero.grid", "ballast-grid 0 3 csv\n")
    write("huge.grid", "ballast-grid 1073741824 2 csv\n")
    write("rows.csv", "ballast-grid 4 3 csv\n" + "\n".join(rows[:2]) + "\n")
    write("extra.csv", "ballast-grid 4 3 csv\n" + "\n".join(rows + ["1,1,1,1"]) + "\n")
    write("cols.csv", "ballast-grid 4 3 csv\n1,2,3,4\n5,6,7\n9,10,11,12\n")
    write("negcell.csv", "ballast-grid 4 3 csv\n1,2,3,4\n5,6,-7,8\n9,10,11,12\n")
    write("nancell.csv", "ballast-grid 4 3 csv\n1,2,3,4\n5,6,7,8\n9,nan,11,12\n")
    write("points.csv", "# x,y,w\n" + "".join(f"{i % 5}.5,{i // 5}.25,{1 + i % 3}\n" for i in range(20)))
    write("points3.csv", "".join(f"{i % 3},{i // 3 % 3},{i // 9},1\n" for i in range(27)))
    write("mixed.csv", "0,0,1\n1,1,1\n2,2,2,1\n")
    write("fields.csv", "0,0,1\n1,1\n")
    write("negw.csv", "0,0,1\n1,1,-1\n")
    write("nanx.csv", "0,0,1\nnan,1,1\n")
    write("nopoints.csv", "# nothing but a comment\n")
    write("grid.parts", "ballast-parts 12 2\n" + "0\n" * 6 + "1\n" * 6)
    write("count.parts", "ballast-parts 11 2\n" + "0\n" * 11)
    write("range.parts", "ballast-parts 12 2\n" + "0\n" * 11 + "7\n")
    write("cut.parts", "ballast-parts 12 2\n" + "0\n" * 10)
    write("noheader.parts", "0\n" * 12)


# NAME=VALUE before a case's arguments: an environment variable for that case.
ENV_WORD = re.compile(r"([A-Z_][A-Z0-9_]*)=(.*)", re.S)


def parse_cases(path):
    """Lines: TOOL STATUS /REGEX/ [NAME=VALUE ...] ARGS... [!absent=PATH ...];
    # comments. The pattern runs from the first '/' to the next '/' that ends
    a word, so it may hold spaces and backslashes as written; the arguments
    are split as a POSIX shell would (quotes, backslashes). Leading NAME=VALUE
    words (upper-case names, as a shell's assignments) set the case's
    environment."""
    cases = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            m = re.fullmatch(r"(\S+)\s+([0-9]+)\s+/(.*?)/(?:\s+(.*))?", line)
            if not m:
                sys.exit(f"{path}:{n}: expected TOOL STATUS /REGEX/ ARGS...")
            try:
                rx = re.compile(m.group(3))
                words = shlex.split(m.group(4) or "")
            except (re.error, ValueError) as e:
                sys.exit(f"{path}:{n}: {e}")
            env = {}
            while words and ENV_WORD.fullmatch(words[0]):
                name, value = ENV_WORD.fullmatch(words.pop(0)).groups()
                env[name] = value
            args, absent = [], []
            for w in words:
                (absent.append(w[len("!absent="):]) if w.startswith("!absent=") else args.append(w))
            cases.append({"line": n, "tool": m.group(1), "status": int(m.group(2)),
                          "regex": rx, "env": env, "args": args, "absent": absent})
    return cases


def expand(word, fixtures, work):
    """@D@: the fixtures; @T@: the case's own empty working directory;
    @BADNAME@: the fixture whose name is not valid UTF-8."""
    b = os.fsencode(word.replace("@D@", fixtures).replace("@T@", work))
    return b.replace(b"@BADNAME@", os.path.join(os.fsencode(fixtures), b"tr\xffce.swf"))


def run_case(c, bindir, fixtures, timeout):
    work = tempfile.mkdtemp(prefix="case-")
    try:
        argv = [os.path.join(os.fsencode(bindir), os.fsencode(program(c["tool"])))]
        argv += [expand(a, fixtures, work) for a in c["args"]]
        start = time.monotonic()
        # TMPDIR in the case's own directory: whatever temporary files the
        # tool makes (or keeps) are removed with it.
        env = dict(os.environ, TMPDIR=work)
        env.update({k: expand(v, fixtures, work) for k, v in c["env"].items()})
        p = subprocess.Popen(argv, cwd=work, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True, env=env)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)  # the group this case created, nothing else
            p.communicate()
            return f"timed out after {timeout} s"
        finally:
            try:
                os.killpg(p.pid, signal.SIGKILL)  # whatever the tool left running
            except ProcessLookupError:
                pass
        problems = []
        if p.returncode != c["status"]:
            problems.append(f"exit {p.returncode}, expected {c['status']}")
        first = err.decode("utf-8", "replace").split("\n", 1)[0]
        if not c["regex"].search(first):
            problems.append(f"first stderr line {first[:160]!r} does not match /{c['regex'].pattern}/")
        for a in c["absent"]:
            if os.path.lexists(expand(a, fixtures, work)):
                problems.append(f"{a} exists afterwards")
        if len(err) > 8192:
            problems.append(f"{len(err)} bytes on stderr")
        if time.monotonic() - start > timeout:
            problems.append("too slow")
        return "; ".join(problems)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def program(tool):
    """The file a case runs: the front end itself, or ballast-TOOL."""
    return "ballast" if tool == "ballast" else "ballast-" + tool


def built_tools(bindir):
    """Every program of the build: the front end and each ballast-TOOL."""
    names = [n for n in os.listdir(bindir)
             if (n == "ballast" or n.startswith("ballast-")) and
             os.path.isfile(os.path.join(bindir, n)) and os.access(os.path.join(bindir, n), os.X_OK)]
    return {"ballast" if n == "ballast" else n[len("ballast-"):] for n in names}


def env_read(src):
    """Every environment variable the library and the tools read, as
    {name: first file reading it}: getenv("NAME"), or getenv(MACRO) with
    `#define MACRO "NAME"` (in include/, src/ or tools/), in src/ and tools/.
    A getenv of anything else is returned under its text with file None:
    the rule cannot check it, and says so."""
    defines, uses = {}, {}
    for top in ("include", "src", "tools"):
        for root, _, files in os.walk(os.path.join(src, top)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(root, f)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                for m in re.finditer(r'#\s*define\s+(\w+)\s+"([^"]+)"', text):
                    defines[m.group(1)] = m.group(2)
                if top == "include":
                    continue
                for m in re.finditer(r'(?<![\w.>])getenv\s*\(\s*(?:"([^"]+)"|([^)]*?))\s*\)', text):
                    uses.setdefault(m.group(1) or m.group(2).strip(), os.path.relpath(path, src))
    out = {}
    for word, path in uses.items():
        if re.fullmatch(r"[A-Z_][A-Z0-9_]*", word) and word not in defines:
            out.setdefault(word, path)  # a literal name
        elif word in defines:
            out.setdefault(defines[word], path)
        else:
            out[f"getenv({word}) in {path}"] = None
    return out


def help_flags(bindir, tool):
    out = subprocess.run([os.path.join(bindir, program(tool)), "--help"], capture_output=True,
                         timeout=30).stdout.decode("utf-8", "replace")
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True, help="directory holding the ballast-* programs")
    ap.add_argument("--cases", required=True)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--only", help="run only this tool's cases")
    ap.add_argument("--src", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."),
                    help="the source tree whose getenv calls need cases (default: this checkout)")
    o = ap.parse_args()
    o.bin = os.path.abspath(o.bin)
    cases = parse_cases(o.cases)
    tools = sorted({c["tool"] for c in cases})
    if o.only:
        cases = [c for c in cases if c["tool"] == o.only]
    # Huge allocations must fail cleanly under ASan too.
    os.environ["ASAN_OPTIONS"] = os.environ.get("ASAN_OPTIONS", "") + ":allocator_may_return_null=1"
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    fixtures = tempfile.mkdtemp(prefix="badinput-")
    passed = failed = skipped = 0
    built = built_tools(o.bin)
    try:
        make_fixtures(fixtures)
        for c in cases:
            if c["tool"] not in built:  # not in this build (e.g. no MPI, no SimGrid)
                skipped += 1
                continue
            problem = run_case(c, o.bin, fixtures, o.timeout)
            if problem:
                failed += 1
                print(f"{o.cases}:{c['line']}: {c['tool']} {' '.join(c['args'])}: {problem}")
            else:
                passed += 1
        # A program of the build with no case at all is a table that fell
        # behind the tools, like a flag without a case.
        for tool in sorted(built - set(tools) - ({""} if not o.only else built - {o.only})):
            failed += 1
            print(f"{o.cases}: ballast-{tool} is built but has no case")
        for tool in sorted(built & ({o.only} if o.only else set(tools))):
            used = {a.split("=", 1)[0] for c in cases if c["tool"] == tool for a in c["args"]}
            missing = sorted(help_flags(o.bin, tool) - used)
            if missing:
                failed += 1
                print(f"{o.cases}: {tool}: no case for {', '.join(missing)}")
            else:
                passed += 1
        # Every environment variable read gets a case too (all tools' cases
        # count: a variable of the library reaches every tool).
        if not o.only:
            set_by_cases = {k for c in cases for k in c["env"]}
            gaps = 0
            for name, path in sorted(env_read(o.src).items()):
                if path is None:
                    gaps += 1
                    print(f"{o.cases}: {name}: not a variable name the rule can check; "
                          "use a string or a #define'd one")
                elif name not in set_by_cases:
                    gaps += 1
                    print(f"{o.cases}: no case sets environment variable {name} (read in {path})")
            failed += gaps
            passed += gaps == 0
    finally:
        shutil.rmtree(fixtures, ignore_errors=True)
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
