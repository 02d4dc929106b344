#!/bin/bash
# SPDX-License-Identifier: MIT
#
# What the QEMU PT plugin costs a Linux guest under TCG (docs/benchmarks.md):
#
#   bench/qemu-pt-bench.sh BUILD [RUNS]
#
# Boots the Debian kernel from /boot with the pt-qemu test's initramfs
# (tests/pt-qemu/guest_init.sh: boot, a fixed workload, poweroff) RUNS
# times (default 2) each way, alternating: without the plugin, and with
# it (filter=kernel, 4 MiB snapshot-mode AUX ring: the flight recorder,
# never stopped by a full ring).  Prints the median wall time of each and
# their ratio, and from the plugin's summary the trace bytes per million
# traced instructions.  A benchmark, not a test: nothing is asserted.
set -eu

BUILD=$1 RUNS=${2:-2}
top=$(cd "$(dirname "$0")/.." && pwd)
PLUGIN=$BUILD/pt-virt/qemu/ringside-qemu-pt.so
CHECK=$BUILD/tests/pt-qemu/pt-qemu-check
if [ ! -f "$PLUGIN" ] || [ ! -x "$CHECK" ]; then
	echo "build $BUILD first (with the plugin)" >&2
	exit 1
fi
# shellcheck source=scripts/lib/libvirt-guest.sh
. "$top/scripts/lib/libvirt-guest.sh"
# shellcheck disable=SC2034  # LG_KERNEL, LG_BUSYBOX: read by lg_initramfs_pack
LG_KERNEL=$(find /boot -maxdepth 1 -name 'vmlinuz-*' | sort -V | tail -n 1)
# shellcheck disable=SC2034
LG_BUSYBOX=$(command -v busybox)
W=$(mktemp -d /tmp/rs-pt-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
lg_initramfs_pack "$W" "$top/tests/pt-qemu/guest_init.sh" || { echo "$LG_WHY" >&2; exit 1; }

boot() {   # boot EXTRA-ARGS...: seconds from start to QEMU's exit
	local t0 t1
	t0=$(date +%s.%N)
	qemu-system-x86_64 -accel tcg -m 256 -smp 1 -display none -monitor none \
		-no-reboot -serial "file:$W/console" -kernel "$W/vmlinuz" \
		-initrd "$W/initrd.gz" -append "console=ttyS0 quiet panic=-1" \
		"$@" > /dev/null 2> "$W/err"
	t1=$(date +%s.%N)
	grep -q PTQ-DONE "$W/console" || { echo "the guest did not finish" >&2; exit 1; }
	awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
}
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

: > "$W/plain" ; : > "$W/pt"
for _ in $(seq "$RUNS"); do
	boot >> "$W/plain"
	"$CHECK" layout "$W/region" 1 1024 overwrite > /dev/null
	boot -plugin "$PLUGIN,region=$W/region" >> "$W/pt"
	grep '^ringside-qemu-pt: ' "$W/err" > "$W/summary"
done
plain=$(median < "$W/plain") pt=$(median < "$W/pt")
bytes=$(sed -n 's/^ringside-qemu-pt: total: [0-9]* packets, \([0-9]*\) bytes.*/\1/p' "$W/summary")
insns=$(sed -n 's/.* ~\([0-9]*\) traced instructions$/\1/p' "$W/summary")
echo "boot + workload + poweroff, TCG, 1 vCPU, $RUNS runs each (median)"
printf 'without the plugin  %8.1f s\n' "$plain"
printf 'with the plugin     %8.1f s   (%.2fx)\n' "$pt" "$(awk -v a="$pt" -v b="$plain" 'BEGIN { print a / b }')"
printf 'trace               %s bytes for %s traced instructions: %.0f bytes per million\n' \
	"$bytes" "$insns" "$(awk -v a="$bytes" -v b="$insns" 'BEGIN { print a * 1000000 / b }')"
cat "$W/summary"
