#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The QEMU PT plugin against its ground truth, on a real Linux guest:
#
#   pt_qemu.sh PLUGIN CHECK GUEST_INIT
#
# Boots the Debian kernel from /boot with a busybox initramfs (GUEST_INIT
# as /init: a fixed workload, then poweroff) under qemu-system-x86_64
# -accel tcg with the plugin loaded in test mode (truth=), into a region
# file laid out by ring/ (CHECK layout).  After QEMU exits, CHECK reads the
# vCPU's AUX ring from the region file, decodes it against the truth
# file's code bytes and compares it with the truth instruction for
# instruction (see pt_qemu_check.c):
#   A. normal mode, 1 vCPU, a 4 MiB AUX ring that fills and stops: decoded
#      from the start, equal to the first instructions of the truth over at
#      least 1,000,000 instructions that include interrupts;
#   B. snapshot mode, 2 vCPUs (MTTCG threads), a 256 KiB AUX ring that
#      wraps many times: each vCPU's ring decodes from its last PSB and
#      equals the tail of that vCPU's truth; decoded from its first PSB,
#      at least 20,000 instructions equal the truth, with interrupts.
# Each run also checks the plugin's summary on stderr.  Nothing depends on
# timing: the guest powers itself off, however slowly it runs.
# Exit 77 only when qemu-system-x86_64 is absent.
# shellcheck disable=SC2015  # ok/bad never fail: A && ok || bad is if-else here
set -u

PLUGIN=$1 CHECK=$2 GUEST_INIT=$3
fails=0
ok()  { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

command -v qemu-system-x86_64 >/dev/null || { echo "SKIP: no qemu-system-x86_64"; exit 77; }
# shellcheck source=scripts/lib/libvirt-guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/libvirt-guest.sh"
LG_KERNEL=$(find /boot -maxdepth 1 -name 'vmlinuz-*' | sort -V | tail -n 1)
LG_BUSYBOX=$(command -v busybox)
if [ -z "$LG_KERNEL" ] || [ ! -r "$LG_KERNEL" ]; then
	echo "FAIL no kernel in /boot (scripts/setup.sh)"
	exit 1
fi
[ -n "$LG_BUSYBOX" ] || { echo "FAIL no busybox (scripts/setup.sh)"; exit 1; }

W=$(mktemp -d /tmp/rs-pt-qemu.XXXXXX)
cleanup() { if [ $fails = 0 ]; then rm -rf "$W"; else echo "work directory kept: $W"; fi; }
trap cleanup EXIT
lg_initramfs_pack "$W" "$GUEST_INIT" || { echo "FAIL $LG_WHY"; exit 1; }

# run NAME SMP PLUGIN-ARGS: boot to poweroff; the console in NAME.console,
# QEMU's stderr (the plugin's summary) in NAME.err.
run() {
	nice qemu-system-x86_64 -accel tcg -m 256 -smp "$2" -display none \
		-monitor none -no-reboot -serial "file:$W/$1.console" \
		-kernel "$W/vmlinuz" -initrd "$W/initrd.gz" \
		-append "console=ttyS0 quiet panic=-1" \
		-plugin "$PLUGIN,$3" > "$W/$1.out" 2> "$W/$1.err"
}

summary_ok() {
	local name=$1 ring=$2
	grep -q "^ringside-qemu-pt: vCPU $ring: [0-9]* packets, [0-9]* bytes, 0 lost, [0-9]* events" "$W/$name.err" &&
		! grep -q " [1-9][0-9]* errors;" "$W/$name.err"
}

# ---- A: normal mode ---------------------------------------------------------
"$CHECK" layout "$W/a.region" 1 1024 normal > /dev/null || bad "layout A"
if run a 1 "region=$W/a.region,truth=$W/a.truth,truth_max=16000000"; then
	grep -q PTQ-DONE "$W/a.console" && ok "A: the guest ran its workload and powered off" ||
		bad "A: guest console: $(tail -n 3 "$W/a.console")"
	grep "^ringside-qemu-pt: vCPU 0" "$W/a.err"
	grep -q "^ringside-qemu-pt: vCPU 0: .* [1-9][0-9]* lost, .*AUX normal, head 4194304;" "$W/a.err" &&
		ok "A: the AUX ring filled and stopped; the loss is counted" ||
		bad "A: summary: $(cat "$W/a.err")"
else
	bad "A: qemu: $(tail -n 5 "$W/a.err")"
fi
"$CHECK" check "$W/a.region" "$W/a.truth" 0 1000000 > "$W/a.check" 2>&1 &&
	ok "A: decode = truth from the start: $(grep aligned "$W/a.check")" ||
	{ bad "A: decode against the truth"; cat "$W/a.check"; }

# ---- B: snapshot mode, 2 vCPUs ------------------------------------------------
"$CHECK" layout "$W/b.region" 2 64 overwrite > /dev/null || bad "layout B"
if run b 2 "region=$W/b.region,truth=$W/b.truth,truth_max=8000000"; then
	grep -q PTQ-DONE "$W/b.console" && ok "B: the guest ran its workload and powered off" ||
		bad "B: guest console: $(tail -n 3 "$W/b.console")"
	grep "^ringside-qemu-pt: vCPU" "$W/b.err"
	for r in 0 1; do
		summary_ok b $r && grep -q "^ringside-qemu-pt: vCPU $r: .*AUX snapshot" "$W/b.err" &&
			ok "B: vCPU $r: nothing lost, no errors (snapshot mode overwrites)" ||
			bad "B: vCPU $r summary: $(cat "$W/b.err")"
	done
else
	bad "B: qemu: $(tail -n 5 "$W/b.err")"
fi
for r in 0 1; do
	"$CHECK" check "$W/b.region" "$W/b.truth" $r 20000 --last-psb > "$W/b$r.check" 2>&1 &&
		ok "B: vCPU $r: decode from the last PSB = the truth's tail: $(grep aligned "$W/b$r.check")" ||
		{ bad "B: vCPU $r: decode from the last PSB against the truth"; cat "$W/b$r.check"; }
	"$CHECK" check "$W/b.region" "$W/b.truth" $r 20000 > "$W/b$r.check" 2>&1 &&
		ok "B: vCPU $r: the whole wrapped ring from its first PSB = the truth: $(grep aligned "$W/b$r.check")" ||
		{ bad "B: vCPU $r: the wrapped ring against the truth"; cat "$W/b$r.check"; }
done

[ $fails = 0 ] && echo "PASS" || echo "$fails failed"
[ $fails = 0 ]
