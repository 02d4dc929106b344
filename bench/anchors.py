#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ring-bench and the other tracers, measured in one run, as ratios.

    bench/anchors.py BUILD [--events N] [--reps R] [-- RING-BENCH ARGS...]

Runs BUILD/bench/ring-bench (its JSON lines are passed through), then, R
times each (the median is kept), the anchors:

  perf_ring    perf's kernel ring: close(-1) N times under `perf record -e
               raw_syscalls:sys_enter,raw_syscalls:sys_exit` (2 events per
               call), minus the same loop bare, divided by 2
  ftrace       a 64-byte write to trace_marker of a tracefs instance of its
               own, and the same minus a 64-byte write to /dev/null
  lttng_ust    an LTTng-UST tracepoint with a 64-byte payload, into a live
               session with its consumer daemon; the script starts
               lttng-sessiond itself and stops it, and says why when it
               cannot

and prints one JSON line per anchor with the ratio of its cost per event to
ringside's (the producer with a live doorbell consumer, 64-byte records, and
the producer alone), on ring-bench's untimed lines and on its timed ones
(records stamped with the TSC or CLOCK_MONOTONIC, as every anchor's events
are stamped).  Before them, one "ratios" line per record size: the
producer with each consumer against the producer alone and against the
cross-core floor (xcore_copy), untimed and timed, what each lost, and the
drains against memcpy.  Needs root for perf's tracepoints and tracefs; what it
cannot measure is a line with "measured": false and the reason.  Exit 0
unless ring-bench failed.  docs/benchmarks.md explains the figures.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TRACEFS = "/sys/kernel/tracing"
CLOCKS = ("tsc", "mono")     # ring-bench's timed lines, "clock"


def out(obj):
    print(json.dumps(obj, separators=(",", ":")), flush=True)


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def run_json(cmd, env=None):
    """Run @cmd; its last stdout line as JSON, and its stderr."""
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (cmd[0], p.returncode,
                                                 p.stderr.strip()[-300:]))
    return json.loads(p.stdout.strip().splitlines()[-1]), p.stderr


def median_of(reps, fn):
    vals = [fn() for _ in range(reps)]
    return statistics.median(vals), min(vals), max(vals)


def perf_ring(bench, n, reps, tmp):
    if not shutil.which("perf"):
        return {"measured": False, "why": "no perf"}
    data = os.path.join(tmp, "perf.data")
    lost = []

    def bare():
        return run_json([bench + "/trace-anchor", "close", str(n)])[0]["ns_per_call"]

    def traced():
        # -B: no build-id pass after the run (outside the timed loop);
        # perf 6.1 here aborts in it (util/build-id.c assertion).
        j, err = run_json(["perf", "record", "-q", "-B", "-o", data, "-e",
                           "raw_syscalls:sys_enter,raw_syscalls:sys_exit",
                           "--", bench + "/trace-anchor", "close", str(n)])
        stats = subprocess.run(["perf", "report", "-i", data, "--stats"],
                               capture_output=True, text=True).stdout
        lost.append(sum(int(l.split()[-1]) for l in stats.splitlines()
                        if l.strip().startswith("LOST") and
                        l.split()[-1].isdigit()))
        return j["ns_per_call"]

    b = median_of(reps, bare)
    t = median_of(reps, traced)
    return {"measured": True, "ns_per_event": round((t[0] - b[0]) / 2, 1),
            "bare_ns_per_call": b[0], "traced_ns_per_call": t[0],
            "traced_ns_range": [t[1], t[2]], "events_per_call": 2,
            "calls": n, "lost_records_per_run": lost}


def ftrace(bench, n, reps):
    if not os.path.isdir(TRACEFS + "/instances"):
        return {"measured": False, "why": "no tracefs at " + TRACEFS}
    inst = TRACEFS + "/instances/ringside-bench-%d" % os.getpid()
    try:
        os.mkdir(inst)
    except OSError as e:
        return {"measured": False, "why": "tracefs instance: %s" % e}
    try:
        with open(inst + "/tracing_on", "w") as f:
            f.write("1")
        bare = median_of(reps, lambda: run_json(
            [bench + "/trace-anchor", "write", "/dev/null", str(n)])[0]["ns_per_call"])
        traced = median_of(reps, lambda: run_json(
            [bench + "/trace-anchor", "write", inst + "/trace_marker",
             str(n)])[0]["ns_per_call"])
    finally:
        os.rmdir(inst)
    return {"measured": True, "ns_per_event": round(traced[0] - bare[0], 1),
            "ns_per_write": traced[0], "bare_write_ns": bare[0],
            "traced_ns_range": [traced[1], traced[2]], "writes": n}


def lttng(bench, n, reps, tmp):
    exe = bench + "/lttng-anchor"
    if not os.path.exists(exe):
        return {"measured": False,
                "why": "lttng-anchor not built (no lttng-ust: scripts/bench-setup.sh)"}
    if not shutil.which("lttng-sessiond") or not shutil.which("lttng"):
        return {"measured": False,
                "why": "no lttng-sessiond/lttng (lttng-tools: scripts/bench-setup.sh)"}
    # A daemon this script did not start would serve the session, and
    # stopping it is not this script's business.
    if subprocess.run(["pgrep", "-x", "lttng-sessiond"],
                      capture_output=True).returncode == 0:
        return {"measured": False,
                "why": "an lttng-sessiond not started by this script is running"}
    home = os.path.join(tmp, "lttng-home")
    os.makedirs(home)
    env = dict(os.environ, LTTNG_HOME=home)
    log = open(os.path.join(tmp, "sessiond.log"), "w")
    sessiond = subprocess.Popen(["lttng-sessiond"], env=env, stdout=log,
                                stderr=subprocess.STDOUT)
    session = "ringside-bench-%d" % os.getpid()
    lttng_cmd = lambda *a: subprocess.run(["lttng"] + list(a), env=env,
                                          capture_output=True, text=True)
    try:
        for _ in range(100):        # it answers once it is up
            if sessiond.poll() is not None:
                return {"measured": False,
                        "why": "lttng-sessiond exited %d" % sessiond.returncode}
            if lttng_cmd("list").returncode == 0:
                break
            time.sleep(0.1)
        else:
            return {"measured": False, "why": "lttng-sessiond did not answer"}
        discarded = []

        def traced():
            steps = [("create", session, "--output", os.path.join(tmp, "trace")),
                     ("enable-event", "--userspace", "ringside_bench:rec",
                      "--session", session),
                     ("start", session)]
            for s in steps:
                p = lttng_cmd(*s)
                if p.returncode:
                    raise RuntimeError("lttng %s: %s" % (s[0], p.stderr.strip()))
            j, _ = run_json([exe, str(n)], env=env)
            p = lttng_cmd("stop", session)
            # "Warning: N events were discarded ..." when the consumer fell behind
            words = (p.stdout + p.stderr).split()
            d = [int(words[i + 1]) for i, w in enumerate(words[:-1])
                 if w == "Warning:" and words[i + 1].isdigit()]
            discarded.append(d[0] if d else 0)
            lttng_cmd("destroy", session)
            shutil.rmtree(os.path.join(tmp, "trace"), ignore_errors=True)
            return j["ns_per_event"]

        t = median_of(reps, traced)
        off = median_of(reps, lambda: run_json([exe, str(n)], env=env)[0]["ns_per_event"])
    except RuntimeError as e:
        return {"measured": False, "why": str(e)}
    finally:
        lttng_cmd("destroy", session)
        sessiond.terminate()
        try:
            sessiond.wait(timeout=20)
        except subprocess.TimeoutExpired:
            sessiond.kill()
            sessiond.wait()
        log.close()
    return {"measured": True, "ns_per_event": t[0], "traced_ns_range": [t[1], t[2]],
            "disabled_ns_per_event": off[0], "events": n,
            "discarded_per_run": discarded,
            "sessiond": "started and stopped by anchors.py"}


def ratios(size, lines):
    """One size's figures as the ratios issue 14 states its goals in."""
    def ns(key):
        return lines[key]["ns_per_record"] if key in lines else None

    def div(a, b):
        return round(a / b, 2) if a is not None and b else None

    local, xcore = ns("producer_local:"), ns("xcore_copy:")
    r = {"bench": "ratios", "record_size": size}
    for cons in ("doorbell", "busy_poll", "adaptive"):
        live = ns("producer:" + cons)
        r[cons + "_to_local"] = div(live, local)
        r[cons + "_to_xcore_copy"] = div(live, xcore)
        if "producer:" + cons in lines:
            r[cons + "_lost"] = lines["producer:" + cons]["lost"]
    r["xcore_copy_to_local"] = div(xcore, local)
    for clock in CLOCKS:
        t_local = ns("producer_local_timed::" + clock)
        for cons in ("doorbell", "busy_poll"):
            key = "producer_timed:%s:%s" % (cons, clock)
            pre = "timed_%s_%s" % (clock, cons)
            if key in lines:
                r[pre + "_to_local"] = div(ns(key), t_local)
                r[pre + "_to_xcore_copy"] = div(ns(key), xcore)
                r[pre + "_lost"] = lines[key]["lost"]
    for d in ("drain_local", "drain_xproc"):
        if d + ":" in lines:
            r[d + "_to_memcpy"] = lines[d + ":"]["ratio_to_memcpy"]
    return r


def main():
    args = sys.argv[1:]
    rb_args = []
    if "--" in args:
        rb_args = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    bench = os.path.join(args[0], "bench")
    n, reps = 3000000, 5
    i = 1
    while i < len(args):
        if args[i] == "--events":
            n = int(args[i + 1])
        elif args[i] == "--reps":
            reps = int(args[i + 1])
        else:
            print(__doc__, file=sys.stderr)
            return 2
        i += 2

    out({"bench": "anchors_env", "loadavg_1m": loadavg(), "events": n,
         "reps": reps, "root": os.geteuid() == 0})
    ring = {}
    by_size = {}
    p = subprocess.Popen([bench + "/ring-bench"] + rb_args, stdout=subprocess.PIPE,
                         text=True)
    for line in p.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        j = json.loads(line)
        if "record_size" in j and "ns_per_record" in j:
            key = j["bench"] + ":" + j.get("consumer", "")
            if "clock" in j:
                key += ":" + j["clock"]
            by_size.setdefault(j["record_size"], {})[key] = j
            if j["record_size"] == 64:
                ring[key] = j["ns_per_record"]
    rc = p.wait()
    for size in sorted(by_size):
        out(ratios(size, by_size[size]))

    live = ring.get("producer:doorbell")
    alone = ring.get("producer_local:")
    with tempfile.TemporaryDirectory(prefix="ringside-anchors-") as tmp:
        for name, fn in (("perf_ring", lambda: perf_ring(bench, n, reps, tmp)),
                         ("ftrace_marker", lambda: ftrace(bench, n, reps)),
                         ("lttng_ust", lambda: lttng(bench, max(n, 1000000), reps, tmp))):
            try:
                r = fn()
            except (RuntimeError, OSError, ValueError) as e:
                r = {"measured": False, "why": str(e)}
            line = {"bench": "anchor", "what": name}
            line.update(r)
            if r.get("measured") and live and alone:
                line["ringside_ns_per_record"] = live
                line["ratio_to_ringside"] = round(r["ns_per_event"] / live, 1)
                line["ringside_alone_ns_per_record"] = alone
                line["ratio_to_ringside_alone"] = round(r["ns_per_event"] / alone, 1)
            for clock in CLOCKS:
                t_live = ring.get("producer_timed:doorbell:" + clock)
                t_alone = ring.get("producer_local_timed::" + clock)
                if not (r.get("measured") and t_live and t_alone):
                    continue
                line["ringside_timed_%s_ns_per_record" % clock] = t_live
                line["ratio_to_ringside_timed_" + clock] = round(
                    r["ns_per_event"] / t_live, 1)
                line["ringside_timed_%s_alone_ns_per_record" % clock] = t_alone
                line["ratio_to_ringside_timed_%s_alone" % clock] = round(
                    r["ns_per_event"] / t_alone, 1)
            out(line)
    out({"bench": "anchors_end", "loadavg_1m": loadavg()})
    return rc


if __name__ == "__main__":
    sys.exit(main())
