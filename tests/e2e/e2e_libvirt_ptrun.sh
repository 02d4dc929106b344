#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Intel PT of a real Linux guest under QEMU TCG and libvirtd, with
# ringside's QEMU plugin (issue 15's first done-when point):
#
#   e2e_libvirt_ptrun.sh RINGSIDE AGENT MARK WORKLOAD GUEST_INIT HOOK PLUGIN
#
# `enable DOMAIN --trace samples,markers,pt --pt-plugin PLUGIN` (the build
# tree's plugin, 16 AUX pages a vCPU: a small flight recorder keeps the
# decode short), `virsh start`, then, once the guest's agent has published
# the kernel's symbols (E2E-KEY-WAIT on the console):
#   A. `snapshot DOMAIN`: the summary names the AUX bytes and the guest
#      kernel's code; `perf script --itrace=i0ns -F cpu,ip,sym` prints
#      kernel instructions, >= 95% of them named as the guest's own
#      /proc/kallsyms (printed on its console) names their address, and
#      no instruction trace error;
#      `ringside decode FILE` decodes instructions too, without errors
#   B. the guest panics (Alt-SysRq-C through virsh send-key; the domain
#      boots with sysrq_always_enabled, has a pvpanic device and
#      <on_crash>preserve</on_crash>: QEMU stops its vCPUs in panic()):
#      a second snapshot's PT, decoded by perf, has panic() among the
#      newest 20000 instructions of some vCPU: the flight recorder (the
#      region's default overwrite mode) holds the crash.
# Exit 77 when QEMU, libvirt, a kernel or perf is missing.
# shellcheck disable=SC2015  # ok/bad never fail: A && ok || bad is if-else here
set -u
# shellcheck source=scripts/lib/libvirt-guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/libvirt-guest.sh"
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

RINGSIDE=$1 AGENT=$2 MARK=$3 WORKLOAD=$4 GUEST_INIT=$5 HOOK_PROGRAM=$6 PLUGIN=$7
KCHECK=$(dirname "${BASH_SOURCE[0]}")/ksyms_check.py
DOM=rs-pti-$$
HOOK=/etc/libvirt/hooks/qemu.d/ringside
T0=$(date +%s)


e2e_need_own_libvirt

W=$(lg_workdir /tmp/rs-pti.XXXXXX)
DEFINED='' HOOKED=''
cleanup() {
	e2e_teardown
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# snap FILE: `snapshot DOMAIN -o FILE`, its summary in FILE.out
snap() {
	"$RINGSIDE" snapshot $DOM -o "$1" > "$1.out" 2>"$1.err"
	local rc=$?
	[ $rc = 0 ] || [ $rc = 3 ] || { bad "snapshot: status $rc: $(head -n 3 "$1.err")"; return 1; }
	local aux code
	aux=$(grep -m 1 -i "aux" "$1.out")
	code=$(grep -m 1 "guest kernel code:" "$1.out")
	note "snapshot: ${aux:-no AUX line}; $code"
	echo "$code" | grep -Eq 'guest kernel code: [1-9][0-9]* of' ||
		{ bad "snapshot read no guest kernel code: '$code'"; return 1; }
}

# pvpanic (a module in Debian's kernel): at panic() the guest tells QEMU,
# and <on_crash>preserve</on_crash> stops its vCPUs there, so the flight
# recorder ends at the crash however fast the guest runs (without it the
# panicked vCPU loops in panic()'s mdelay and overwrites the ring with
# delay_tsc)
PVDIR=/lib/modules/$(basename "$LG_KERNEL" | sed 's/^vmlinuz-//')/kernel/drivers/misc/pvpanic
mkdir -p "$W/root/lib/modules"
cp "$PVDIR/pvpanic.ko" "$W/root/lib/modules/1-pvpanic.ko" &&
	cp "$PVDIR/pvpanic-mmio.ko" "$W/root/lib/modules/2-pvpanic-mmio.ko" ||
	{ bad "no pvpanic modules in $PVDIR (linux-image-amd64 has them)"; exit 1; }
lg_initramfs "$W" "$AGENT" "$MARK" "$WORKLOAD" "$GUEST_INIT" || { bad "$LG_WHY"; exit 1; }
"$RINGSIDE" hook install --program "$HOOK_PROGRAM" >/dev/null || { bad "hook install"; exit 1; }
HOOKED=1
lg_daemons_start "$W" || { bad "$LG_WHY"; exit 1; }
export HOME=$W/home PERF_CONFIG=/dev/null
mkdir -p "$HOME"
# sysrq_always_enabled: Debian's kernel.sysrq (438) leaves out the crash key
lg_domain_xml $DOM qemu "$W" normal |
	sed -e 's/rs_e2e=normal/rs_e2e=normal sysrq_always_enabled/' \
	    -e 's|</on_poweroff>|&<on_crash>preserve</on_crash>|' \
	    -e "s|<devices>|&<panic model='isa'/>|" > "$W/domain.xml"
vsh define "$W/domain.xml" >/dev/null || { bad "virsh define"; exit 1; }
DEFINED=1
"$RINGSIDE" enable $DOM --trace samples,markers,pt --aux-pages 16 \
	--pt-plugin "$PLUGIN" > "$W/enable.out" 2>&1 &&
	ok "enable --trace pt: $(grep -m 1 'PT:' "$W/enable.out")" ||
	{ bad "enable --trace pt: $(cat "$W/enable.out")"; exit 1; }
note "start (TCG, the plugin traces the kernel)"
vsh start $DOM > "$W/start.out" 2>&1 ||
	{ bad "virsh start: $(cat "$W/start.out")"; tail -n 20 /var/log/libvirt/qemu/$DOM.log; exit 1; }
ok "QEMU started under libvirt with the plugin"
# the workload ran, the agent is attached and has published the symbols
LG_PROGRESS=60 lg_wait_console "$W/console.log" E2E-KEY-WAIT 900 ||
	{ bad "$LG_WHY"; lg_console_tail "$W/console.log"; exit 1; }
grep "^ringside-qemu-pt:" /var/log/libvirt/qemu/$DOM.log | head -n 5 | sed 's/^/--   QEMU log: /'

# ---- A: a live guest's kernel, instruction by instruction ---------------------
snap "$W/a.data" || exit 1
perf script -i "$W/a.data" --itrace=i0ns -F cpu,ip,sym 2>"$W/a.perr" |
	python3 "$KCHECK" itrace "$W/console.log" - 95 > "$W/a.itrace" &&
	ok "perf script --itrace=i0ns: $(head -n 1 "$W/a.itrace")" ||
	{ bad "perf script --itrace=i0ns: $(head -n 1 "$W/a.itrace")"; tail -n +2 "$W/a.itrace"; head -n 5 "$W/a.perr"; }
sed -n 2p "$W/a.itrace"
"$RINGSIDE" decode "$W/a.data" > "$W/a.dec" 2>&1
rc=$?
sum=$(grep -m 1 "^summary:" "$W/a.dec")
[ $rc = 0 ] && echo "$sum" | grep -Eq '^summary: [1-9][0-9]* instructions, .* 0 errors;' &&
	ok "ringside decode: $sum" || { bad "ringside decode: status $rc: ${sum:-$(tail -n 3 "$W/a.dec")}"; }

# ---- B: the crash, from the flight recorder -----------------------------------
vsh send-key $DOM KEY_LEFTALT KEY_SYSRQ KEY_C >/dev/null || bad "virsh send-key Alt-SysRq-C"
for _ in $(seq 1500); do
	state=$(vsh domstate --reason $DOM 2>/dev/null)
	case $state in crashed*) break ;; esac
	sleep 0.2
done
case $state in
crashed*) ok "the guest kernel panicked (Alt-SysRq-C); pvpanic: domain $state" ;;
*) bad "no crash after Alt-SysRq-C: domain $state"; lg_console_tail "$W/console.log" ;;
esac
snap "$W/b.data" || exit 1
perf script -i "$W/b.data" --itrace=i0ns -F cpu,ip,sym 2>"$W/b.perr" |
	python3 "$KCHECK" itrace-last - 20000 panic > "$W/b.last" &&
	ok "after the panic: $(tail -n 1 "$W/b.last")" ||
	bad "after the panic: $(tail -n 1 "$W/b.last")"
head -n -1 "$W/b.last" | sed 's/^/     /'

echo "$fails failure(s)"
[ $fails = 0 ]
