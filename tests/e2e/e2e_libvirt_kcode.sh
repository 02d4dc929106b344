#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The guest kernel's code for perf's PT decoder, from a real Linux guest
# under QEMU TCG and libvirtd:
#
#   e2e_libvirt_kcode.sh RINGSIDE AGENT MARK WORKLOAD GUEST_INIT HOOK
#
# A domain enabled with AUX (trace samples,markers,aux: the region of a PT
# domain, without the plugin, which this test does not need) boots the
# Debian kernel with the agent; `snapshot DOMAIN` then reads the kernel's
# code through libvirt's memory peek into a fresh build-id cache. Checks:
# the summary's "guest kernel code" line; kcore, modules and kallsyms in
# the file's cache entry; the kcore's bytes at the guest's _stext are the
# guest's (as QEMU's monitor prints them, x/64xb); perf
# still names every guest kernel sample it named without the kcore (perf
# drops symbols outside kcore's segments), and perf script --itrace opens
# the file (its intel_pt event and AUXTRACE_INFO) without an error.
# Exit 77 when QEMU, libvirt, a kernel or perf is missing.
# shellcheck disable=SC2015  # ok/bad never fail: A && ok || bad is if-else here
set -u
# shellcheck source=scripts/lib/libvirt-guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/libvirt-guest.sh"
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

RINGSIDE=$1 AGENT=$2 MARK=$3 WORKLOAD=$4 GUEST_INIT=$5 HOOK_PROGRAM=$6
DOM=rs-ptv-kc-$$
HOOK=/etc/libvirt/hooks/qemu.d/ringside


e2e_need_own_libvirt

W=$(lg_workdir /tmp/rs-ptv-kc.XXXXXX)
DEFINED='' HOOKED=''
cleanup() {
	e2e_teardown
}
trap cleanup EXIT
trap 'exit 1' INT TERM

e2e_prepare
lg_domain_xml $DOM qemu "$W" normal > "$W/domain.xml"
vsh define "$W/domain.xml" >/dev/null || { bad "virsh define"; exit 1; }
DEFINED=1
"$RINGSIDE" enable $DOM --trace samples,markers,aux --aux-pages 16 >/dev/null ||
	{ bad "enable"; exit 1; }
vsh start $DOM >/dev/null || { bad "virsh start"; exit 1; }
# the workload ran, the agent is attached and has published the symbols
wait_console E2E-KEY-WAIT 600 || exit 1

"$RINGSIDE" snapshot $DOM -o "$W/s.data" > "$W/out" 2>"$W/err"
rc=$?
[ $rc = 0 ] || [ $rc = 3 ] || { bad "snapshot: status $rc: $(cat "$W/err")"; exit 1; }
# the file names the guest, as its agent said: its kernel's release
rel=${LG_KERNEL##*/vmlinuz-}
grep -qF "release \"$rel\"" "$W/out" &&
	ok "snapshot: $(grep -o 'guest identity.*' "$W/out")" ||
	bad "no guest identity of release $rel: $(grep 'guest identity' "$W/out")"
perf report --header-only -i "$W/s.data" > "$W/hdr" 2>&1
grep -qF "# os release : $rel" "$W/hdr" &&
	ok "perf report --header-only: $(grep -E '^# (os release|hostname|nrcpus online|total memory)' "$W/hdr" | tr '\n' ' ')" ||
	bad "perf's header does not name the guest's release $rel: $(grep '# os release' "$W/hdr")"
line=$(grep "guest kernel code:" "$W/out")
echo "--   $line"
echo "$line" | grep -Eq 'guest kernel code: [1-9][0-9]* of [0-9]+ bytes in [0-9]+ segments.*kcore in the build-id cache' &&
	ok "snapshot read the guest kernel's code into the cache" || bad "no code: '$line'"
# ringside's cache beside the file (never perf's $HOME/.debug)
entry=$(find "$(rs_cache "$W/s.data")/[kernel.kallsyms]" -mindepth 1 -maxdepth 1 \
	-type d | head -n 1)
for f in kallsyms kcore modules; do
	[ -s "$entry/$f" ] || [ "$f" = modules ] && [ -e "$entry/$f" ] ||
		bad "no $f in the cache entry $entry"
done

# the kcore's bytes at _stext are the guest's own, as QEMU's monitor
# prints them (x/64xb: the first vCPU's view, virtual addresses)
stext=$(awk '$3 == "_stext" { print $1 }' "$entry/kallsyms")
vsh qemu-monitor-command $DOM --hmp "x/64xb 0x$stext" > "$W/stext.txt" ||
	bad "qemu-monitor-command x/64xb"
python3 - "$entry/kcore" "$stext" "$W/stext.txt" <<'PY' && ok "kcore holds the guest's 64 bytes at _stext (0x$stext)" || bad "kcore's bytes at _stext differ from the guest's: $(head -n 2 "$W/stext.txt")"
import re, struct, sys
d = open(sys.argv[1], 'rb').read()
st = int(sys.argv[2], 16)
want = bytes(int(b, 16) for line in open(sys.argv[3])
             for b in re.findall(r'0x([0-9a-f]{2})\b', line.split(':', 1)[-1]))
phoff, = struct.unpack_from('<Q', d, 32)
n, = struct.unpack_from('<H', d, 56)
for i in range(n):
    _, _, off, va, _, fs, _, _ = struct.unpack_from('<IIQQQQQQ', d, phoff + 56 * i)
    if va <= st < va + fs:
        got = d[off + st - va: off + st - va + len(want)]
        sys.exit(0 if len(want) == 64 and got == want else 1)
sys.exit(1)
PY

named() {
	perf --buildid-dir "$(rs_cache "$W/s.data")" script -i "$W/s.data" \
		-F ip,sym 2>/dev/null |
		awk '$1 ~ /^ffff/ { n++; if ($2 != "[unknown]") k++ } END { print k + 0, n + 0 }'
}
read -r with all < <(named)
mv "$entry/kcore" "$W/kcore.off"
read -r without _ < <(named)
mv "$W/kcore.off" "$entry/kcore"
[ "$all" -gt 0 ] && [ "$with" -ge "$without" ] &&
	ok "perf names $with of $all kernel addresses with the kcore ($without without)" ||
	bad "perf names $with of $all kernel addresses with the kcore, $without without"
perf --buildid-dir "$(rs_cache "$W/s.data")" script -i "$W/s.data" \
	--itrace=i0ns >/dev/null 2>"$W/itrace.err" &&
	! grep -qi "error\|no selected events" "$W/itrace.err" &&
	ok "perf script --itrace opens the file (intel_pt event, no AUX bytes: no plugin)" ||
	bad "perf script --itrace: $(head -n 3 "$W/itrace.err")"

echo "$fails failure(s)"
[ $fails = 0 ]
