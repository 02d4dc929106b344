#!/bin/bash
# SPDX-License-Identifier: MIT
#
# What tracing costs a Linux guest (docs/benchmarks.md, "What tracing
# costs a guest"):
#
#   bench/guest-overhead.sh BUILD [--reps R] [--secs S] [--rounds N]
#                           [--freq HZ] [--tick MS] [--data-pages P] [--keep]
#                           [--mode normal|overwrite] [--profile FILE]
#                           [--no-host-view] [--clocksource SRC]
#
# Boots the Debian kernel from /boot under a libvirtd of its own (QEMU,
# TCG, 2 vCPUs, 512 MiB) with a busybox initramfs holding the agent, the
# fixed work (BUILD/bench/guest-work: one process per vCPU, ROUNDS rounds
# each) and this host's perf with its libraries, and runs the same work R
# times (default 3) each way, interleaved: a first in each repetition, the
# traced ways in turn after it (a b c d, a c d b, a d b c, ...):
#   a  untraced: no agent and no perf running in the guest;
#   b  ringside: the agent sampling at HZ (default 1000) with call chains,
#      `ringside record DOMAIN` on the host draining the rings, a new
#      recording for each run (the domain enabled --mode normal --freq HZ);
#   c  the guest's own `perf record -F HZ -g -a -e cpu-clock` into a file
#      in the guest (cpu-clock: TCG has no PMU, and the agent's event is
#      cpu-clock too);
#   d  the same with `-k CLOCK_MONOTONIC`, the clock the agent's samples
#      carry (perf's default is the kernel's local clock).
# ROUNDS is measured in the guest at boot for about S seconds (default 10)
# of work, unless --rounds fixes it.  The guest's script is
# bench/guest-overhead-init.sh.  Output: one JSON line per run
# ("bench":"guest-overhead-run") and one summary line
# ("bench":"guest-overhead") with the medians: each mode's wall time,
# throughput against a (b/a, c/a, d/a: 1.0 is free), ringside's against
# each perf way repetition by repetition (the work's time under perf over
# its time under ringside in the same repetition: each, median, mean and
# the mean's 95 % interval), the tracers' CPU in the
# guest over the work (window: clock ticks, and ns from schedstat) and over
# their whole life, their wakeups (times scheduled in, voluntary switches)
# per second of the window, their system calls per second (counted by
# perf stat in the guest while a quarter of the work runs again after
# the window, since counting them slows every system call), the
# losses, and in normal mode the host's side: `ringside record`'s CPU
# over its life, a share of one host CPU, and its wakeups a second; and
# per way what the host's CPUs did while the work ran: all of them, the
# vCPU threads, the rest beside them, record and libvirtd among it
# ("host_cpu_during_work", shares of one host CPU), and the vCPU threads'
# context switches a second.
# Takes /tmp/ringside-e2e.lock (one libvirtd per machine); root; exits 77
# when QEMU, libvirt or a kernel is missing.  A benchmark, not a test:
# nothing is judged.  --keep keeps the work directory.  --no-host-view:
# `record --no-host` (no host perf events on the VMM's vCPU threads, whose
# context switches they follow).  --clocksource SRC: the guest kernel's
# clocksource (tsc: with tsc=reliable, as a KVM guest's kvm-clock reads
# the TSC; under TCG the kernel picks the HPET, which every
# CLOCK_MONOTONIC sample then reads through QEMU's device model, the
# agent's and perf mono's alike).  --profile FILE:
# the agent's profile in each ringside run (`perf record -g -p` of it in
# the guest, whose cost its figures then include) into FILE, and after
# each run everything the agent said at its end (its counters).
# shellcheck disable=SC2015  # A && B || C: B never fails here
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${RS_GO_LOCKED:-}" ]; then
	RS_GO_LOCKED=1 exec flock /tmp/ringside-e2e.lock "$0" "$@"
fi
usage() {
	echo "usage: bench/guest-overhead.sh BUILD [--reps R] [--secs S] [--rounds N] [--freq HZ] [--tick MS] [--data-pages P] [--mode normal|overwrite] [--profile FILE] [--no-host-view] [--clocksource SRC] [--keep]" >&2
	exit 2
}
[ $# -ge 1 ] || usage
BUILD=$1; shift
REPS=3 SECS=10 ROUNDS=0 FREQ=1000 PAGES='' KEEP=0 MODE=normal PROFILE='' TICK=0
NO_HOST='' CLOCK=''
while [ $# -gt 0 ]; do
	case $1 in
	--reps) REPS=${2:-}; shift 2 ;;
	--secs) SECS=${2:-}; shift 2 ;;
	--rounds) ROUNDS=${2:-}; shift 2 ;;
	--freq) FREQ=${2:-}; shift 2 ;;
	--tick) TICK=${2:-}; shift 2 ;;
	--data-pages) PAGES=${2:-}; shift 2 ;;
	--mode) MODE=${2:-}; shift 2 ;;
	--profile) PROFILE=${2:-}; shift 2 ;;
	--keep) KEEP=1; shift ;;
	--no-host-view) NO_HOST=--no-host; shift ;;
	--clocksource) CLOCK=${2:-}; shift 2 ;;
	*) usage ;;
	esac
done
for v in "$REPS" "$SECS" "$ROUNDS" "$FREQ" "$TICK" ${PAGES:+"$PAGES"}; do
	case $v in '' | *[!0-9]*) usage ;; esac
done
[ "$REPS" -ge 1 ] && [ "$SECS" -ge 1 ] && [ "$FREQ" -ge 1 ] || usage
case $MODE in normal | overwrite) ;; *) usage ;; esac
case $CLOCK in '' | *[!a-z0-9_]*) [ -z "$CLOCK" ] || usage ;; esac

RINGSIDE=$BUILD/cli/ringside
AGENT=$BUILD/guest-agent/linux/ringside-agent
HOOK_PROGRAM=$BUILD/hook/ringside-hook
WORK=$BUILD/bench/guest-work
HOOK=/etc/libvirt/hooks/qemu.d/ringside
DOM=rs-go-$$
say() { echo "guest-overhead: $*" >&2; }
for f in "$RINGSIDE" "$AGENT" "$HOOK_PROGRAM" "$WORK"; do
	[ -x "$f" ] || { say "no $f: build $BUILD first (not a sanitized build)"; exit 1; }
done
# shellcheck source=scripts/lib/libvirt-guest.sh
. "$top/scripts/lib/libvirt-guest.sh"
[ "$(id -u)" = 0 ] || { say "needs root (libvirtd, /dev/shm, the hook)"; exit 77; }
lg_prereq || { say "$LG_WHY"; exit 77; }
for d in libvirtd virtlogd; do
	[ -z "$(lg_running $d)" ] || { say "$d already runs; this starts and stops its own"; exit 77; }
done
if [ -e "$HOOK" ] && ! grep -q "ringside libvirt hook" "$HOOK"; then
	say "$HOOK exists and is not ringside's"
	exit 77
fi

W=$(lg_workdir /tmp/rs-go.XXXXXX)
DEFINED='' HOOKED='' RECORD_PID=''
cleanup() {
	[ -n "$RECORD_PID" ] && lg_kill_wait "$RECORD_PID"
	if [ -n "$DEFINED" ]; then
		vsh destroy "$DOM" >/dev/null 2>&1
		vsh undefine "$DOM" >/dev/null 2>&1
	fi
	lg_daemons_stop
	[ -n "$HOOKED" ] && "$RINGSIDE" hook uninstall >/dev/null
	rm -f "/dev/shm/ringside-$DOM" "/dev/shm/ringside-$DOM~kept"
	if [ "$KEEP" = 1 ]; then say "work directory kept: $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- the initramfs: agent, work, perf and its libraries ----------------------
R=$W/root
mkdir -p "$R/bin" "$R/usr/bin" || exit 1
cp "$AGENT" "$R/bin/ringside-agent" && cp "$WORK" "$R/bin/guest-work" &&
	cp "$(command -v perf)" "$R/usr/bin/perf" || { say "copying the programs"; exit 1; }
# perf is dynamic: its libraries and loader at the paths it was linked with
for lib in $(ldd "$(command -v perf)" | awk '/=> \// { print $3 } /^\t\// { print $1 }'); do
	mkdir -p "$R$(dirname "$lib")" && cp -L "$lib" "$R$lib" || { say "copying $lib"; exit 1; }
done
lg_initramfs_pack "$W" "$top/bench/guest-overhead-init.sh" || { say "$LG_WHY"; exit 1; }
PERF_VERSION=$(perf version | awk '{ print $3 }')
say "initramfs $(($(stat -c %s "$W/initrd.gz") >> 20)) MiB, kernel $LG_KERNEL, perf $PERF_VERSION"

# ---- libvirt, the hook, the domain -----------------------------------------------
"$RINGSIDE" hook install --program "$HOOK_PROGRAM" --capture-dir "$W/captures" >/dev/null ||
	{ say "ringside hook install"; exit 1; }
HOOKED=1
lg_daemons_start "$W" || { say "$LG_WHY"; exit 1; }
export HOME=$W/home PERF_CONFIG=/dev/null
mkdir -p "$HOME"
lg_domain_xml "$DOM" qemu "$W" "bench go_reps=$REPS go_secs=$SECS go_rounds=$ROUNDS go_freq=$FREQ $([ "$TICK" != 0 ] && echo "go_tick=$TICK") go_mode=$MODE go_profile=$([ -n "$PROFILE" ] && echo 1 || echo 0)${CLOCK:+ clocksource=$CLOCK}$([ "$CLOCK" = tsc ] && echo " tsc=reliable")" |
	sed "s|<memory unit='MiB'>256</memory>|<memory unit='MiB'>512</memory>|" > "$W/domain.xml"
vsh define "$W/domain.xml" >/dev/null || { say "virsh define"; exit 1; }
DEFINED=1
"$RINGSIDE" enable "$DOM" --mode "$MODE" --freq "$FREQ" ${PAGES:+--data-pages "$PAGES"} \
	> "$W/enable.out" 2>&1 || { say "enable: $(cat "$W/enable.out")"; exit 1; }
# "2 rings x 64 data + 0 AUX pages": the size the ring was given
RING_PAGES=$(sed -n 's/.* rings x \([0-9]*\) data .*/\1/p' "$W/enable.out" | head -n 1)
vsh start "$DOM" >/dev/null || { say "virsh start"; exit 1; }
T0=$(date +%s)
say "$DOM started (TCG, $MODE mode); $REPS runs of each way, ~${SECS} s of work each"

# ---- the host's CPU while the work runs (GO-WORK .. GO-WORKED) ---------------
# Every busy tick of the host (/proc/stat: user, nice, system, irq,
# softirq), the QEMU vCPU threads' ("CPU N/TCG", "CPU N/KVM"), and those of
# `record` and libvirtd: what the host spent beside the guest's vCPUs,
# which on a host with no idle CPU comes out of them.  "busy vcpu record
# libvirtd" in clock ticks, then the vCPU threads' context switches
# (voluntary and not: each costs a thread that a host view records more).
host_ticks() {
	local qpid busy vcpu=0 rec=0 lv=0 sw=0 t
	busy=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat)
	qpid=$(pgrep -f "guest=$DOM" | head -n 1)
	if [ -n "$qpid" ]; then
		for t in /proc/"$qpid"/task/*; do
			case $(cat "$t/comm" 2>/dev/null) in
			# utime + stime past the name, which has a space
			"CPU "*) vcpu=$((vcpu + $(sed 's/.*) //' "$t/stat" 2>/dev/null |
				awk '{ print $12 + $13 } END { if (!NR) print 0 }')))
				sw=$((sw + $(awk '/ctxt_switches:/ { s += $2 } END { print s + 0 }' "$t/status" 2>/dev/null || echo 0))) ;;
			esac
		done
	fi
	[ -n "$RECORD_PID" ] &&
		rec=$(cat /proc/"$RECORD_PID"/task/*/stat 2>/dev/null | awk '{ s += $14 + $15 } END { print s + 0 }')
	t=$(lg_running libvirtd)
	[ -n "$t" ] && lv=$(awk '{ print $14 + $15 }' "/proc/$t/stat" 2>/dev/null || echo 0)
	echo "$busy $vcpu $rec ${lv:-0} $sw"
}
HOST_T0=''
HOST_KV=''

# ---- the console: start and stop `record` around each b run --------------------
: > "$W/results"
done_lines=0 end=0
limit=$((600 + REPS * 4 * (SECS * 8 + 60)))
# The loop runs on the host whose CPUs the vCPUs need: it asks libvirtd
# whether the guest still runs only after 5 s without a console line (a
# virsh and its connection five times a second took more of the host
# than `record` does), and reads the clock with the shell's own printf.
idle=0
while [ "$end" = 0 ]; do
	printf -v now '%(%s)T' -1
	if [ $((now - T0)) -gt "$limit" ]; then
		say "no GO-END within $limit s; the console's end:"
		tail -n 20 "$W/console.log" >&2
		exit 1
	fi
	# the guest powers off right after GO-END: its last lines are read first
	running=1
	if [ "$idle" -ge 25 ]; then
		idle=0
		vsh domstate "$DOM" 2>/dev/null | grep -q running || running=0
	fi
	n=$(wc -l < "$W/console.log" 2>/dev/null || echo 0)
	if [ "$n" -le "$done_lines" ]; then
		if [ "$running" = 0 ]; then
			say "the guest stopped before GO-END"; tail -n 20 "$W/console.log" >&2; exit 1
		fi
		idle=$((idle + 1))
		sleep 0.2
		continue
	fi
	idle=0
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		GO-BOOT* | GO-ROUNDS* | GO-WAKES*) say "${line#GO-}" ;;
		GO-WORK\ *)
			HOST_T0=$(host_ticks) HOST_W0=$(date +%s%N) HOST_KV='' ;;
		GO-WORKED\ *)
			if [ -n "$HOST_T0" ]; then
				# shellcheck disable=SC2086,SC2046  # five numbers each
				HOST_KV=$(echo $HOST_T0 $(host_ticks) $(( ($(date +%s%N) - HOST_W0) / 1000000 )) |
					awk '{ printf "host_busy=%d host_vcpu=%d host_rec=%d host_libvirtd=%d host_vcpu_sw=%d host_ms=%d",
						$6 - $1, $7 - $2, $8 - $3, $9 - $4, $10 - $5, $11 }')
			fi
			HOST_T0='' ;;
		GO-FAIL*) say "the guest: $line"; exit 1 ;;
		GO-PERF-SAID*) echo "${line#GO-PERF-SAID }" >> "$W/perf.said" ;;
		GO-PROF*) [ -n "$PROFILE" ] && echo "${line#GO-PROF }" >> "$PROFILE" ;;
		GO-AGENT*) [ -n "$PROFILE" ] && echo "${line#GO-}" >> "$PROFILE" ;;
		GO-WAIT\ b\ *)
			rep=${line##* }
			"$RINGSIDE" record "$DOM" ${NO_HOST:+"$NO_HOST"} -o "$W/rec-$rep.data" > "$W/rec-$rep.out" 2> "$W/rec-$rep.err" &
			RECORD_PID=$!
			RECORD_T0=$(date +%s%N)
			# attached once it has its file
			for _ in $(seq 100); do
				[ -e "$W/rec-$rep.data.tmp" ] && break
				kill -0 $RECORD_PID 2>/dev/null || break
				sleep 0.05
			done
			kill -0 $RECORD_PID 2>/dev/null || { say "record: $(cat "$W/rec-$rep.err")"; exit 1; }
			vsh send-key "$DOM" KEY_ENTER >/dev/null || { say "virsh send-key"; exit 1; }
			;;
		GO-SNAP\ b\ *)
			# overwrite mode: what the flight recorder holds, with
			# the agent still running (a live snapshot)
			rep=${line##* }
			"$RINGSIDE" snapshot "$DOM" -o "$W/snap-$rep.data" > "$W/snap-$rep.out" 2>&1
			echo "$?" > "$W/snap-$rep.rc"
			vsh send-key "$DOM" KEY_ENTER >/dev/null || { say "virsh send-key"; exit 1; }
			;;
		GO-RESULT\ *)
			# shellcheck disable=SC2086  # the words of the line
			set -- $line
			mode=$2 rep=$3
			extra=''
			if [ "$mode" = b ] && [ "$MODE" = overwrite ]; then
				o=$W/snap-$rep.out
				extra="snap_rc=$(cat "$W/snap-$rep.rc" 2>/dev/null || echo x)"
				extra="$extra snap_kbuf_records=$(sed -n 's/^guest perf buffers: \([0-9]*\) records recovered.*/\1/p' "$o" | head -n 1)"
				extra="$extra snap_samples=$(perf report -i "$W/snap-$rep.data" --stats 2>/dev/null |
					awk '/^Aggregated stats:/ { s = 1; next } /stats:$/ { s = 0 } s && $1 == "SAMPLE" { print $3 }')"
				extra="$extra snap_bytes=$(stat -c %s "$W/snap-$rep.data" 2>/dev/null || echo 0)"
				[ "$KEEP" = 1 ] || rm -f "$W/snap-$rep.data"
			elif [ "$mode" = b ]; then
				# the host's side: record's CPU (utime + stime, in
				# clock ticks) over its whole life, before it ends
				rec_ticks=$(awk '{ print $14 + $15 }' "/proc/$RECORD_PID/stat" 2>/dev/null || echo 0)
				# its wakeups: the times its threads went to sleep
				rec_wakes=$(cat /proc/"$RECORD_PID"/task/*/status 2>/dev/null |
					awk '/^voluntary_ctxt_switches:/ { s += $2 } END { print s + 0 }')
				rec_life=$(( ($(date +%s%N) - RECORD_T0) / 1000000 ))
				kill -INT "$RECORD_PID"
				wait "$RECORD_PID"
				rc=$?
				RECORD_PID=''
				# per ring: "guest claims: lost N in M LOST records[, samples lost K]"
				# and what predates the recording
				o=$W/rec-$rep.out
				extra="rec_rc=$rc rec_ticks=$rec_ticks rec_life_ms=$rec_life rec_hz=$(getconf CLK_TCK) rec_wakes=$rec_wakes rec_records=$(sed -n 's/^ringside record: wrote \([0-9]*\) records.*/\1/p' "$o" | head -n 1)"
				extra="$extra rec_lost=$(grep -o 'guest claims: lost [0-9]*' "$o" | awk '{ s += $NF } END { print s + 0 }')"
				extra="$extra rec_lost_samples=$(grep 'guest claims' "$o" | grep -o 'samples lost [0-9]*' | awk '{ s += $NF } END { print s + 0 }')"
				extra="$extra rec_early_lost=$(grep -o 'before the recording: .*' "$o" | sed 's/.*, lost \([0-9]*\) in.*samples lost \([0-9]*\) in.*/\1 \2/' | awk '{ s += $1 + $2 } END { print s + 0 }')"
				extra="$extra rec_samples=$(perf report -i "$W/rec-$rep.data" --stats 2>/dev/null |
					awk '/^Aggregated stats:/ { s = 1; next } /stats:$/ { s = 0 } s && $1 == "SAMPLE" { print $3 }')"
				extra="$extra rec_bytes=$(stat -c %s "$W/rec-$rep.data" 2>/dev/null || echo 0)"
				[ "$KEEP" = 1 ] || rm -f "$W/rec-$rep.data"
			fi
			extra="$extra $HOST_KV"
			HOST_KV=''
			echo "${line#GO-RESULT } $extra" >> "$W/results"
			say "$mode $rep: $(echo "$line" | grep -o 'wall_ns=[0-9]*' | awk -F= '{ printf "%.2f s", $2 / 1e9 }')$( [ "$mode" = a ] || echo " tracer $(echo "$line" | grep -o 'tr_win_ticks=[0-9]*' | cut -d= -f2) ticks") $(echo "$extra" | cut -c 1-100)"
			;;
		GO-END*) end=1 ;;
		esac
	done < <(tr -d '\r' < "$W/console.log" | sed -n "$((done_lines + 1)),${n}p")
	done_lines=$n
done

# ---- the JSON lines -----------------------------------------------------------
python3 - "$W/results" "$REPS" "$FREQ" "${RING_PAGES:-}" "$PERF_VERSION" \
	"$(grep -a -m1 -o 'GO-BOOT .*' "$W/console.log" | tr -d '\r')" "$(nproc)" \
	"$(cut -d' ' -f1-3 /proc/loadavg)" "$W/perf.said" "$MODE" <<'EOF'
import json, statistics, sys
res, reps, freq, pages, perfv, boot, hcpus, load, said, mode = sys.argv[1:11]
runs = []
for line in open(res):
    f = line.split()
    r = {"bench": "guest-overhead-run", "mode": f[0], "rep": int(f[1])}
    for kv in f[2:]:
        k, _, v = kv.partition("=")
        if not v:
            continue
        try:
            r[k] = v if k == "check" else int(v)
        except ValueError:
            r[k] = v
    runs.append(r)
    print(json.dumps(r))
M = "abcd"
by = {m: [r for r in runs if r["mode"] == m] for m in M}
med = lambda xs: statistics.median(xs) if xs else None
wall = {m: med([r["wall_ns"] for r in by[m]]) for m in M}
cpu = {m: med([r["user_us"] + r["sys_us"] for r in by[m]]) for m in M}
checks = sorted({r["check"] for r in runs})
def tracer(m):
    rs = by[m]
    if not rs:
        return None
    hz = rs[0]["hz"]
    win = [r["tr_win_ticks"] / hz for r in rs]
    ns = [r for r in rs if "tr_win_ns" in r]
    per_s = lambda k: round(med([r[k] / (r["wall_ns"] / 1e9) for r in ns]), 2) if ns else None
    return {"cpu_window_s": round(med(win), 3),
            "cpu_window_share_of_guest": round(med(
                [r["tr_win_ticks"] / hz / (r["wall_ns"] / 1e9 * r["workers"])
                 for r in rs]), 5),
            # schedstat: ns, not ticks
            "cpu_window_ns_share_of_guest": round(med(
                [r["tr_win_ns"] / (r["wall_ns"] * r["workers"]) for r in ns]), 6) if ns else None,
            "cpu_window_ns_share_each": [round(r["tr_win_ns"] / (r["wall_ns"] * r["workers"]), 6)
                                         for r in ns],
            "wakeups_per_s": per_s("tr_win_runs"),
            "voluntary_switches_per_s": per_s("tr_win_vol"),
            # raw_syscalls:sys_enter of the tracer, counted after the
            # window (the init script's sys_window)
            "syscalls_per_s": round(med([r["tr_sys"] / (r["tr_sys_ms"] / 1e3)
                                         for r in rs if r.get("tr_sys_ms")]), 2)
                              if any(r.get("tr_sys_ms") for r in rs) else None,
            "cpu_start_s": round(med([r["tr_start_ticks"] / hz for r in rs]), 3),
            "cpu_all_s": round(med([r["tr_all_ticks"] / hz for r in rs]), 3)}
b, c, d = tracer("b"), tracer("c"), tracer("d")
b.update({"event": "cpu-clock", "freq": int(freq), "call_chains": True,
          "ring_data_pages": int(pages) if pages else None,
          "samples": med([r.get("rec_samples", 0) for r in by["b"]]),
          "lost_ring_full": [r.get("rec_lost", 0) for r in by["b"]],
          "lost_samples_kernel_buffer": [r.get("rec_lost_samples", 0) for r in by["b"]],
          "lost_before_recording": [r.get("rec_early_lost", 0) for r in by["b"]],
          "record_status": [r.get("rec_rc") for r in by["b"]],
          # the host's side: `ringside record`'s CPU over its life (the
          # agent's start to the end of the run), a share of one host CPU
          "record_host_cpu_share_each": [round(r["rec_ticks"] / r["rec_hz"] / (r["rec_life_ms"] / 1e3), 5)
                                         for r in by["b"] if r.get("rec_life_ms") and r.get("rec_hz")],
          # ... and its wakeups a second (its passes, mostly)
          "record_wakeups_per_s_each": [round(r["rec_wakes"] / (r["rec_life_ms"] / 1e3), 1)
                                        for r in by["b"] if r.get("rec_life_ms") and "rec_wakes" in r]})
if mode == "overwrite":
    for k in ("samples", "lost_ring_full", "lost_samples_kernel_buffer",
              "lost_before_recording", "record_status",
              "record_host_cpu_share_each", "record_wakeups_per_s_each"):
        b.pop(k, None)
    b.update({"snapshot_samples": [r.get("snap_samples") for r in by["b"]],
              "snapshot_kbuf_records": [r.get("snap_kbuf_records") for r in by["b"]],
              "snapshot_status": [r.get("snap_rc") for r in by["b"]]})
def perf_counts(t, m, clock):
    if not t:
        return None
    t.update({"event": "cpu-clock", "freq": int(freq), "call_chains": True,
              "clock": clock, "perf_version": perfv,
              "samples": med([r.get("perf_samples", 0) for r in by[m]]),
              "lost_samples": [r.get("perf_lost_samples", 0) for r in by[m]],
              "lost_records": [r.get("perf_lost_records", 0) for r in by[m]],
              "file_bytes": med([r.get("perf_bytes", 0) for r in by[m]])})
    return t
c = perf_counts(c, "c", "perf default (local clock)")
d = perf_counts(d, "d", "CLOCK_MONOTONIC")
b["clock"] = "CLOCK_MONOTONIC"
try:
    c["said"] = sorted(set(l.strip() for l in open(said)))[:5]
except OSError:
    pass
rounds = runs[0]["rounds"] if runs else None
out = {"bench": "guest-overhead", "mode": mode, "reps": int(reps), "guest": boot,
       "rounds": rounds, "workers": runs[0]["workers"] if runs else None,
       "same_result_every_run": len(checks) == 1,
       "host_cpus": int(hcpus), "host_load_end": load,
       "wall_s": {m: round(wall[m] / 1e9, 3) if wall[m] else None for m in M},
       "work_cpu_s": {m: round(cpu[m] / 1e6, 3) if cpu[m] else None for m in M},
       "throughput_b_over_a": round(wall["a"] / wall["b"], 4) if wall["b"] else None,
       "throughput_c_over_a": round(wall["a"] / wall["c"], 4) if wall["c"] else None,
       "throughput_d_over_a": round(wall["a"] / wall["d"], 4) if wall["d"] else None,
       "wall_ranges_s": {m: [round(min(r["wall_ns"] for r in by[m]) / 1e9, 3),
                             round(max(r["wall_ns"] for r in by[m]) / 1e9, 3)]
                         for m in M if by[m]},
       "ringside": b, "perf": c, "perf_mono": d}
# the host's CPU while the work ran, shares of one host CPU (clock
# ticks over the host's own measure of the window): all of it, the vCPU
# threads', the rest (the host beside its guest), record's, libvirtd's
HZ = int(runs[0].get("hz", 100)) if runs else 100
def host_share(r, k):
    return round(r[k] / HZ / (r["host_ms"] / 1e3), 4)
host = {}
for m in M:
    rs = [r for r in by[m] if r.get("host_ms")]
    if not rs:
        continue
    host[m] = {"busy_each": [host_share(r, "host_busy") for r in rs],
               "vcpu_each": [host_share(r, "host_vcpu") for r in rs],
               "beside_each": [round((r["host_busy"] - r["host_vcpu"]) / HZ / (r["host_ms"] / 1e3), 4)
                               for r in rs],
               "record_each": [host_share(r, "host_rec") for r in rs],
               "libvirtd_each": [host_share(r, "host_libvirtd") for r in rs],
               # the vCPU threads' context switches a second
               "vcpu_switches_per_s_each": [round(r["host_vcpu_sw"] / (r["host_ms"] / 1e3))
                                            for r in rs if "host_vcpu_sw" in r]}
if host:
    out["host_cpu_during_work"] = host
# ringside against each perf way, repetition by repetition: the other
# way's wall time over ringside's in the same repetition (> 1: the work
# ran faster under ringside), so that the host's drift between
# repetitions, larger than the difference sought, falls out of it; the
# mean's 95 % interval (Student's t) says what the runs can tell apart
T975 = [12.71, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086]
def paired(m):
    wb = {r["rep"]: r["wall_ns"] for r in by["b"]}
    xs = [wm["wall_ns"] / wb[wm["rep"]] for wm in by[m] if wm["rep"] in wb]
    if not xs:
        return None
    p = {"each": [round(x, 4) for x in xs], "median": round(med(xs), 4),
         "mean": round(statistics.fmean(xs), 4),
         "ringside_faster_in": sum(x > 1 for x in xs), "of": len(xs)}
    if len(xs) > 1:
        half = T975[min(len(xs) - 2, len(T975) - 1)] * statistics.stdev(xs) / len(xs) ** 0.5
        p["mean_ci95"] = [round(p["mean"] - half, 4), round(p["mean"] + half, 4)]
    return p
if by["b"]:
    out["throughput_b_over_c_paired"] = paired("c")
    out["throughput_b_over_d_paired"] = paired("d")
print(json.dumps(out))
EOF
