#!/bin/bash
# The service's two endpoints under clients that never finish, with
# ringside-service itself (libvirt's test driver, no libvirtd): while
# another user holds 200 idle connections to /metrics, root 100 more
# and a few send half a request a byte at a time, and while a client
# trickles a request line into the control socket a byte at a time, a
# Prometheus-style scrape gets the metrics page and `ringside capture`
# gets the service's answer.  Nothing here is timed: the idle and slow
# clients stay connected (the trickle goes on) until both answers came,
# so without the endpoints' bounds neither would come at all; the wait
# for them is bounded only so that a hung service fails the test.
# Usage: svc_endpoints.sh RINGSIDE PRODUCER [RINGSIDE_SERVICE]
SERVICE=${3:-}
. "$(dirname "$0")/../cli/lib.sh" "$1" "$2"

[ -n "$SERVICE" ] || skip "built without libvirt: ringside-service not built"
command -v python3 >/dev/null || fail "python3 is needed"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SOCK=$WORK/run/service.sock
{
	echo "uri = test:///default"
	echo "socket = $SOCK"
	echo "metrics = 127.0.0.1:$PORT"
	echo "pprof = no"
	echo "record-dir = $WORK/rec"
} >"$WORK/service.conf"
"$SERVICE" --config "$WORK/service.conf" --capture-dir "$WORK/captures" \
	>"$WORK/service.out" 2>"$WORK/service.err" &
SVC=$!
BG_PIDS="$SVC"
wait_for "$SOCK" 30
grep -q "metrics at" "$WORK/service.err" || { cat "$WORK/service.err" >&2; fail "no metrics endpoint"; }

python3 - "$PORT" "$SOCK" "$RINGSIDE" >"$WORK/flood.out" 2>&1 <<'PYEOF' ||
import os, socket, subprocess, sys, threading, time, urllib.request

port, sock_path, ringside = int(sys.argv[1]), sys.argv[2], sys.argv[3]
WAIT = 120   # a hung service fails the test after this long, no sooner
held, stop = [], threading.Event()

def idle(n, uid=None):
    # sockets belong to the effective user that made them
    if uid is not None:
        os.seteuid(uid)
    try:
        for _ in range(n):
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            held.append(s)
    finally:
        if uid is not None:
            os.seteuid(0)

def slow_http():
    # half a request, a byte at a time, reconnecting when dropped
    while not stop.is_set():
        s = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
        try:
            for b in b"GET /metrics HTTP/1.1\r\nX: ":
                if stop.wait(0.2):
                    break
                s.send(bytes([b]))
        except OSError:
            pass
        s.close()

trickled = [0]
def slow_ctl():
    # a request line that never ends, a byte at a time, reconnecting
    while not stop.is_set():
        s = socket.socket(socket.AF_UNIX)
        s.connect(sock_path)
        try:
            for b in b"capture " + b"a" * 600:
                if stop.wait(0.1):
                    break
                s.send(bytes([b]))
                trickled[0] += 1
        except OSError:
            pass
        s.close()

idle(200, 65534 if os.geteuid() == 0 else None)
idle(100)
threads = [threading.Thread(target=f) for f in [slow_http] * 4 + [slow_ctl]]
for t in threads:
    t.start()
while trickled[0] < 3:          # the trickle has begun
    time.sleep(0.05)
try:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics",
                                timeout=WAIT) as r:
        page = r.read().decode()
        assert r.status == 200, r.status
    assert "ringside_" in page, page[:200]
    print("scrape: 200,", len(page), "bytes")
    cap = subprocess.run([ringside, "capture", "--socket", sock_path,
                          "test"], capture_output=True, text=True,
                         timeout=WAIT)
    print("capture:", cap.returncode, cap.stderr.strip())
    assert cap.returncode == 1 and "the service says: " in cap.stderr, cap
    print("trickled", trickled[0], "bytes meanwhile; idle held:", len(held))
    assert not stop.is_set() and all(t.is_alive() for t in threads)
finally:
    stop.set()
    for t in threads:
        t.join()
    for s in held:
        s.close()
PYEOF
	{ cat "$WORK/flood.out" >&2; cat "$WORK/service.err" >&2; fail "an endpoint was starved"; }
cat "$WORK/flood.out"
# the service still answers, and said what it dropped
python3 - "$PORT" >"$WORK/scrape.out" <<'PYEOF' || fail "no scrape after the flood"
import sys, urllib.request
with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=60) as r:
    sys.stdout.write(r.read().decode())
PYEOF
dropped=$(awk '/^ringside_http_connections_dropped_total /{print $2}' "$WORK/scrape.out")
[ "${dropped:-0}" -gt 0 ] || fail "no dropped connections counted: '$dropped'"
kill -TERM "$SVC"
wait "$SVC" || { cat "$WORK/service.err" >&2; fail "ringside-service failed at SIGTERM"; }
BG_PIDS=""
grep -F "a capture was asked for" "$WORK/service.err" | grep -v "^ringside-service: test: " &&
	fail "a request's name was logged that is not one"
exit 0
