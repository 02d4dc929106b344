#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The hook's lines reach syslog, where an operator looks (the journal,
# /var/log/syslog), and not only libvirtd's debug log: ringside-hook lays a
# domain's region out at 'prepare begin' and keeps its flight recorder at
# 'release end' as libvirtd runs it, inside a mount namespace of its own
# whose /dev is a tmpfs with a /dev/log socket this test reads.  Wants
# each line as ringside-hook[PID], facility daemon, and the outcome of
# 'release end' among them.  Root (mounts); nothing outside the namespace
# is touched but a work directory under /tmp.
#   hook_syslog.sh RINGSIDE_HOOK
set -u
HOOK=$1
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || fail "root is needed (a mount namespace of its own)"
command -v unshare >/dev/null || fail "no unshare (util-linux)"
W=$(mktemp -d /tmp/rs-hook-syslog.XXXXXX) || fail "mktemp"
trap 'rm -rf "$W"' EXIT
DOM=rs-hook-syslog-$$

cat >"$W/dom.xml" <<EOF
<domain type='qemu'>
  <name>$DOM</name>
  <vcpu>1</vcpu>
  <metadata>
    <ringside:region xmlns:ringside="https://ringside.dev/xmlns/1"
        version="1" rings="1" data-pages="4" aux-pages="0"
        mode="overwrite" trace="samples,markers" freq="1000"
        sideband-pages="0"/>
  </metadata>
  <devices>
    <shmem name='ringside-$DOM' role='master'>
      <model type='ivshmem-plain'/>
      <size unit='M'>1</size>
    </shmem>
  </devices>
</domain>
EOF

# In the namespace: a /dev of our own (null, zero, urandom, an empty shm,
# log: a datagram socket read by a listener that writes each message as
# a line and stops at the test's own last message), then the hook.
unshare --mount --propagation private bash -s "$W" "$HOOK" "$DOM" <<'NS' >"$W/ns.out" 2>&1
set -u
W=$1 HOOK=$2 DOM=$3
D=$W/dev
mkdir "$D" && mount -t tmpfs -o mode=755 rs-test-dev "$D" || exit 1
mkdir "$D/shm" && chmod 1777 "$D/shm" || exit 1
for n in null zero urandom random; do
	touch "$D/$n" && mount --bind "/dev/$n" "$D/$n" || exit 1
done
python3 - "$D/log" "$W/syslog" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(120)          # a guard against a hang, never a pass
open(sys.argv[2] + ".ready", "w").close()
with open(sys.argv[2], "w") as out:
    while True:
        m = s.recv(65536).decode(errors="replace")
        if m == "rs-hook-syslog-end":
            break
        out.write(m.rstrip("\n") + "\n")
        out.flush()
PY
listener=$!
for _ in $(seq 200); do [ -e "$W/syslog.ready" ] && break; sleep 0.05; done
[ -e "$W/syslog.ready" ] || { echo "the listener did not start"; exit 1; }
mount --rbind "$D" /dev || exit 1
"$HOOK" --group root --capture-dir "$W/cap" "$DOM" prepare begin - <"$W/dom.xml"
echo "prepare: $?"
ls -l "/dev/shm/ringside-$DOM"
"$HOOK" --group root --capture-dir "$W/cap" "$DOM" release end - <"$W/dom.xml"
echo "release: $?"
python3 -c 'import socket; s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.sendto(b"rs-hook-syslog-end", "/dev/log")'
wait "$listener"
echo "listener: $?"
NS
cat "$W/ns.out"
grep -q '^prepare: 0$' "$W/ns.out" || fail "prepare begin failed"
grep -q '^release: 0$' "$W/ns.out" || fail "release end failed"
grep -q '^listener: 0$' "$W/ns.out" || fail "the syslog listener did not end well"
echo "-- syslog:"
cat "$W/syslog"
# <29>: facility daemon (3 * 8) + notice (5)
grep -q "^<29>.* ringside-hook\[[0-9]*\]: $DOM: flight recorder " "$W/syslog" ||
	fail "no 'ringside-hook[PID]: $DOM: flight recorder ...' line of facility daemon in syslog"
echo "ok: the hook's outcome of 'release end' is in syslog"
