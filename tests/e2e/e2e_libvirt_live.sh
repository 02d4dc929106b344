#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Opting a running guest in and out, under a real libvirtd and QEMU (TCG):
#
#   e2e_libvirt_live.sh RINGSIDE AGENT MARK WORKLOAD GUEST_INIT_LIVE HOOK
#
# The guest boots with no ringside device and `ringside-agent --follow`
# running (guest_init_live.sh).  Then, without a restart:
#  - `enable --live`: the region file is laid out, the device appears in
#    the guest, the agent attaches, records flow (stat DOMAIN: the agent
#    attached and its rings' heads moving; a snapshot holds a marker the
#    guest wrote after the plug); the device is in the persistent XML too;
#  - `disable --live`: the device leaves the guest's /sys/bus/pci/devices,
#    the agent says it detached and waits for the next device, the region
#    file and the live metadata are gone, the persistent XML is clean;
#  - `enable --live-only` again: the same agent attaches again; the
#    persistent XML is left alone; then `disable --live-only`;
#  - a hot-plug QEMU cannot take (a q35 domain with no free PCI slot):
#    status 1 and libvirt's reason, and nothing changed: the persistent XML
#    is byte for byte as before, no live metadata, no region file.
# Exit 77 when QEMU, libvirt or a kernel is missing.
# shellcheck disable=SC2015  # ok/bad never fail: A && ok || bad is if-else here
set -u
# shellcheck source=scripts/lib/libvirt-guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/libvirt-guest.sh"
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

RINGSIDE=$1 AGENT=$2 MARK=$3 WORKLOAD=$4 GUEST_INIT=$5 HOOK_PROGRAM=$6
DOM=rs-live-$$
DOM2=rs-live-refuse-$$
SHM=/dev/shm/ringside-$DOM
HOOK=/etc/libvirt/hooks/qemu.d/ringside

e2e_need_own_libvirt

W=$(lg_workdir /tmp/rs-live.XXXXXX)
DEFINED='' HOOKED='' DEFINED2=''
cleanup() {
	if [ -n "$DEFINED2" ]; then
		vsh destroy "$DOM2" >/dev/null 2>&1
		vsh undefine "$DOM2" >/dev/null 2>&1
	fi
	e2e_teardown
	rm -f "$SHM" "/dev/shm/ringside-$DOM2"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# heads: the rings' data_head in stat DOMAIN, one line (overwrite mode
# writes backward: they move down)
heads() {
	"$RINGSIDE" stat "$DOM" 2>/dev/null |
		awk '$2 == "overwrite" || $2 == "normal" { printf "%s ", $3 }'
}

e2e_prepare
lg_domain_xml "$DOM" qemu "$W" live > "$W/domain.xml"
vsh define "$W/domain.xml" >/dev/null || { bad "virsh define"; exit 1; }
DEFINED=1
vsh start "$DOM" >/dev/null || { bad "virsh start"; exit 1; }
note "booting $DOM (TCG) with no ringside device"
wait_console "waiting for a ringside device" 300 || exit 1
console_wait_nth "E2E-IVSHMEM \[ \]" 1 30 || exit 1
ok "guest up, agent waiting, no ivshmem device: $(console_nth 'waiting for a ringside' 1 | cut -c 1-90)"
AGENT_WAITS=$(console_count "waiting for a ringside device")

# ---- enable --live ---------------------------------------------------------------
"$RINGSIDE" disable "$DOM" --live > "$W/out" 2>&1
[ $? = 0 ] && grep -q "had no ringside device" "$W/out" &&
	ok "disable --live of a guest with no device: status 0, said so" ||
	{ bad "disable --live with no device"; cat "$W/out"; }
t0=$(date +%s.%N)
"$RINGSIDE" enable "$DOM" --live --data-pages 64 --freq 100 --sideband-pages 0 > "$W/out" 2>&1 ||
	{ bad "enable --live: $(cat "$W/out")"; exit 1; }
note "enable --live: $(sed -n 2p "$W/out" | cut -c 1-90)"
st=$(stat -c '%U %G %a' "$SHM" 2>/dev/null)
[ "$st" = "root libvirt-qemu 660" ] && ok "region file laid out: $SHM $st" ||
	bad "region file: '$st'"
vsh dumpxml --inactive "$DOM" | grep -q "<shmem name='ringside-$DOM' role='master'>" &&
	vsh metadata "$DOM" https://ringside.dev/xmlns/1 --config >/dev/null 2>&1 &&
	ok "device and metadata in the persistent XML too" || bad "persistent XML without ringside"
vsh dumpxml "$DOM" | grep -q "<shmem name='ringside-$DOM' role='master'>" &&
	ok "device in the running domain's XML" || bad "no device in the live XML"
console_wait_nth "E2E-IVSHMEM \[ [0-9]" 1 60 || exit 1
BDF=$(console_nth "E2E-IVSHMEM \[ [0-9]" 1 | sed 's/.*\[ \([^ ]*\) .*/\1/')
ok "device $BDF in the guest's /sys/bus/pci/devices"
console_wait_nth "attached to the region on $BDF" 1 60 || exit 1
console_wait_nth "E2E-MARK" 1 60 || exit 1
t1=$(date +%s.%N)
M1=$(console_nth "E2E-MARK" 1 | sed 's/.*E2E-MARK \([0-9]*\).*/\1/')
ok "agent attached, no restart; first marker 'live $M1' in the ring $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s (host) after enable --live ($(console_nth E2E-MARK 1 | cut -d' ' -f3))"
"$RINGSIDE" stat "$DOM" > "$W/stat1" 2>&1
grep -q "agent attached (kind 2" "$W/stat1" && ok "stat $DOM: agent attached" ||
	{ bad "stat: agent not attached"; cat "$W/stat1"; }
"$RINGSIDE" snapshot "$DOM" -o "$W/live.data" -q > /dev/null 2>&1
rc=$?
"$RINGSIDE" dump "$W/live.data" > "$W/dump" 2>&1
# the newest "live N" marker in the flight recorder: N >= M1
last=$(grep -o 'marker .*"live [0-9]*"' "$W/dump" | sed 's/.*"live \([0-9]*\)"/\1/' | sort -n | tail -n 1)
[ $rc -le 3 ] && [ -n "$last" ] && [ "$last" -ge "$M1" ] &&
	ok "snapshot holds the guest's marker 'live $last' and $(grep -c ' sample ' "$W/dump") samples" ||
	{ bad "snapshot (status $rc): newest marker 'live ${last:-none}', want >= $M1"; tail -n 5 "$W/dump"; }
h1=$(heads)
for _ in $(seq 150); do [ "$(heads)" != "$h1" ] && break; sleep 0.2; done
h2=$(heads)
[ "$h2" != "$h1" ] && ok "records flow: the rings' heads moved ($h1-> $h2)" ||
	bad "the rings' heads stood at $h1 for 30 s"

# ---- disable --live --------------------------------------------------------------
t0=$(date +%s.%N)
"$RINGSIDE" disable "$DOM" --live > "$W/out" 2>&1 ||
	{ bad "disable --live: $(cat "$W/out")"; exit 1; }
note "$(head -n 1 "$W/out")"
console_wait_nth "E2E-IVSHMEM \[ \]" 2 60 &&
	ok "device gone from the guest's /sys/bus/pci/devices" || exit 1
console_wait_nth "device $BDF went away" 1 30 &&
	ok "agent detached: $(console_nth "device $BDF went away" 1 | sed 's/.*(\([^)]*\)).*/\1/'): $(console_nth "device $BDF went away" 1 | sed 's/.*detached: //' | cut -c 1-100)" ||
	exit 1
console_wait_nth "waiting for a ringside device" $((AGENT_WAITS + 1)) 30 &&
	ok "the same agent waits for the next device" || exit 1
grep -q "Bus error\|Segmentation\|E2E-FAIL" "$W/console.log" &&
	bad "a crash on the console" || ok "no crash on the console"
[ -e "$SHM" ] && bad "$SHM left behind" || ok "region file removed"
vsh dumpxml "$DOM" | grep -q "ringside" && bad "ringside left in the live XML" ||
	ok "no ringside device or metadata in the running domain"
vsh dumpxml --inactive "$DOM" | grep -q "ringside" && bad "ringside left in the persistent XML" ||
	ok "no ringside in the persistent XML"
"$RINGSIDE" stat "$DOM" > /dev/null 2>&1 && bad "stat $DOM still finds a region" ||
	ok "stat $DOM: not enabled any more"

# ---- enable --live-only: the same agent again --------------------------------------
vsh dumpxml --inactive "$DOM" > "$W/inactive.before"
"$RINGSIDE" enable "$DOM" --live-only --data-pages 64 --freq 100 --sideband-pages 0 > "$W/out" 2>&1 ||
	{ bad "enable --live-only: $(cat "$W/out")"; exit 1; }
console_wait_nth "attached to the region on" 2 60 &&
	ok "second plug: the agent attached again ($(grep -c 'attached to the region' "$W/console.log") attachments, one agent)" ||
	exit 1
vsh dumpxml --inactive "$DOM" | cmp -s - "$W/inactive.before" &&
	ok "--live-only left the persistent XML as it was" || bad "--live-only changed the persistent XML"
# the guest's device watcher saw it too (it polls; a slow guest may see
# the agent attach first): only then is its going away a change it shows
console_wait_nth "E2E-IVSHMEM \[ [0-9]" 2 60 || exit 1
"$RINGSIDE" disable "$DOM" --live-only > "$W/out" 2>&1 && [ ! -e "$SHM" ] &&
	console_wait_nth "E2E-IVSHMEM \[ \]" 3 60 && ok "disable --live-only: unplugged" ||
	{ bad "disable --live-only: $(cat "$W/out")"; }

# ---- a hot-plug QEMU cannot take: nothing changes ------------------------------------
cat > "$W/refuse.xml" <<EOF
<domain type='qemu'>
  <name>$DOM2</name>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='q35'>hvm</type></os>
  <on_poweroff>destroy</on_poweroff>
  <devices><memballoon model='none'/></devices>
</domain>
EOF
vsh define "$W/refuse.xml" >/dev/null && DEFINED2=1 && vsh start "$DOM2" >/dev/null ||
	{ bad "a q35 domain with no free slot: define/start"; exit 1; }
vsh dumpxml --inactive "$DOM2" > "$W/refuse.before"
"$RINGSIDE" enable "$DOM2" --live > "$W/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "cannot hot-plug the <shmem> device" "$W/out" &&
	ok "refused hot-plug: status 1: $(grep -m1 'cannot' "$W/out" | cut -c 1-150)" ||
	{ bad "enable --live into a q35 domain with no free slot: status $rc"; cat "$W/out"; }
vsh dumpxml --inactive "$DOM2" | cmp -s - "$W/refuse.before" &&
	ok "refused hot-plug: the persistent XML is as before" || bad "the persistent XML changed"
vsh metadata "$DOM2" https://ringside.dev/xmlns/1 --live >/dev/null 2>&1 &&
	bad "live metadata left" || ok "refused hot-plug: no live metadata"
[ -e "/dev/shm/ringside-$DOM2" ] && bad "region file left" || ok "refused hot-plug: no region file"

echo "$fails failure(s)"
[ $fails = 0 ]
