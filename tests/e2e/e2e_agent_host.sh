#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The Linux agent and the hook without a VM, in a few seconds:
#
#   e2e_agent_host.sh RINGSIDE AGENT MARK WORKLOAD CHECK HOOK
#
# HOOK (ringside-hook, as libvirt would call it, XML on stdin) creates the
# region, and links neither libvirt nor libipt nor Zydis; `ringside hook
# run` does the same; a fake sysfs shows the region as the BAR2 of an
# ivshmem device; the agent runs on this host against it.  Checks the agent's errors (no device, no
# region, bad usage), attach and heartbeat, markers (plain and --sync),
# samples of a workload with its comm, following the host's enabled switch,
# detach on SIGTERM, and that a snapshot after the agent stopped still
# holds everything; the kernel symbols the agent publishes in the sideband
# (this host's are larger than the 2 MiB asked for: truncated, and said
# so); then HOOK ... release end removes the region.
# Needs root (perf events of every CPU, /dev/shm files owned by root).
# shellcheck disable=SC2015  # ok/bad never fail: A && ok || bad is if-else here
set -u

RINGSIDE=$1 AGENT=$2 MARK=$3 WORKLOAD=$4 CHECK=$5 HOOK=$6
NAME=rs-agent-test-$$
SHM=/dev/shm/ringside-$NAME

skip() { echo "SKIP: $*"; exit 77; }
fails=0
ok()  { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

[ "$(id -u)" = 0 ] || skip "needs root"
[ -x "$AGENT" ] || skip "no Linux agent (sanitized builds do not make one)"
getent group libvirt-qemu >/dev/null && GROUP=libvirt-qemu || GROUP=root

W=$(mktemp -d /tmp/rs-agent.XXXXXX)
export HOME=$W/home   # the build-id cache the snapshot fills
mkdir -p "$HOME"
AGENT_PID=
cleanup() {
	[ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null && wait "$AGENT_PID"
	rm -f "$SHM"
	if [ $fails = 0 ]; then rm -rf "$W"; else echo "work directory kept: $W"; fi
}
trap cleanup EXIT

DEV=$W/sys/0000:00:03.0
mkdir -p "$DEV" "$W/empty"
echo 0x1af4 > "$DEV/vendor"
echo 0x1110 > "$DEV/device"
SOCK=$W/mark.sock
export RINGSIDE_MARK_SOCKET=$SOCK

# ---- errors ----------------------------------------------------------------
"$AGENT" --sysfs "$W/empty" -m "$SOCK" > /dev/null 2> "$W/err"
[ $? = 1 ] && grep -q "no ivshmem-plain PCI device (1af4:1110)" "$W/err" &&
	ok "no device: $(cat "$W/err")" || { bad "no device"; cat "$W/err"; }
head -c 1048576 /dev/zero > "$DEV/resource2"
"$AGENT" --sysfs "$W/sys" -m "$SOCK" > /dev/null 2> "$W/err"
[ $? = 1 ] && grep -q "holds a ringside region" "$W/err" &&
	ok "no region: $(cat "$W/err")" || { bad "no region"; cat "$W/err"; }
"$AGENT" --bogus > /dev/null 2>&1
[ $? = 2 ] && ok "bad usage: status 2" || bad "bad usage"

# ---- the hook makes the region ---------------------------------------------------
cat > "$W/domain.xml" <<EOF
<domain type='qemu'>
  <name>$NAME</name>
  <metadata>
    <ringside:region xmlns:ringside="https://ringside.dev/xmlns/1" version="1" rings="2" data-pages="1024" aux-pages="0" mode="overwrite" trace="samples,markers" freq="500" sideband-pages="512"/>
  </metadata>
  <vcpu placement='static'>2</vcpu>
  <devices>
    <shmem name='ringside-$NAME'><model type='ivshmem-plain'/><size unit='M'>16</size></shmem>
  </devices>
</domain>
EOF
# What libvirtd runs as root: nothing of libvirt (a hook must never call
# it), nor of the decoders or the VMM.
libs=$(ldd "$HOOK" | grep -E 'libvirt|libipt|Zydis')
[ -z "$libs" ] && ok "ringside-hook links no libvirt, libipt, Zydis" || bad "ringside-hook links: $libs"
"$HOOK" --group "$GROUP" $NAME prepare begin - < "$W/domain.xml" ||
	bad "ringside-hook prepare begin"
st=$(stat -c '%U %G %a %s' "$SHM" 2>/dev/null)
[ "$st" = "root $GROUP 660 16777216" ] && ok "hook made $SHM: $st" || bad "region file: '$st'"
sed 's/<name>[^<]*</<name>other</; /ringside:region/d' "$W/domain.xml" |
	"$HOOK" other prepare begin - && [ ! -e /dev/shm/ringside-other ] &&
	ok "hook leaves a domain it does not know alone" || bad "hook on a foreign domain"
sed "s/size unit='M'>16</size unit='M'>8</" "$W/domain.xml" |
	"$HOOK" $NAME prepare begin - 2> "$W/err"
[ $? = 1 ] && grep -q "^ringside hook: $NAME: .*metadata needs 16777216" "$W/err" &&
	ok "hook refuses a wrong size" || { bad "hook with a wrong size"; cat "$W/err"; }
"$HOOK" $NAME prepare > /dev/null 2>&1 < /dev/null
[ $? = 2 ] && ok "ringside-hook: bad usage, status 2" || bad "ringside-hook bad usage"
# `ringside hook run` is the same hook, in the ringside command.
rm -f "$SHM"
"$RINGSIDE" hook run --group "$GROUP" $NAME prepare begin - < "$W/domain.xml" &&
	[ "$(stat -c '%U %G %a %s' "$SHM" 2>/dev/null)" = "$st" ] &&
	ok "ringside hook run made the same region" || bad "ringside hook run prepare begin"
sed "s/size unit='M'>16</size unit='M'>8</" "$W/domain.xml" |
	"$RINGSIDE" hook run $NAME prepare begin - 2> "$W/err2"
[ $? = 1 ] && cmp -s "$W/err" "$W/err2" && ok "ringside hook run: the same message" ||
	{ bad "ringside hook run with a wrong size"; cat "$W/err2"; }
rm -f "$DEV/resource2"
ln -s "$SHM" "$DEV/resource2"

# ---- the agent ---------------------------------------------------------------------
"$AGENT" --sysfs "$W/sys" -m "$SOCK" -t 50 -e sched:sched_switch 2> "$W/agent.err" &
AGENT_PID=$!
for _ in $(seq 100); do
	"$RINGSIDE" stat "$SHM" 2>/dev/null | grep -q "agent attached (kind 2" && break
	sleep 0.1
done
"$RINGSIDE" stat "$SHM" > "$W/stat" 2>&1
grep -q "agent attached (kind 2, ABI 1, 2 rings used)" "$W/stat" && ok "agent attached" ||
	{ bad "agent did not attach"; cat "$W/stat" "$W/agent.err"; }
# Who the guest is: here this host, as the agent read it, shown as claims.
ident="guest identity (guest claims): host \"$(uname -n | cut -c1-64)\", release \"$(uname -r)\", arch \"$(uname -m)\""
grep -qF "$ident" "$W/stat" && ok "identity: $(grep -o 'release "[^"]*"' "$W/stat")" ||
	{ bad "identity: '$ident' not in stat"; cat "$W/stat"; }
# The host's own kallsyms: what the agent kept, published (cut at 2 MiB
# when this host's kernel has more) and the host read back.
want=$(awk '$2 ~ /^[TtWw]$/ || $3 == "_text" || $3 == "_stext" || $3 == "_etext"' \
	/proc/kallsyms | wc -c)
line=$(grep -o "guest kernel symbols: [0-9]* functions.*" "$W/stat")
if [ "$want" -gt 2097152 ]; then
	grep -q "guest kernel symbols truncated: [0-9]* of $want bytes" "$W/stat" &&
	grep -q "kernel symbols truncated: [0-9]* of $want bytes" "$W/agent.err" &&
		ok "kernel symbols: $line, truncated, said by the agent and stat" ||
		{ bad "kernel symbols of $want bytes in a 2 MiB sideband"; cat "$W/stat" "$W/agent.err"; }
else
	[ -n "$line" ] && ok "kernel symbols: $line" ||
		{ bad "kernel symbols"; cat "$W/stat" "$W/agent.err"; }
fi
"$MARK" 7 plain marker && "$MARK" --sync 8 synced marker && ok "ringside-mark (plain, --sync)" ||
	bad "ringside-mark"
"$MARK" 4294901761 agent id > /dev/null 2>&1
[ $? = 2 ] && ok "ringside-mark refuses the agent's ids" || bad "ringside-mark with an agent id"
"$WORKLOAD" 4 > "$W/workload.out" || bad "workload"
WPID=$(sed -n 's/.*E2E-WORKLOAD pid=\([0-9]*\).*/\1/p' "$W/workload.out")

# The host switches tracing off and on again (config.enabled, offset 64).
printf '\0' | dd of="$SHM" bs=1 seek=64 conv=notrunc status=none
sleep 0.3
printf '\1' | dd of="$SHM" bs=1 seek=64 conv=notrunc status=none
sleep 0.3

kill -TERM $AGENT_PID
wait $AGENT_PID
rc=$?
AGENT_PID=
[ $rc = 0 ] && ok "agent detached on SIGTERM: $(tail -n 1 "$W/agent.err")" ||
	{ bad "agent exit status $rc"; cat "$W/agent.err"; }
"$RINGSIDE" stat "$SHM" | grep -q "agent not attached" && ok "status: not attached" ||
	bad "status still attached"

# ---- the flight recorder after the agent stopped --------------------------------------
"$RINGSIDE" snapshot "$SHM" -o "$W/snap.data" -q || bad "snapshot"
"$RINGSIDE" dump "$W/snap.data" > "$W/dump"
if command -v perf > /dev/null; then
	perf report --header-only -i "$W/snap.data" > "$W/hdr" 2>&1
	grep -qF "# os release : $(uname -r)" "$W/hdr" &&
		ok "perf report --header-only: $(grep '# os release' "$W/hdr")" ||
		{ bad "the file's header has not the agent's os release"; cat "$W/hdr"; }
fi
for m in '"plain marker"' '"synced marker"' '"sampling off"' '"sampling on"' '"detached"'; do
	grep -q "marker .*$m" "$W/dump" && ok "marker $m" || bad "marker $m missing"
done
# the --sync marker woke the agent, which took the plain one waiting
# before it first: in the ring in the order they were sent
p1=$(grep -n 'marker .*"plain marker"' "$W/dump" | head -n 1 | cut -d: -f1)
p2=$(grep -n 'marker .*"synced marker"' "$W/dump" | head -n 1 | cut -d: -f1)
[ -n "$p1" ] && [ -n "$p2" ] && [ "$p1" -lt "$p2" ] &&
	ok "the plain marker before the synced one (lines $p1, $p2)" ||
	bad "the plain and synced markers out of order (lines ${p1:-none}, ${p2:-none})"
# This host runs other work: its short-lived threads may leave no name.
if "$CHECK" "$W/snap.data" --pid "$WPID" --comm rs-workload --steps 4 \
	--tracepoint --min-named 80 > "$W/check"; then
	ok "snapshot: $(cat "$W/check")"
else
	bad "snapshot:"; sed 's/^/     /' "$W/check"
fi

"$HOOK" --group "$GROUP" $NAME release end < /dev/null || bad "ringside-hook release end"
[ -e "$SHM" ] && bad "release left $SHM" || ok "hook release removed the region"
[ $fails = 0 ]
