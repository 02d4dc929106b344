#!/usr/bin/env python3
"""Run suites or tests N times and count each test's failures.

    bash scripts/test.sh --repeat N [--build DIR] [--stop] [--keep] SUITE|TEST...

Builds DIR (default build/, the development tree, through
scripts/build.sh), then runs every named test (a suite names each of its
tests) N times, one `meson test` per run, and prints after each run what
failed and at the end how many of the N runs of each test failed.  Each
run keeps meson's log as DIR/meson-logs/repeat-RUN.txt (and -e2e.txt);
within a run meson runs tests side by side (MESON_TESTTHREADS=1: not).
The tests of the suite e2e own libvirtd: each run of them holds the e2e
lock (RS_E2E_LOCK, default /tmp/ringside-e2e.lock; empty for none: do not
run this under flock on the same file).  --stop ends after the first run
with a failure (meson's own --repeat stops there too, but runs the
repetitions side by side and counts nothing); --keep keeps every run's
work directories (RS_KEEP_WORK=1, RS_E2E_KEEP=1; a failed e2e run keeps
its own anyway).  Exit status 0 when no run of any test failed.
"""
import fcntl
import json
import os
import subprocess
import sys

BAD = ("FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS")


def usage(msg=None):
    if msg:
        print(f"test.sh --repeat: {msg}", file=sys.stderr)
    print("usage: bash scripts/test.sh --repeat N [--build DIR] [--stop] "
          "[--keep] SUITE|TEST...", file=sys.stderr)
    sys.exit(2)


def parse(argv):
    opts = {"build": "build", "stop": False, "keep": False, "names": []}
    if not argv or not argv[0].isdigit() or int(argv[0]) < 1:
        usage("N, a number of runs, comes first")
    opts["n"] = int(argv[0])
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--build" and i + 1 < len(argv):
            opts["build"] = argv[i + 1]
            i += 1
        elif a == "--stop":
            opts["stop"] = True
        elif a == "--keep":
            opts["keep"] = True
        elif a.startswith("-"):
            usage(f"unknown option {a}")
        else:
            opts["names"].append(a)
        i += 1
    if not opts["names"]:
        usage("no suite or test named")
    return opts


def listing(build):
    """{test name: [suites]} as `meson test --list` says."""
    out = subprocess.run(["meson", "test", "-C", build, "--no-rebuild",
                          "--list"], capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"test.sh --repeat: meson test --list failed:\n{out.stderr}")
    tests = {}
    for line in out.stdout.splitlines():
        if " / " not in line:
            continue
        head, name = line.split(" / ", 1)
        suites = head.split(":", 1)[-1].split("+")
        tests[name.strip()] = suites
    return tests


def resolve(names, tests):
    """The tests named, in meson's order: suites expanded."""
    chosen = []
    for n in names:
        hit = [t for t, s in tests.items() if t == n or n in s]
        if not hit:
            sys.exit(f"test.sh --repeat: no suite or test '{n}' in this build")
        chosen += [t for t in hit if t not in chosen]
    return chosen


def run_group(build, names, logbase, env, lock):
    """One `meson test` over @names; {name: result} from its JSON log."""
    log = os.path.join(build, "meson-logs", logbase + ".json")
    try:
        os.unlink(log)
    except FileNotFoundError:
        pass
    cmd = ["meson", "test", "-C", build, "--no-rebuild", "--print-errorlogs",
           "--logbase", logbase] + names
    fd = None
    if lock:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        with open(os.path.join(build, "meson-logs", logbase + ".out"), "w") as out:
            subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
    finally:
        if fd is not None:
            os.close(fd)
    results = {}
    try:
        with open(log) as f:
            for line in f:
                r = json.loads(line)
                # "project:suite+suite / name"
                results[r["name"].split(" / ", 1)[-1]] = r["result"]
    except OSError:
        pass
    # a test the log does not name did not run: that is no pass
    return {n: results.get(n, "ERROR") for n in names}


def main():
    opts = parse(sys.argv[1:])
    build = opts["build"]
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(top)
    print(f"== build {build}", flush=True)
    if subprocess.run(["bash", "scripts/build.sh", build]).returncode:
        sys.exit(1)
    tests = listing(build)
    chosen = resolve(opts["names"], tests)
    e2e = [t for t in chosen if "e2e" in tests[t]]
    rest = [t for t in chosen if t not in e2e]
    env = dict(os.environ)
    if opts["keep"]:
        env.update(RS_KEEP_WORK="1", RS_E2E_KEEP="1")
    lock = os.environ.get("RS_E2E_LOCK", "/tmp/ringside-e2e.lock")
    n = opts["n"]
    fails = {t: [] for t in chosen}
    skips = {t: 0 for t in chosen}
    print(f"== {n} runs of {len(chosen)} tests: {' '.join(chosen)}", flush=True)
    done = 0
    for i in range(1, n + 1):
        res = {}
        if rest:
            res.update(run_group(build, rest, f"repeat-{i}", env, None))
        if e2e:
            res.update(run_group(build, e2e, f"repeat-{i}-e2e", env, lock or None))
        done = i
        bad = [t for t in chosen if res[t] in BAD]
        for t in chosen:
            if res[t] in BAD:
                fails[t].append(i)
            elif res[t] == "SKIP":
                skips[t] += 1
        ok = sum(1 for t in chosen if res[t] in ("OK", "EXPECTEDFAIL"))
        line = f"run {i}/{n}: {ok} ok"
        if bad:
            logs = [f"{build}/meson-logs/repeat-{i}{sfx}.txt"
                    for sfx, group in (("", rest), ("-e2e", e2e))
                    if set(bad) & set(group)]
            line += ", failed: " + " ".join(f"{t} ({res[t]})" for t in bad)
            line += f" (log: {' '.join(logs)})"
        skipped = [t for t in chosen if res[t] == "SKIP"]
        if skipped:
            line += ", skipped: " + " ".join(skipped)
        print(line, flush=True)
        if bad and opts["stop"]:
            break
    print(f"== failures of {done} runs")
    width = max(len(t) for t in chosen)
    for t in chosen:
        runs = fails[t]
        extra = f" (runs {', '.join(map(str, runs))})" if runs else ""
        sk = f", {skips[t]} skipped" if skips[t] else ""
        print(f"{t:<{width}}  {len(runs)} of {done} failed{sk}{extra}")
    sys.exit(1 if any(fails.values()) else 0)


if __name__ == "__main__":
    main()
