#!/usr/bin/env bash
# The ringside VMM demo, end to end on /dev/kvm:
#   1. boot the freestanding guest agent with two vCPUs and record its rings
#      for a few seconds into a perf.data file (ringside run -o);
#   2. boot it again as a flight recorder (overwrite rings) that crashes with
#      a triple fault, and take a stable snapshot of it from another process
#      over the control socket (ringside snapshot --vm --stable);
#   3. print `ringside report` of both files.
# Exits non-zero if any step fails.  BUILD=DIR picks the build directory
# (default: build, configured and built if needed); the files stay in
# DEMO_DIR (default: a new directory under /tmp).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${BUILD:-build}

bash scripts/build.sh "$build"
R=$build/cli/ringside
PAYLOAD=$build/guest-agent/payload/ringside-guest-agent
if [ ! -e /dev/kvm ]; then
	echo "demo-vmm: no /dev/kvm here; the ringside VMM needs KVM" >&2
	exit 1
fi
dir=${DEMO_DIR:-$(mktemp -d /tmp/ringside-demo.XXXXXX)}
mkdir -p "$dir"
sock=$dir/vm.sock
vm=""
trap '[ -z "$vm" ] || kill "$vm" 2>/dev/null || true' EXIT

step() {
	printf '\n== %s\n' "$*"
}

step "1. two vCPUs record into $dir/record.data (normal rings of 512 KiB, a doorbell every 32 KiB)"
"$R" run "$PAYLOAD" --vcpus 2 --records 4000 --data-pages 128 --watermark 32768 --duration 30 \
	-o "$dir/record.data"

step "2. a flight recorder that crashes: overwrite rings, the guest triple-faults"
"$R" run "$PAYLOAD" --vcpus 2 --records 3000 --mode overwrite --workload crash \
	--control "$sock" >"$dir/vm.out" 2>&1 &
vm=$!
for _ in $(seq 600); do
	[ -S "$sock" ] && break
	kill -0 "$vm" 2>/dev/null || { cat "$dir/vm.out" >&2; exit 1; }
	sleep 0.05
done
# wait for the crash: the snapshot lists the vCPUs' states
for _ in $(seq 600); do
	"$R" snapshot --vm "$sock" -o "$dir/flight.data" >"$dir/probe.out"
	[ "$(grep -c 'shutdown (triple fault)' "$dir/probe.out")" = 2 ] && break
	sleep 0.05
done
grep -q 'shutdown (triple fault)' "$dir/probe.out" ||
	{ cat "$dir/probe.out" >&2; echo "demo-vmm: the guest never crashed" >&2; exit 1; }
"$R" snapshot --vm "$sock" --stable -o "$dir/flight.data"
kill -TERM "$vm"
wait "$vm"
vm=""
cat "$dir/vm.out"

step "3. ringside report $dir/record.data"
"$R" report "$dir/record.data"
step "   ringside report $dir/flight.data"
"$R" report "$dir/flight.data"
if command -v perf >/dev/null; then
	step "   perf report --stats -i $dir/record.data (the real perf reads it)"
	perf report -i "$dir/record.data" --stats 2>&1 | sed -n '/Aggregated/,$p'
fi
printf '\nThe files are in %s (perf script -i FILE, perf kvm --guest report -i FILE).\n' "$dir"
