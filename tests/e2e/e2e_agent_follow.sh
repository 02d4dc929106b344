#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The Linux agent following its device, on this host without a VM, in a
# few seconds:
#
#   e2e_agent_follow.sh RINGSIDE AGENT
#
# A fake sysfs (--sysfs) shows a region file as the BAR2 of an ivshmem
# device, as e2e_agent_host.sh does.  `ringside-agent --follow` starts
# with no device and waits; the device appears (hotplug) and the agent
# attaches; its sysfs entry goes (unplug) and the agent detaches without
# exiting; a second device appears and it attaches again; then the file
# under the mapping is cut to nothing, so the agent's next access to the
# BAR is a SIGBUS, as after a guest kernel revoked the mapping of an
# unplugged device: the agent must survive it, say so, and wait again.
# SIGTERM then ends it with status 0.  Without --follow a device that goes
# away ends the agent with status 0.  Needs root (perf events of every
# CPU, /dev/shm files owned by root).
# shellcheck disable=SC2015  # ok/bad never fail: A && ok || bad is if-else here
set -u

RINGSIDE=$1 AGENT=$2
NAME=rs-follow-test-$$
SHM=/dev/shm/ringside-$NAME

skip() { echo "SKIP: $*"; exit 77; }
fails=0
ok()  { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

[ "$(id -u)" = 0 ] || skip "needs root"
[ -x "$AGENT" ] || skip "no Linux agent (sanitized builds do not make one)"
getent group libvirt-qemu >/dev/null && GROUP=libvirt-qemu || GROUP=root

W=$(mktemp -d /tmp/rs-follow.XXXXXX)
AGENT_PID=
cleanup() {
	[ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null && wait "$AGENT_PID"
	rm -f "$SHM" "$SHM.2"
	if [ $fails = 0 ]; then rm -rf "$W"; else echo "work directory kept: $W"; fi
}
trap cleanup EXIT

# wait_for FILE PATTERN: until FILE (the agent's messages) has PATTERN, 10 s
wait_for() {
	local _
	for _ in $(seq 100); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
# attached: `ringside stat` of the region says the agent is attached
attached() { "$RINGSIDE" stat "$1" 2>/dev/null | grep -q "agent attached (kind 2"; }

cat > "$W/domain.xml" <<EOF
<domain type='qemu'>
  <name>$NAME</name>
  <metadata>
    <ringside:region xmlns:ringside="https://ringside.dev/xmlns/1" version="1" rings="2" data-pages="64" aux-pages="0" mode="overwrite" trace="samples,markers" freq="200" sideband-pages="0"/>
  </metadata>
  <vcpu placement='static'>2</vcpu>
  <devices>
    <shmem name='ringside-$NAME'><model type='ivshmem-plain'/><size unit='M'>1</size></shmem>
  </devices>
</domain>
EOF
"$RINGSIDE" hook run --group "$GROUP" $NAME prepare begin - < "$W/domain.xml" ||
	{ bad "hook run prepare begin"; exit 1; }
cp "$SHM" "$SHM.2"   # a second device's region, laid out the same

# plug DIR REGION: an ivshmem device DIR whose BAR2 is REGION
plug() {
	mkdir -p "$W/tmp-dev"
	echo 0x1af4 > "$W/tmp-dev/vendor"
	echo 0x1110 > "$W/tmp-dev/device"
	ln -s "$2" "$W/tmp-dev/resource2"
	mv "$W/tmp-dev" "$1"   # appears whole, as a device does
}
mkdir -p "$W/sys"
SOCK=$W/mark.sock

# ---- without --follow: the device going ends the agent, status 0 ------
plug "$W/sys/0000:00:04.0" "$SHM"
"$AGENT" --sysfs "$W/sys" -m "$SOCK" -t 20 --no-symbols 2> "$W/plain.err" &
AGENT_PID=$!
wait_for "$W/plain.err" "attached to the region" && ok "agent attached" ||
	{ bad "agent did not attach"; cat "$W/plain.err"; }
rm -rf "$W/sys/0000:00:04.0"
for _ in $(seq 100); do kill -0 $AGENT_PID 2>/dev/null || break; sleep 0.1; done
if kill -0 $AGENT_PID 2>/dev/null; then
	bad "the agent still runs after its device went away"
else
	wait $AGENT_PID
	rc=$?
	[ $rc = 0 ] && grep -q "went away (unplugged): detached" "$W/plain.err" &&
		ok "without --follow: device gone, agent ended (status 0): $(grep 'went away' "$W/plain.err")" ||
		{ bad "without --follow: status $rc"; cat "$W/plain.err"; }
fi
AGENT_PID=

# ---- --follow: started with no device ---------------------------------
"$AGENT" --follow --sysfs "$W/sys" -m "$SOCK" -t 20 --no-symbols 2> "$W/agent.err" &
AGENT_PID=$!
wait_for "$W/agent.err" "waiting for a ringside device" &&
	ok "no device: the agent waits ($(grep -m1 waiting "$W/agent.err"))" ||
	{ bad "no waiting message"; cat "$W/agent.err"; }
kill -0 $AGENT_PID 2>/dev/null && ok "no device: the agent runs on" ||
	bad "the agent ended without a device"

# hotplug
plug "$W/sys/0000:00:05.0" "$SHM"
wait_for "$W/agent.err" "attached to the region on 0000:00:05.0" && attached "$SHM" &&
	ok "device plugged in: attached" || { bad "no attach after the plug"; cat "$W/agent.err"; }
[ -S "$SOCK" ] && [ -S "$SOCK.wake" ] && ok "marker socket and its wake socket bound while attached" ||
	bad "no marker socket, or no wake socket"

# unplug: the sysfs entry goes; the mapping stays valid (a regular file)
rm -rf "$W/sys/0000:00:05.0"
wait_for "$W/agent.err" "0000:00:05.0 went away (unplugged): detached" &&
	ok "device unplugged: $(grep -m1 '05.0 went away' "$W/agent.err" | cut -c 1-100)..." ||
	{ bad "no detach after the unplug"; cat "$W/agent.err"; }
kill -0 $AGENT_PID 2>/dev/null && ok "the agent runs on after the unplug" ||
	bad "the agent ended after the unplug"
{ [ -S "$SOCK" ] || [ -S "$SOCK.wake" ]; } && bad "marker socket or its wake socket left behind" ||
	ok "marker socket and its wake socket gone with the device"
# nothing is written to a device once it is gone: the region's status
# still says attached (the agent could not clear it), and its heartbeat
# stands still
hb1=$("$RINGSIDE" stat "$SHM" 2>/dev/null | grep -o 'heartbeat [0-9]*')
sleep 0.3
hb2=$("$RINGSIDE" stat "$SHM" 2>/dev/null | grep -o 'heartbeat [0-9]*')
[ -n "$hb1" ] && [ "$hb1" = "$hb2" ] && ok "nothing written after the unplug ($hb1)" ||
	bad "heartbeat moved after the unplug: '$hb1' -> '$hb2'"

# a second device, at another address
plug "$W/sys/0000:00:06.0" "$SHM.2"
wait_for "$W/agent.err" "attached to the region on 0000:00:06.0" && attached "$SHM.2" &&
	ok "second device: attached again, no restart" ||
	{ bad "no attach to the second device"; cat "$W/agent.err"; }

# the BAR revoked under the agent: the file cut to nothing, so every
# access to the mapping is a SIGBUS
truncate -s 0 "$SHM.2"
wait_for "$W/agent.err" "0000:00:06.0 went away (its BAR faulted): detached" &&
	ok "BAR revoked: $(grep -m1 '06.0 went away' "$W/agent.err" | cut -c 1-100)..." ||
	{ bad "no detach after the fault"; cat "$W/agent.err"; }
kill -0 $AGENT_PID 2>/dev/null && ok "the agent survived the SIGBUS" ||
	{ bad "the agent died"; wait $AGENT_PID; echo "status $?"; cat "$W/agent.err"; AGENT_PID=; }
rm -rf "$W/sys/0000:00:06.0"

# and once more after all that
plug "$W/sys/0000:00:07.0" "$SHM"
wait_for "$W/agent.err" "attached to the region on 0000:00:07.0" && attached "$SHM" &&
	ok "third device: attached" || { bad "no third attach"; cat "$W/agent.err"; }

if [ -n "$AGENT_PID" ]; then
	kill -TERM $AGENT_PID
	wait $AGENT_PID
	rc=$?
	AGENT_PID=
	[ $rc = 0 ] && "$RINGSIDE" stat "$SHM" | grep -q "agent not attached" &&
		ok "SIGTERM: detached cleanly, status 0" || { bad "SIGTERM: status $rc"; cat "$W/agent.err"; }
fi
n=$(grep -c "attached to the region" "$W/agent.err")
[ "$n" = 3 ] && ok "one agent process, 3 attachments" || bad "$n attachments"
[ $fails = 0 ]
