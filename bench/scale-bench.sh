#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# ringside's own VMM at 48, 256 and 1024 vCPUs, a ring each
# (docs/benchmarks.md, "Many rings"):
#
#   bench/scale-bench.sh [BUILD] [--guest|--guest-only]   (BUILD default: build)
#
# For each count N: `ringside run --control` boots N vCPUs writing
# RECORDS/N records each into rings of the data pages the default memory
# budget gives N rings (64, 32, 8: `ringside enable`'s dom_cfg_fit); a
# `ringside record --vm` drains them all, its CPU time measured
# (getrusage through /usr/bin/time); REPS stable snapshots are taken while
# the guest writes. One JSON line per count on stdout:
#
#   {"bench":"scale","rings":N,"records":R,"lost":L,"record_cpu_s":C,
#    "cpu_s_per_mrec":X,"pause_ms":[...],"region_bytes":B,"rss_kb":K}
#
# record_cpu_s is the consumer's user + system time over the whole run
# (its passes while the slow emulated guest writes, not only copying);
# region_bytes is the VMM's region (no sideband); rss_kb record's peak.
#
#   RECORDS=200000   records in all, split over the vCPUs
#   REPS=3           stable snapshots a count
#   COUNTS="48 256 1024"
#
# --guest adds (--guest-only: alone) a Linux guest under libvirtd and QEMU
# TCG at each of GUEST_COUNTS (default "64 255"; q35 of QEMU 7.2 under TCG
# starts at most 255) vCPUs: the e2e test tests/e2e/e2e_libvirt_wide.sh
# at that count (a busy loop per CPU, the agent on every ring, a stable
# snapshot with every vCPU's stack), under the e2e lock (RS_E2E_LOCK,
# default /tmp/ringside-e2e.lock); root, and no libvirtd of anyone else's.
# One JSON line a count:
#
#   {"bench":"scale-guest","vcpus":N,"pass":true,"boot_s":B,"startup_s":S,
#    "rss_kb":K,"hwm_kb":H,"rss_steady_kb":K2,"hwm_steady_kb":H2,
#    "rings_s":R,"snapshot_s":P,"test_s":T}
#
# boot_s: host seconds from `virsh start` to the agent attached;
# startup_s: the agent's own start to its "attached", in the guest's
# clock; rss_kb/hwm_kb: its VmRSS/VmHWM at attach, *_steady_kb after the
# busy phase; rings_s: until each ring held its CPU's records;
# snapshot_s: the stable snapshot with every vCPU's stack; test_s: all.
#   GUEST_MEM=MIB    the guest's memory (default 256 up to 64 vCPUs, 512 above)
#   GUEST_PAGES=N    data pages a ring (default 256 up to 64 vCPUs, 64 above)
set -eu
BUILD=build GUEST=0 VMM=1
for a in "$@"; do
	case $a in
	--guest) GUEST=1 ;;
	--guest-only) GUEST=1 VMM=0 ;;
	-*) echo "usage: $0 [BUILD] [--guest|--guest-only]" >&2; exit 2 ;;
	*) BUILD=$a ;;
	esac
done
R=$BUILD/cli/ringside
P=$BUILD/guest-agent/payload/ringside-guest-agent
RECORDS=${RECORDS:-200000}
REPS=${REPS:-3}
COUNTS=${COUNTS:-"48 256 1024"}
W=$(mktemp -d /tmp/scale-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
[ -x "$R" ] && [ -f "$P" ] || { echo "build $BUILD first" >&2; exit 1; }

pages_for() {   # the default budget's data pages (docs/operator-guide.md)
	if [ "$1" -le 236 ]; then echo 64; elif [ "$1" -le 512 ]; then echo 32
	else echo 8; fi
}

guest_part() {
	local n top out line b
	top=$(cd "$(dirname "$0")/.." && pwd)
	b=$(cd "$BUILD" && pwd)
	for n in ${GUEST_COUNTS:-64 255}; do
		out=$W/guest-$n.out
		echo "scale: a Linux guest of $n vCPUs (TCG), tests/e2e/e2e_libvirt_wide.sh" >&2
		RS_E2E_WIDE_VCPUS=$n \
		RS_E2E_WIDE_MEM=${GUEST_MEM:-$([ "$n" -le 64 ] && echo 256 || echo 512)} \
		RS_E2E_WIDE_PAGES=${GUEST_PAGES:-$([ "$n" -le 64 ] && echo 256 || echo 64)} \
			flock "${RS_E2E_LOCK:-/tmp/ringside-e2e.lock}" \
			bash "$top/tests/e2e/e2e_libvirt_wide.sh" "$b/cli/ringside" \
			"$b/guest-agent/linux/ringside-agent" \
			"$b/guest-agent/mark-tool/ringside-mark" \
			"$b/tests/e2e/rs-workload" "$b/hook/ringside-hook" \
			>"$out" 2>&1 && pass=true || pass=false
		grep -E '^(FAIL|SKIP)|agent (start-up|memory)|host seconds' "$out" | sed 's/^/scale:   /' >&2
		line=$(sed -n 's/.*MEASURE //p' "$out" | tail -n 1)
		printf '{"bench":"scale-guest","vcpus":%s,"pass":%s' "$n" "$pass"
		for kv in $line; do
			[ "${kv%%=*}" = vcpus ] || printf ',"%s":%s' "${kv%%=*}" "${kv#*=}"
		done
		printf '}\n'
	done
}

[ "$VMM" = 1 ] || { guest_part; exit 0; }
for n in $COUNTS; do
	per=$((RECORDS / n))
	pages=$(pages_for "$n")
	rm -f "$W/vm.sock"
	"$R" run "$P" --vcpus "$n" --records "$per" --data-pages "$pages" \
		--control "$W/vm.sock" >"$W/vm.out" 2>"$W/vm.err" &
	vm=$!
	for _ in $(seq 1500); do [ -S "$W/vm.sock" ] && break; sleep 0.02; done
	/usr/bin/time -f "%U %S %M" -o "$W/rec.time" \
		"$R" record --vm "$W/vm.sock" -o "$W/rec.data" >"$W/rec.out" 2>&1 &
	rec=$!
	pauses=""
	for i in $(seq "$REPS"); do
		sleep 1
		"$R" snapshot --vm "$W/vm.sock" --stable -o "$W/s$i.data" >"$W/s$i.out" 2>&1 || true
		ms=$(sed -n 's/.*paused the guest \([0-9.]*\) ms.*/\1/p' "$W/s$i.out")
		pauses="$pauses${pauses:+,}${ms:-null}"
		echo "scale: $n rings, snapshot $i: ${ms:-?} ms" >&2
	done
	# record ends once every vCPU stopped and its rings are drained
	wait "$rec" || true
	kill -TERM "$vm" 2>/dev/null; wait "$vm" || true
	"$R" report "$W/rec.data" --json >"$W/rep.json"
	recs=$(jq '[.rings[].types | .seq + .sample + .marker + .aux] | add' "$W/rep.json")
	lost=$(jq '[.rings[].lost] | add' "$W/rep.json")
	read -r u s m <"$W/rec.time"
	size=$(awk -v n="$n" -v p="$pages" 'BEGIN {
		t = n > 48 ? int(((n - 48) * 64 + 4095) / 4096) * 4096 : 0
		c = 4096 + t + n * 4096; d = p * 4096
		c = int((c + d - 1) / d) * d; e = c + n * d; r = 4096
		while (r < e) r *= 2; print r }')
	printf '{"bench":"scale","rings":%s,"records":%s,"lost":%s,"record_cpu_s":%s,"cpu_s_per_mrec":%s,"pause_ms":[%s],"region_bytes":%s,"rss_kb":%s}\n' \
		"$n" "$recs" "$lost" "$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')" \
		"$(awk -v u="$u" -v s="$s" -v r="$recs" 'BEGIN { printf "%.3f", (u + s) * 1e6 / r }')" \
		"$pauses" "$size" "$m"
done
[ "$GUEST" = 0 ] || guest_part
