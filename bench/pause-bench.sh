#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# How long `ringside snapshot --stable DOMAIN` stops a real guest, for rings
# of 256 KiB to 64 MiB per vCPU (docs/benchmarks.md, "How long a stable
# snapshot stops the guest"):
#
#   bench/pause-bench.sh [BUILD]          (as root; BUILD default: build)
#   bench/pause-bench.sh --vmm [BUILD]    (ringside's own VMM, below)
#
# A throwaway 2-vCPU domain under libvirt (the e2e guest: this host's
# kernel, a busybox initramfs with ringside-agent sampling at 1000 Hz and
# rs-workload running, tests/e2e/guest_init.sh in its "flight" mode) is
# enabled in overwrite mode with each ring size, started, and once its
# workload runs, snapshotted REPS times with --stable.  One JSON line per
# snapshot on stdout:
#
#   {"bench":"pause","ring_bytes":N,"rings":2,"rep":I,"pause_ms":X,
#    "inner_ms":Y,"copy_ms":Z,"event_ms":E,"accel":"tcg"}
#
# pause_ms, inner_ms, copy_ms: what the snapshot's summary says (from the
# suspend request to the resume's answer; between the two answers; the
# rings' copy); event_ms: the time between libvirt's Suspended and Resumed
# lifecycle events as `virsh event --timestamp` received them (ms
# resolution, independent of ringside: it also times a ringside that does
# not print its pause, RINGSIDE=...).  Progress goes to stderr.
#
#   SIZES="256K 1M 4M 16M 64M"   ring sizes per vCPU (K or M)
#   REPS=5                       snapshots per size
#   RATE_S=20                    then the rate: `ringside record` of the same
#                                guest in normal mode at the default ring
#                                size for RATE_S seconds (0: not at all);
#                                one line per ring: {"bench":"rate",...}
#   RINGSIDE=PATH                the ringside to time (default BUILD's)
#   SNAP_ARGS=...                snapshot's options (default --no-guest-buffers
#                                --no-vcpu-stacks; "" reads both, as an
#                                operator's plain snapshot --stable does)
#   ACCEL=tcg|kvm                (default tcg: Linux guests hang under this
#                                host's emulated KVM)
# Runs under flock /tmp/ringside-e2e.lock (one libvirtd per machine): it
# takes the lock itself.  Starts virtlogd and libvirtd where none runs and
# stops exactly those; installs ringside's hook unless one is installed,
# and removes it again.
set -euo pipefail

# bench/pause-bench.sh --vmm [BUILD]: the same measure through ringside's
# own VMM (`ringside run` with the freestanding agent writing records as
# fast as it can into overwrite rings, `snapshot --vm SOCKET --stable`:
# PAUSE and RESUME over its control socket).  No libvirt, no lock; JSON
# lines as above with "vmm" for accel and no event_ms.
vmm_bench() {
	local build=$1 R PAYLOAD W SOCK size p rep line pid rc
	R=$build/cli/ringside
	PAYLOAD=$build/guest-agent/payload/ringside-guest-agent
	if ! [ -x "$R" ] || ! [ -f "$PAYLOAD" ]; then
		echo "pause-bench: build $build first" >&2; exit 1
	fi
	if ! [ -r /dev/kvm ] || ! [ -w /dev/kvm ]; then
		echo "pause-bench: no usable /dev/kvm" >&2; exit 1
	fi
	W=$(mktemp -d /tmp/rs-pause-vmm.XXXXXX)
	SOCK=$W/vm.sock
	for size in ${SIZES:-256K 1M 4M 16M 64M}; do
		case $size in
		*K) p=$((${size%K} / 4)) ;;
		*M) p=$((${size%M} * 256)) ;;
		esac
		rm -f "$SOCK"
		"$R" run "$PAYLOAD" --vcpus 2 --data-pages "$p" --mode overwrite \
			--records 4000000000 --control "$SOCK" -q > "$W/run.out" 2>&1 &
		pid=$!
		for _ in $(seq 500); do [ -S "$SOCK" ] && break; sleep 0.02; done
		sleep 1   # the rings fill (and wrap)
		for rep in $(seq "${REPS:-5}"); do
			rc=0
			"$R" snapshot --vm "$SOCK" --stable -o "$W/snap.data" > "$W/snap.out" 2>&1 || rc=$?
			[ $rc = 0 ] || [ $rc = 3 ] ||
				{ cat "$W/snap.out" >&2; kill "$pid"; exit 1; }
			line=$(grep -o "paused the guest .*" "$W/snap.out" || true)
			python3 - "$((p * 4096))" "$rep" "$line" <<'EOF'
import json, re, sys
bytes_, rep, line = sys.argv[1:4]
m = re.match(r"paused the guest ([0-9.]+) ms .*; ([0-9.]+) ms between the two answers, ([0-9.]+) ms of it copying", line)
print(json.dumps({"bench": "pause", "ring_bytes": int(bytes_), "rings": 2,
                  "rep": int(rep),
                  "pause_ms": float(m.group(1)) if m else None,
                  "inner_ms": float(m.group(2)) if m else None,
                  "copy_ms": float(m.group(3)) if m else None,
                  "accel": "vmm"}))
EOF
			rm -f "$W/snap.data"
		done
		kill -TERM "$pid"; wait "$pid" || true
	done
	rm -rf "$W"
}
self=$(realpath "$0")
top=$(cd "$(dirname "$self")/.." && pwd)
cd "$top"
if [ "${1:-}" = --vmm ]; then
	vmm_bench "${2:-build}"
	exit
fi
if [ -z "${RS_PAUSE_BENCH_LOCKED:-}" ]; then
	export RS_PAUSE_BENCH_LOCKED=1
	exec flock /tmp/ringside-e2e.lock "$self" "$@"
fi
# shellcheck source=scripts/lib/libvirt-guest.sh
. scripts/lib/libvirt-guest.sh
build=${1:-build}
SIZES=${SIZES:-256K 1M 4M 16M 64M}
REPS=${REPS:-5}
RATE_S=${RATE_S:-20}
SNAP_ARGS=${SNAP_ARGS---no-guest-buffers --no-vcpu-stacks}
ACCEL=${ACCEL:-tcg}
die() { echo "pause-bench: $*" >&2; exit 1; }
say() { echo "pause-bench: $*" >&2; }

[ "$(id -u)" = 0 ] || die "run me as root (libvirtd, /dev/shm, the libvirt hook)"
R=$(realpath "${RINGSIDE:-$build/cli/ringside}")
HOOK_PROGRAM=$(realpath "$build/hook/ringside-hook")
AGENT=$build/guest-agent/linux/ringside-agent
MARK=$build/guest-agent/mark-tool/ringside-mark
WORKLOAD=$build/tests/e2e/rs-workload
for f in "$R" "$HOOK_PROGRAM" "$AGENT" "$MARK" "$WORKLOAD"; do
	[ -x "$f" ] || die "no $f (build $build first: bash scripts/build.sh $build)"
done
lg_prereq || die "$LG_WHY"
case $ACCEL in
tcg) domtype=qemu ;;
kvm) domtype=kvm ;;
*) die "ACCEL: tcg or kvm, not '$ACCEL'" ;;
esac

DOM=rs-pause-$$
SHM=/dev/shm/ringside-$DOM
HOOK=/etc/libvirt/hooks/qemu.d/ringside
W='' DEFINED='' HOOKED='' EVPID=''
cleanup() {
	set +e
	[ -n "$EVPID" ] && kill "$EVPID" 2>/dev/null && wait "$EVPID" 2>/dev/null
	if [ -n "$DEFINED" ]; then
		vsh destroy "$DOM" >/dev/null 2>&1
		"$R" disable "$DOM" >/dev/null 2>&1
		vsh undefine "$DOM" >/dev/null 2>&1
	fi
	rm -f "$SHM" "/var/log/libvirt/qemu/$DOM.log"
	[ -n "$HOOKED" ] && "$R" hook uninstall >/dev/null 2>&1
	[ -n "$LG_LIBVIRTD_PID$LG_VIRTLOGD_PID" ] && lg_daemons_stop
	[ -n "$W" ] && rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

W=$(lg_workdir /tmp/rs-pause.XXXXXX)
if [ -e "$HOOK" ]; then
	grep -q "ringside libvirt hook" "$HOOK" || die "$HOOK is not ringside's"
else
	"$R" hook install --program "$HOOK_PROGRAM" --capture-dir "$W/captures" >/dev/null
	HOOKED=1
fi
lg_daemons_start "$W" || die "$LG_WHY"
export HOME=$W/home
mkdir -p "$HOME"
lg_initramfs "$W" "$AGENT" "$MARK" "$WORKLOAD" tests/e2e/guest_init.sh || die "$LG_WHY"
lg_domain_xml "$DOM" "$domtype" "$W" flight > "$W/domain.xml"
vsh define "$W/domain.xml" >/dev/null
DEFINED=1

# pages SIZE: 4 KiB pages of "256K", "64M"
pages() {
	case $1 in
	*K) echo $((${1%K} / 4)) ;;
	*M) echo $((${1%M} * 256)) ;;
	*) die "size $1: NK or NM" ;;
	esac
}

# event_gap: ms between the last Suspended and Resumed events in $W/events
event_gap() {
	python3 - "$W/events" <<'EOF'
import re, sys, datetime
t = {}
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+)\+0000: .*lifecycle.*: (Suspended|Resumed)", line)
    if m:
        t[m.group(2)] = datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S.%f")
if "Suspended" in t and "Resumed" in t and t["Resumed"] >= t["Suspended"]:
    print("%.3f" % ((t["Resumed"] - t["Suspended"]).total_seconds() * 1000))
else:
    print("null")
EOF
}

for size in $SIZES; do
	p=$(pages "$size")
	bytes=$((p * 4096))
	"$R" enable "$DOM" --data-pages "$p" >/dev/null
	rm -f "$W/console.log"
	vsh start "$DOM" >/dev/null
	say "$size per vCPU: started $DOM ($ACCEL), waiting for its workload"
	lg_wait_console "$W/console.log" "E2E-FLIGHT-WAIT" 300 ||
		{ lg_console_tail "$W/console.log" >&2; die "$LG_WHY"; }
	sleep 2   # the agent samples; the rings fill
	for rep in $(seq "$REPS"); do
		: > "$W/events"
		virsh -c "$LG_URI" event --domain "$DOM" --event lifecycle --loop \
			--timestamp > "$W/events" 2>/dev/null &
		EVPID=$!
		sleep 0.5  # its connection is up
		rc=0
		# shellcheck disable=SC2086  # SNAP_ARGS: words
		"$R" snapshot "$DOM" --stable $SNAP_ARGS \
			-o "$W/snap.data" > "$W/snap.out" 2>&1 || rc=$?
		# 3: written and whole, with a warning the summary says
		[ $rc = 0 ] || [ $rc = 3 ] ||
			{ cat "$W/snap.out" >&2; die "snapshot --stable failed ($rc)"; }
		[ $rc = 0 ] || { say "snapshot status $rc:"; grep warning "$W/snap.out" >&2; }
		sleep 0.5  # the Resumed event arrives
		kill "$EVPID" 2>/dev/null; wait "$EVPID" 2>/dev/null || true
		EVPID=''
		ev=$(event_gap)
		line=$(grep -o "paused the guest .*" "$W/snap.out" || true)
		python3 - "$bytes" "$rep" "$ev" "$ACCEL" "$line" <<'EOF'
import json, re, sys
bytes_, rep, ev, accel, line = sys.argv[1:6]
m = re.match(r"paused the guest ([0-9.]+) ms .*; ([0-9.]+) ms between the two answers, ([0-9.]+) ms of it copying", line)
print(json.dumps({"bench": "pause", "ring_bytes": int(bytes_), "rings": 2,
                  "rep": int(rep),
                  "pause_ms": float(m.group(1)) if m else None,
                  "inner_ms": float(m.group(2)) if m else None,
                  "copy_ms": float(m.group(3)) if m else None,
                  "event_ms": None if ev == "null" else float(ev),
                  "accel": accel}))
EOF
		rm -f "$W/snap.data"
	done
	vsh destroy "$DOM" >/dev/null
done

# The rate the rings must hold: the same guest in normal mode at the
# default ring size, `ringside record` draining it for RATE_S seconds.
# One JSON line per ring: samples and bytes per second, the mean record,
# and what was lost (docs/benchmarks.md, "How long the rings hold").
[ "$RATE_S" = 0 ] && exit 0
"$R" enable "$DOM" --mode normal >/dev/null
rm -f "$W/console.log"
vsh start "$DOM" >/dev/null
say "rate: started $DOM in normal mode (default ring), recording $RATE_S s"
lg_wait_console "$W/console.log" "E2E-FLIGHT-WAIT" 300 ||
	{ lg_console_tail "$W/console.log" >&2; die "$LG_WHY"; }
"$R" record "$DOM" -o "$W/rec.data" --duration "$RATE_S" > "$W/rec.out" 2>&1 ||
	{ cat "$W/rec.out" >&2; die "record failed"; }
vsh destroy "$DOM" >/dev/null
"$R" report "$W/rec.data" --json > "$W/rec.json"
python3 - "$W/rec.json" "$ACCEL" <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1]))
for r in rep["rings"]:
    span = r["span_ns"] / 1e9 if r["span_ns"] else 0
    samples = r["types"]["sample"]
    print(json.dumps({"bench": "rate", "ring": r["ring"],
                      "ring_bytes": r["host"]["data_size"],
                      "seconds": round(span, 3), "records": r["records"],
                      "samples": samples, "bytes": r["bytes"],
                      "samples_per_s": round(samples / span, 1) if span else None,
                      "bytes_per_s": round(r["bytes"] / span) if span else None,
                      "bytes_per_record": round(r["bytes"] / r["records"], 1) if r["records"] else None,
                      "lost": r["lost"], "lost_samples": r["lost_samples"],
                      "accel": sys.argv[2]}))
EOF
