#!/bin/bash
# SPDX-License-Identifier: MIT
#
# `ringside enable --trace pt` and `disable` against a real libvirtd:
#
#   e2e_libvirt_pt.sh RINGSIDE
#
# Defines a TCG domain whose <qemu:commandline> already holds the
# operator's own arguments and environment, and checks, by `virsh dumpxml
# --inactive`, that enable --trace pt appends exactly ringside's pair
# ("-plugin" and "PLUGIN,region=/dev/shm/ringside-DOMAIN,filter=...")
# after them, with AUX pages in the metadata; that enable again replaces the
# pair, enable without pt takes it off, and disable gives back the
# operator's XML byte for byte; that bad PT options, a missing plugin and a
# KVM domain are refused with the XML unchanged.  The domain is defined,
# never started: the plugin here is a stand-in file (starting QEMU with the
# real plugin is the integration test's).
# Starts virtlogd and libvirtd where none runs.  Exit 77 when libvirt or
# root is missing.
# shellcheck disable=SC2015  # ok/bad never fail: A && ok || bad is if-else here
set -u
# shellcheck source=scripts/lib/libvirt-guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/libvirt-guest.sh"

RINGSIDE=$1
DOM=rs-ptv-$$
KVMDOM=rs-ptv-kvm-$$
QNS=http://libvirt.org/schemas/domain/qemu/1.0

skip() { echo "SKIP: $*"; exit 77; }
fails=0
ok()   { echo "ok   $*"; }
bad()  { echo "FAIL $*"; fails=$((fails + 1)); }

[ "$(id -u)" = 0 ] || skip "needs root (libvirtd)"
for p in libvirtd virtlogd virsh qemu-system-x86_64; do
	command -v $p >/dev/null || skip "$p is missing (see scripts/setup.sh)"
done

W=$(lg_workdir /tmp/rs-ptv.XXXXXX)
DEFINED=''

cleanup() {
	local d
	for d in $DEFINED; do
		vsh undefine "$d" >/dev/null 2>&1
	done
	lg_daemons_stop
	if [ $fails != 0 ]; then
		echo "work directory kept: $W"
	else
		rm -rf "$W"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

lg_daemons_start "$W" || { bad "$LG_WHY"; exit 1; }

# domain_xml NAME TYPE: a domain with the operator's own passthrough.
domain_xml() {
	cat <<EOF
<domain type='$2' xmlns:qemu='$QNS'>
  <name>$1</name>
  <memory unit='MiB'>128</memory>
  <vcpu>2</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type></os>
  <devices><memballoon model='none'/></devices>
  <qemu:commandline>
    <qemu:arg value='-msg'/>
    <qemu:arg value='timestamp=on'/>
    <qemu:env name='RS_OPERATOR' value='kept'/>
  </qemu:commandline>
</domain>
EOF
}

# args FILE: the <qemu:arg> values in order, one line each.
args() {
	python3 - "$1" <<'EOF'
import sys, xml.etree.ElementTree as ET
q = '{http://libvirt.org/schemas/domain/qemu/1.0}'
for cl in ET.parse(sys.argv[1]).getroot().findall(q + 'commandline'):
    for a in cl.findall(q + 'arg'):
        print(a.get('value'))
EOF
}

dump() { vsh dumpxml --inactive "$1" > "$2"; }

domain_xml $DOM qemu > "$W/domain.xml"
vsh define "$W/domain.xml" >/dev/null || { bad "virsh define"; exit 1; }
DEFINED=$DOM
dump $DOM "$W/xml0"
args "$W/xml0" > "$W/args0"
printf -- '-msg\ntimestamp=on\n' | cmp -s - "$W/args0" &&
	ok "the operator's domain has its own two arguments" ||
	bad "libvirt did not keep the operator's arguments: $(tr '\n' ' ' < "$W/args0")"

# A stand-in plugin, reached through a symlink: enable writes its real path.
PLUGIN=$W/lib/ringside-qemu-pt.so
mkdir -p "$W/lib" && : > "$PLUGIN" && ln -s lib "$W/link"
REGION=/dev/shm/ringside-$DOM

# ---- refused, nothing changed -----------------------------------------------
refused() {  # STATUS OPTIONS...
	local want=$1; shift
	"$RINGSIDE" enable $DOM "$@" >/dev/null 2>"$W/err"
	local rc=$?
	dump $DOM "$W/xml1"
	if [ $rc = "$want" ] && cmp -s "$W/xml0" "$W/xml1"; then
		ok "enable $* refused (status $want: $(head -n 1 "$W/err")), XML unchanged"
	else
		bad "enable $*: status $rc (want $want), XML $(cmp -s "$W/xml0" "$W/xml1" && echo unchanged || echo CHANGED)"
	fi
}
refused 2 --pt-filter all
refused 2 --trace samples --pt-plugin "$PLUGIN"
refused 2 --trace pt --pt-plugin "$PLUGIN" --pt-filter user
refused 2 --trace pt --pt-plugin "$PLUGIN" --pt-psb 1000
refused 2 --trace pt --pt-plugin "$PLUGIN" --aux-pages 0
refused 2 --trace pt,bogus --pt-plugin "$PLUGIN"
refused 1 --trace pt --pt-plugin "$W/none/ringside-qemu-pt.so"
grep -q "none/ringside-qemu-pt.so" "$W/err" &&
	ok "a missing plugin is named in the error" || bad "missing plugin: $(cat "$W/err")"

# ---- enable --trace pt ---------------------------------------------------------
"$RINGSIDE" enable $DOM --trace samples,pt --pt-plugin "$W/link/ringside-qemu-pt.so" \
	> "$W/out" 2>"$W/err" || bad "enable --trace pt: $(cat "$W/err")"
grep -q "PT: QEMU TCG plugin $PLUGIN (filter=kernel)" "$W/out" &&
	ok "enable --trace pt says what it put on the command line" ||
	bad "enable --trace pt printed: $(cat "$W/out")"
dump $DOM "$W/xml2"
args "$W/xml2" > "$W/args2"
printf -- '-msg\ntimestamp=on\n-plugin\n%s,region=%s,filter=kernel\n' "$PLUGIN" "$REGION" |
	cmp -s - "$W/args2" &&
	ok "dumpxml: the operator's arguments, then -plugin $PLUGIN,region=$REGION,filter=kernel" ||
	{ bad "dumpxml after enable --trace pt:"; sed 's/^/     /' "$W/args2"; }
grep -q "<qemu:env name='RS_OPERATOR' value='kept'/>" "$W/xml2" &&
	ok "the operator's <qemu:env> stays" || bad "the operator's <qemu:env> is gone"
grep -q 'aux-pages="256"' "$W/xml2" && grep -q 'trace="samples,aux"' "$W/xml2" &&
	ok "metadata: 256 AUX pages a ring (the default), trace samples,aux" ||
	bad "metadata after enable --trace pt: $(grep -o '<ringside:region[^>]*>' "$W/xml2")"
grep -q "<shmem name='ringside-$DOM' role='master'>" "$W/xml2" &&
	ok "the region's <shmem> device is there, role='master' (migratable)" || bad "no <shmem role='master'> device"

# again, other PT options: one pair, replaced
"$RINGSIDE" enable $DOM --trace pt --pt-plugin "$PLUGIN" --pt-filter all \
	--pt-psb 8192 --aux-pages 64 >/dev/null 2>"$W/err" || bad "enable again: $(cat "$W/err")"
dump $DOM "$W/xml3"
args "$W/xml3" > "$W/args3"
printf -- '-msg\ntimestamp=on\n-plugin\n%s,region=%s,filter=all,psb=8192\n' "$PLUGIN" "$REGION" |
	cmp -s - "$W/args3" &&
	ok "enable again replaces ringside's pair (filter=all, psb=8192), one pair" ||
	{ bad "dumpxml after the second enable:"; sed 's/^/     /' "$W/args3"; }
grep -q 'aux-pages="64"' "$W/xml3" && ok "--aux-pages 64 kept with pt" ||
	bad "aux-pages after --aux-pages 64"

# enable without pt: the pair goes, the rest stays
"$RINGSIDE" enable $DOM > "$W/out" 2>"$W/err" || bad "enable without pt: $(cat "$W/err")"
dump $DOM "$W/xml4"
args "$W/xml4" | cmp -s - "$W/args0" && grep -q "taken off" "$W/out" &&
	ok "enable without pt takes ringside's pair off, the operator's arguments stay" ||
	{ bad "after enable without pt:"; args "$W/xml4" | sed 's/^/     /'; }

# ---- disable --------------------------------------------------------------------
"$RINGSIDE" enable $DOM --trace pt --pt-plugin "$PLUGIN" >/dev/null 2>&1
"$RINGSIDE" disable $DOM >/dev/null 2>"$W/err" || bad "disable: $(cat "$W/err")"
dump $DOM "$W/xml5"
cmp -s "$W/xml0" "$W/xml5" &&
	ok "disable: the XML is the operator's again, byte for byte" ||
	{ bad "enable --trace pt + disable changed the XML"; diff "$W/xml0" "$W/xml5" | head; }
"$RINGSIDE" disable $DOM | grep -q "was not enabled" &&
	ok "a second disable changes nothing" || bad "second disable"

# ---- a device of an older enable, without role='master', is upgraded ---------
"$RINGSIDE" enable $DOM >/dev/null 2>"$W/err" || bad "enable: $(cat "$W/err")"
size_m=$(vsh dumpxml --inactive $DOM | sed -n "/shmem name='ringside-$DOM'/,/shmem>/s/.*<size unit='M'>\([0-9]*\)<.*/\1/p")
vsh detach-device $DOM --config /dev/stdin >/dev/null 2>"$W/err" <<XML || bad "detach: $(cat "$W/err")"
<shmem name='ringside-$DOM' role='master'><model type='ivshmem-plain'/><size unit='M'>$size_m</size></shmem>
XML
vsh attach-device $DOM --config /dev/stdin >/dev/null 2>"$W/err" <<XML || bad "attach: $(cat "$W/err")"
<shmem name='ringside-$DOM'><model type='ivshmem-plain'/><size unit='M'>$size_m</size></shmem>
XML
dump $DOM "$W/xml6"
grep -q "<shmem name='ringside-$DOM'>" "$W/xml6" || bad "could not make a role-less <shmem> device"
"$RINGSIDE" enable $DOM >/dev/null 2>"$W/err" || bad "enable over a role-less device: $(cat "$W/err")"
dump $DOM "$W/xml7"
[ "$(grep -c "<shmem name='ringside-$DOM' role='master'>" "$W/xml7")" = 1 ] &&
	[ "$(grep -c "<shmem " "$W/xml7")" = 1 ] &&
	ok "enable upgrades a role-less <shmem> to role='master', one device" ||
	bad "after enable over a role-less device: $(grep -A3 '<shmem' "$W/xml7")"
"$RINGSIDE" disable $DOM >/dev/null 2>"$W/err" || bad "disable: $(cat "$W/err")"

# ---- a KVM domain ---------------------------------------------------------------
domain_xml $KVMDOM kvm > "$W/kvm.xml"
if vsh define "$W/kvm.xml" >/dev/null 2>"$W/kvm.err"; then
	DEFINED="$DOM $KVMDOM"
	dump $KVMDOM "$W/kvm0"
	"$RINGSIDE" enable $KVMDOM --trace pt --pt-plugin "$PLUGIN" >/dev/null 2>"$W/err"
	rc=$?
	dump $KVMDOM "$W/kvm1"
	[ $rc = 2 ] && cmp -s "$W/kvm0" "$W/kvm1" && grep -q "type is 'kvm'" "$W/err" &&
		ok "a kvm domain: refused (status 2: $(head -c 120 "$W/err")), XML unchanged" ||
		bad "kvm domain: status $rc, $(cat "$W/err")"
else
	# libvirt defines kvm domains only where /dev/kvm is: the unit test
	# (test_domain_pt, pt_tcg_only) covers the refusal.
	echo "--   libvirt will not define a kvm domain here: $(head -c 120 "$W/kvm.err")"
fi

echo "$fails failure(s)"
[ $fails = 0 ]
