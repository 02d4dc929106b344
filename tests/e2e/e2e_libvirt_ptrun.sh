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
#      region's default overwrite mode) holds the crash; and the other
#      vCPU's trace reaches stop_this_cpu, where Linux parks a CPU at a
#      panic (the plugin flushes a vCPU that halts for good).
#   C. `record`, against the plugin's truth: the domain again with one
#      vCPU, the AUX ring in normal mode (32 pages) and the plugin's test
#      arguments (truth=, every instruction it traced; wait=, a vCPU
#      waits for AUX room instead of losing packets once a consumer has
#      drained).  Its ring filled while the guest booted; `record DOMAIN`
#      drains it and caches the kernel's code while the domain runs (it
#      says so; its summary names that read, the domain being gone at
#      its end); once aux_tail moved, a key lets the guest crash itself
#      (echo c > /proc/sysrq-trigger); the domain is destroyed, so the
#      plugin ends the trace and writes the truth; then record stops.
#      perf script --itrace=i0nse: after the overflow that ends the boot's
#      part, >= 95% of the kernel instructions are named as the guest's
#      kallsyms says, and pt-qemu-check ips holds them against the truth:
#      every one the truth's next, the counts equal but for the last
#      block (docs/testing.md).
# Exit 77 when QEMU, libvirt, a kernel or perf is missing.
# shellcheck disable=SC2015  # ok/bad never fail: A && ok || bad is if-else here
set -u
# shellcheck source=scripts/lib/libvirt-guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/libvirt-guest.sh"
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

RINGSIDE=$1 AGENT=$2 MARK=$3 WORKLOAD=$4 GUEST_INIT=$5 HOOK_PROGRAM=$6 PLUGIN=$7
PTCHECK=$8
KCHECK=$(dirname "${BASH_SOURCE[0]}")/ksyms_check.py
DOM=rs-pti-$$
HOOK=/etc/libvirt/hooks/qemu.d/ringside
T0=$(date +%s)


e2e_need_own_libvirt

W=$(lg_workdir /tmp/rs-pti.XXXXXX)
DEFINED='' HOOKED='' REC='' C_FAILS0=''
# c_evidence: what a failed part C needs to be understood where its work
# directory is gone (a CI log): the plugin's and record's summaries and
# the guest's console since it waited for the key
c_evidence() {
	echo "--   C, the plugin's summary (QEMU's log, at its exit):"
	grep "^ringside-qemu-pt: \(vCPU\|total\)" "/var/log/libvirt/qemu/$DOM.log" |
		tail -n 2 | sed 's/^/     /'
	echo "--   C, record's output:"
	sed 's/^/     /' "$W/c/rec.out" 2>/dev/null
	tail -n 5 "$W/c/rec.err" 2>/dev/null | sed 's/^/     stderr: /'
	echo "--   C, the console since E2E-PT-WAIT:"
	tr -d '\r' < "$W/c/console.log" 2>/dev/null | sed -n '/E2E-PT-WAIT/,$p' |
		tail -n 20 | sed 's/^/     /'
}
cleanup() {
	[ -n "$REC" ] && kill -TERM "$REC" 2>/dev/null && wait "$REC"
	[ -n "$C_FAILS0" ] && [ "$fails" -gt "$C_FAILS0" ] && c_evidence
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
e2e_pvpanic
e2e_prepare
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
perf --buildid-dir "$(rs_cache "$W/a.data")" script -i "$W/a.data" \
	--itrace=i0ns -F cpu,ip,sym 2>"$W/a.perr" |
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
e2e_wait_crashed &&
	ok "the guest kernel panicked (Alt-SysRq-C); pvpanic: domain $STATE" ||
	{ bad "no crash after Alt-SysRq-C: domain $STATE"; lg_console_tail "$W/console.log"; }
snap "$W/b.data" || exit 1
perf --buildid-dir "$(rs_cache "$W/b.data")" script -i "$W/b.data" \
	--itrace=i0ns -F cpu,ip,sym 2>"$W/b.perr" |
	python3 "$KCHECK" itrace-last - 20000 panic > "$W/b.last" &&
	ok "after the panic: $(tail -n 1 "$W/b.last")" ||
	bad "after the panic: $(tail -n 1 "$W/b.last")"
head -n -1 "$W/b.last" | sed 's/^/     /'
perf --buildid-dir "$(rs_cache "$W/b.data")" script -i "$W/b.data" \
	--itrace=i0ns -F cpu,ip,sym 2>/dev/null |
	python3 "$KCHECK" itrace-last - 20000 stop_this_cpu > "$W/b.stop" &&
	ok "after the panic, the other vCPU: $(tail -n 1 "$W/b.stop")" ||
	bad "after the panic, the other vCPU: $(tail -n 1 "$W/b.stop")"

# ---- C: record, against the plugin's truth ----------------------------------
note "C: one vCPU, normal-mode AUX, the plugin with truth= and wait="
C_FAILS0=$fails   # a failure from here on prints c_evidence at the end
vsh destroy $DOM >/dev/null 2>&1
mkdir -p "$W/c" && chmod 1777 "$W/c"     # QEMU (libvirt-qemu) writes the truth
# the domain as libvirt has it (its UUID, ringside's metadata), changed
vsh dumpxml --inactive $DOM |
	sed -e "s|<vcpu placement='static'>2</vcpu>|<vcpu placement='static'>1</vcpu>|" \
	    -e 's|<vcpu>2</vcpu>|<vcpu>1</vcpu>|' -e 's/rs_e2e=normal/rs_e2e=ptrec/' \
	    -e "s|$W/console.log|$W/c/console.log|" > "$W/c/domain.xml"
vsh define "$W/c/domain.xml" > "$W/c/define.out" 2>&1 ||
	{ bad "C: virsh define: $(cat "$W/c/define.out")"; exit 1; }
"$RINGSIDE" enable $DOM --trace samples,markers,pt --mode normal --aux-pages 32 \
	--pt-plugin "$PLUGIN" > "$W/c/enable.out" 2>&1 ||
	{ bad "C: enable: $(cat "$W/c/enable.out")"; exit 1; }
# the plugin's test arguments, after the ones enable wrote
vsh dumpxml $DOM | sed "s|filter=kernel|&,wait=120,truth=$W/c/truth,truth_max=16777216|" \
	> "$W/c/test.xml"
grep -q "truth=$W/c/truth" "$W/c/test.xml" || { bad "C: no plugin argument to extend"; exit 1; }
vsh define "$W/c/test.xml" > "$W/c/define.out" 2>&1 ||
	{ bad "C: virsh define (truth): $(cat "$W/c/define.out")"; exit 1; }
vsh start $DOM > "$W/c/start.out" 2>&1 ||
	{ bad "C: virsh start: $(cat "$W/c/start.out")"; exit 1; }
LG_PROGRESS=60 lg_wait_console "$W/c/console.log" E2E-PT-WAIT 900 ||
	{ bad "C: $LG_WHY"; lg_console_tail "$W/c/console.log"; exit 1; }
# record reads the guest kernel's code into the build-id cache as it
# begins, while the domain is there (at its end this domain is gone), and
# says so: the domain is destroyed only after that line (it reads on
# while the crashed guest is paused, so the trace does not grow)
"$RINGSIDE" record $DOM -o "$W/c/rec.data" --interval 5 > "$W/c/rec.out" 2> "$W/c/rec.err" &
REC=$!
# aux_tail of ring 0, by its column in stat's header
aux_tail() {
	"$RINGSIDE" stat $DOM 2>/dev/null | awk '
		$1 == "ring" { for (i = 1; i <= NF; i++) if ($i == "aux_tail") c = i }
		c && $1 == "0" { print $c; exit }'
}
for _ in $(seq 3000); do
	t=$(aux_tail)
	[ -n "$t" ] && [ "$t" != 0 ] && break
	kill -0 $REC 2>/dev/null || break
	sleep 0.1
done
[ -n "$t" ] && [ "$t" != 0 ] && note "record drained the AUX ring (aux_tail $t)" ||
	{ bad "C: record never drained the AUX ring: $(cat "$W/c/rec.err")"; exit 1; }
vsh send-key $DOM KEY_ENTER >/dev/null || bad "C: virsh send-key"
e2e_wait_crashed && ok "C: the guest crashed itself: domain $STATE" ||
	{ bad "C: no crash: domain $STATE"; lg_console_tail "$W/c/console.log"; exit 1; }
for _ in $(seq 3000); do
	grep -q "guest kernel code:" "$W/c/rec.out" && break
	kill -0 $REC 2>/dev/null || break
	sleep 0.1
done
grep -q "^ringside record:  guest kernel code: .*kcore in the build-id cache (read as the recording began)" \
	"$W/c/rec.out" && ok "C: record cached the code early: $(grep -m 1 'guest kernel code' "$W/c/rec.out")" ||
	{ bad "C: record did not cache the code while the domain was there: $(cat "$W/c/rec.out" "$W/c/rec.err")"; exit 1; }
# QEMU exits: the plugin ends the trace (TIP.PGD), publishes it, and
# writes the truth; then record takes the rest and stops
for _ in $(seq 60); do
	vsh destroy --graceful $DOM >/dev/null 2>&1
	case $(vsh domstate $DOM 2>/dev/null) in "shut off"*) break ;; esac
	sleep 1
done
grep "^ringside-qemu-pt: vCPU 0" /var/log/libvirt/qemu/$DOM.log | tail -n 1 | sed 's/^/--   QEMU log: /'
# record ends by itself once the domain is shut off (it asks libvirt)
for _ in $(seq 600); do
	kill -0 $REC 2>/dev/null || break
	sleep 0.1
done
if kill -0 $REC 2>/dev/null; then
	bad "C: record still runs with its domain shut off"
	kill -TERM $REC
fi
wait $REC
rc=$?
REC=
[ $rc = 0 ] || [ $rc = 3 ] && ok "C: record: $(grep -m 1 '^ringside record: wrote' "$W/c/rec.out")" ||
	{ bad "C: record: status $rc: $(head -n 5 "$W/c/rec.err")"; exit 1; }
grep -q "^ringside record: wrote .*(the domain stopped)$" "$W/c/rec.out" &&
	ok "C: record ended with its domain" ||
	bad "C: record's end: $(grep -m 1 '^ringside record: wrote' "$W/c/rec.out")"
# the domain was gone at the end: the summary names the early read
grep -q "^  guest kernel code: .*(read as the recording began)" "$W/c/rec.out" &&
	ok "C: the file's code is the early read" ||
	{ bad "C: record's summary: $(cat "$W/c/rec.out")"; }
# streamed and kept as 9 bytes an instruction; more than 40 M lines
# (the truth holds 2-4 M) is a runaway decode, failed before it fills the
# memory (the work directory keeps rec.data for a look)
perf --buildid-dir "$(rs_cache "$W/c/rec.data")" script -i "$W/c/rec.data" \
	--itrace=i0nse -F cpu,ip,sym 2>"$W/c/perr" |
	python3 "$KCHECK" itrace-segment "$W/c/console.log" - 95 "$W/c/ips" 40000000 \
		> "$W/c/itrace" &&
	ok "C: perf script --itrace=i0nse: $(tail -n 1 "$W/c/itrace")" ||
	{ bad "C: perf script --itrace=i0nse: $(cat "$W/c/itrace")"; head -n 5 "$W/c/perr"; }
# the truth keeps the newest 8 M instructions (truth_max / 2, after the
# first 8 M); a recording that ran longer is held against it by its
# newest 6 M, the same check from an instruction inside the truth
n=$(wc -l < "$W/c/ips.0" 2>/dev/null || echo 0)
if [ "$n" -gt 6000000 ]; then
	note "C: $n instructions decoded; the newest 6000000 are checked"
	tail -n 6000000 "$W/c/ips.0" > "$W/c/ips.tail" && mv "$W/c/ips.tail" "$W/c/ips.0"
fi
"$PTCHECK" ips "$W/c/truth" 0 "$W/c/ips.0" 100000 > "$W/c/check" 2>&1 &&
	ok "C: perf's decode = the plugin's truth: $(grep -m 1 '^aligned' "$W/c/check") $(grep '^PASS' "$W/c/check")" ||
	{ bad "C: perf's decode against the truth"
	  python3 "$KCHECK" symbolize "$W/c/console.log" "$W/c/check" || cat "$W/c/check"; }

echo "$fails failure(s)"
[ $fails = 0 ]
