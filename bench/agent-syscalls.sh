#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The Linux agent's system calls and clock reads per second while it
# samples a CPU-bound workload at 1000 Hz with call chains, on this host,
# without a VM, and then perf record's doing the same (docs/benchmarks.md,
# "What tracing costs a guest"):
#
#   bench/agent-syscalls.sh [BUILD] [AGENT...]     (as root)
#
# As tests/e2e/e2e_agent_host.sh runs it: BUILD's ringside-hook makes a
# region (MODE, FREQ Hz, the default sample type: call chains), a
# fake sysfs shows it as an ivshmem device's BAR2, and each AGENT (default
# BUILD's ringside-agent; give another build's to compare) runs against it
# under `strace -c -f` for SECS seconds while BUILD's guest-work keeps every
# CPU busy.  Its clock_gettime calls, which the vDSO answers without a
# system call on this host (a TCG guest's hpet clocksource makes each one a
# system call), are counted by a uprobe on the agent (`perf probe`,
# removed after).  One JSON line per agent on stdout:
#
#   {"bench":"agent-syscalls","agent":PATH,"rep":R,"mode":MODE,"secs":S,
#    "freq":HZ,"syscalls_per_s":N,"clock_gettime_per_s":C,
#    "wakeups_per_s":W,"cpu_ms_per_s":M,"cpu_share":F,
#    "calls_per_s":{"NAME":n,...}}
#
# and one line of "agent":"perf record" for `perf record -F FREQ -g -a -e
# cpu-clock` into a file (PERF=0 leaves it out; no clock probe there).
# wakeups_per_s: voluntary context switches of all its threads, counted
# without strace in a window of SECS before the strace one; cpu_ms_per_s
# and cpu_share (of all this host's CPUs): the CPU time of all its
# threads (/proc/PID/task/*/schedstat) in that same window.
#   REPS=1: the agents (and perf) run one after the other REPS times, a
# line each run; STRACE=0 leaves out the strace window (syscalls_per_s
# and calls_per_s are then null), which halves the time a run takes.
#   DATA_PAGES=1024: data pages a ring.  An overwrite ring's pages are
# first touched (a page fault each, on this host's shared memory) until
# it has been written round once: 64 pages do that within the 2 s before
# the window, as the TCG guest's benchmark rings do; 1024 (4 MiB) take
# tens of seconds at 1000 Hz on two CPUs, and their faults are counted.
#   MODE=overwrite: the rings' mode, nobody reading them; MODE=normal has
# BUILD's `ringside record` drain them into a file while each agent runs
# (not perf record: it writes its own file).
#   SECS=10  FREQ=1000  TICK_MS=1000 (the agent's default beat); counted
# from 2 s after the start (attached, its symbols published) for SECS.
# The host's other work is sampled too (its threads are named): numbers
# taken on a busy machine are noisy, compare agents in one run.
set -u

BUILD=${1:-build}
shift || true
AGENTS=("$@")
[ ${#AGENTS[@]} = 0 ] && AGENTS=("$BUILD/guest-agent/linux/ringside-agent")
SECS=${SECS:-10} FREQ=${FREQ:-1000} TICK_MS=${TICK_MS:-1000} PERF=${PERF:-1}
REPS=${REPS:-1} STRACE=${STRACE:-1} DATA_PAGES=${DATA_PAGES:-1024}
MODE=${MODE:-overwrite}
HOOK=$BUILD/hook/ringside-hook RINGSIDE=$BUILD/cli/ringside
WORK=$BUILD/bench/guest-work

[ "$(id -u)" = 0 ] || { echo "agent-syscalls: needs root" >&2; exit 1; }
for t in strace perf python3; do
	command -v $t > /dev/null || { echo "agent-syscalls: needs $t" >&2; exit 1; }
done
for f in "$HOOK" "$WORK" "$RINGSIDE" "${AGENTS[@]}"; do
	[ -x "$f" ] || { echo "agent-syscalls: no $f" >&2; exit 1; }
done

NAME=rs-agent-sys-$$
SHM=/dev/shm/ringside-$NAME
W=$(mktemp -d /tmp/rs-agent-sys.XXXXXX)
WPID='' APID='' RPID=''
cleanup() {
	[ -n "$WPID" ] && { pkill -P "$WPID"; kill "$WPID"; } 2> /dev/null
	[ -n "$RPID" ] && kill "$RPID" 2> /dev/null
	[ -n "$APID" ] && kill "$APID" 2> /dev/null
	perf probe -q -d 'rsagent:*' 2> /dev/null
	"$HOOK" "$NAME" release end < /dev/null 2> /dev/null
	rm -f "$SHM"
	rm -rf "$W"
}
trap cleanup EXIT

DEV=$W/sys/0000:00:03.0
mkdir -p "$DEV"
echo 0x1af4 > "$DEV/vendor"
echo 0x1110 > "$DEV/device"
getent group libvirt-qemu > /dev/null && GROUP=libvirt-qemu || GROUP=root
# the shared memory: a power of two (as ivshmem wants) holding both rings,
# the sideband and the header's pages
need=$(((2 * DATA_PAGES + 512 + 64) * 4096)) SHM_MB=1
while [ $((SHM_MB * 1048576)) -lt "$need" ]; do SHM_MB=$((SHM_MB * 2)); done
cat > "$W/domain.xml" <<EOF
<domain type='qemu'>
  <name>$NAME</name>
  <metadata>
    <ringside:region xmlns:ringside="https://ringside.dev/xmlns/1" version="1" rings="2" data-pages="$DATA_PAGES" aux-pages="0" mode="$MODE" trace="samples,markers" freq="$FREQ" sideband-pages="512"/>
  </metadata>
  <vcpu placement='static'>2</vcpu>
  <devices>
    <shmem name='ringside-$NAME'><model type='ivshmem-plain'/><size unit='M'>$SHM_MB</size></shmem>
  </devices>
</domain>
EOF
"$HOOK" --group "$GROUP" "$NAME" prepare begin - < "$W/domain.xml" ||
	{ echo "agent-syscalls: the hook made no region" >&2; exit 1; }
ln -s "$SHM" "$DEV/resource2"

rounds=$("$WORK" --calibrate $((SECS * 4)) | sed -n 's/[^0-9]*\([0-9]*\).*/\1/p')
# clock_gettime's file offset in a static agent (perf probe finds no debug
# information for libc's part of it)
clock_offset() {
	python3 - "$1" <<'PY'
import re, subprocess, sys
nm = subprocess.run(["nm", sys.argv[1]], capture_output=True, text=True).stdout
va = [int(l.split()[0], 16) for l in nm.splitlines()
      if l.endswith(" clock_gettime")]
if not va:
    sys.exit(1)
for l in subprocess.run(["readelf", "-lW", sys.argv[1]], capture_output=True,
                        text=True).stdout.splitlines():
    f = l.split()
    if f and f[0] == "LOAD":
        off, v, sz = int(f[1], 16), int(f[2], 16), int(f[5], 16)
        if v <= va[0] < v + sz:
            print(hex(va[0] - v + off))
            sys.exit(0)
sys.exit(1)
PY
}

# vol PID: the voluntary context switches of all its threads
vol() {
	cat /proc/"$1"/task/*/status 2> /dev/null |
		awk '/^voluntary_ctxt_switches:/ { s += $2 } END { print s + 0 }'
}
# cpu PID: the CPU time of all its threads, ns
cpu() {
	cat /proc/"$1"/task/*/schedstat 2> /dev/null |
		awk '{ s += $1 } END { printf "%d\n", s }'
}
NCPU=$(nproc)
[ "$PERF" = 1 ] && AGENTS+=("perf record")
for rep in $(seq "$REPS"); do
for agent in "${AGENTS[@]}"; do
	perf probe -q -d 'rsagent:*' 2> /dev/null
	probe=0
	[ "$agent" != "perf record" ] && off=$(clock_offset "$agent") && [ -n "$off" ] &&
		perf probe -q -x "$agent" -a "rsagent:clk=$off" 2> /dev/null && probe=1
	"$WORK" "${rounds:-100000}" > /dev/null &
	WPID=$!
	if [ "$agent" = "perf record" ]; then
		perf record -q -F "$FREQ" -g -a -e cpu-clock -o "$W/perf.data" \
			2> /dev/null &
	else
		if [ "$MODE" = normal ]; then
			"$RINGSIDE" record "$SHM" -o "$W/rec.data" \
				> "$W/rec.out" 2>&1 &
			RPID=$!
		fi
		"$agent" --sysfs "$W/sys" -m "$W/mark.sock" -t "$TICK_MS" -q &
	fi
	APID=$!
	sleep 2   # attached, its symbols published: the steady state after
	v0=$(vol "$APID") c0=$(cpu "$APID")
	sleep "$SECS"
	v1=$(vol "$APID") c1=$(cpu "$APID")
	: > "$W/clk"
	: > "$W/strace"
	PSPID=
	if [ "$STRACE" = 1 ] && [ "$probe" = 1 ]; then
		perf stat -x, -e rsagent:clk -p "$APID" -o "$W/clk" \
			sleep "$SECS" > /dev/null 2>&1 &
		PSPID=$!
	fi
	[ "$STRACE" = 1 ] &&
		timeout -s INT "$SECS" strace -c -f -p "$APID" -o "$W/strace" > /dev/null 2>&1
	[ -n "$PSPID" ] && wait "$PSPID"
	kill -INT "$APID" 2> /dev/null
	wait "$APID"
	if [ -n "$RPID" ]; then
		kill -INT "$RPID" 2> /dev/null
		wait "$RPID"
		RPID=
		# what it wrote and what was lost, for the record
		grep -E 'wrote|lost|corrupt' "$W/rec.out" | sed 's/^ */agent-syscalls: /' >&2
	fi
	rm -f "$W/perf.data" "$W/rec.data"
	APID=
	# its workers first: the work was sized for longer than the window
	pkill -P "$WPID" 2> /dev/null
	kill "$WPID" 2> /dev/null
	wait "$WPID" 2> /dev/null
	WPID=
	python3 - "$agent" "$SECS" "$FREQ" "$W/strace" "$W/clk" "$((v1 - v0))" \
		"$((c1 - c0))" "$NCPU" "$STRACE" "$rep" "$MODE" <<'PY'
import json, sys
agent, secs, freq, st, clk, vol, ns, ncpu, traced, rep, mode = sys.argv[1:12]
secs = int(secs)
traced = traced == "1"
calls = {}
for line in open(st):
    f = line.split()
    if len(f) >= 5 and f[0][0].isdigit() and f[-1] != "total":
        calls[f[-1]] = int(f[3])
c = None
for line in open(clk):
    f = line.strip().split(",")
    if len(f) > 2 and "rsagent" in line and f[0].isdigit():
        c = round(int(f[0]) / secs, 1)
print(json.dumps({"bench": "agent-syscalls", "agent": agent, "rep": int(rep),
                  "mode": mode if agent != "perf record" else None,
                  "secs": secs, "freq": int(freq),
                  "syscalls_per_s": round(sum(calls.values()) / secs, 1)
                  if traced else None,
                  "clock_gettime_per_s": c,
                  "wakeups_per_s": round(int(vol) / secs, 1),
                  "cpu_ms_per_s": round(int(ns) / secs / 1e6, 3),
                  "cpu_share": round(int(ns) / (secs * int(ncpu) * 1e9), 6),
                  "calls_per_s": {k: round(v / secs, 1) for k, v in
                                  sorted(calls.items(), key=lambda x: -x[1])}
                  if traced else None}))
PY
done
done
