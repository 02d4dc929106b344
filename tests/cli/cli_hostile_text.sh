#!/bin/bash
# Strings ringside did not write reach no terminal raw: a guest whose
# identity holds quotes and backslashes, and a file whose identity
# strings (version, the reading host's name and release, the guest's
# host name and release, the command line) were patched to hold an OSC
# title sequence, CSI, C1, DEL, newlines and bytes that are not UTF-8.
# report's text and dump's lines hold no control byte but the newline
# and nothing past ASCII, the quoted lines escape their quotes; report
# --json is valid UTF-8 that python's json module reads, its strings the
# file's (malformed bytes as U+FFFD).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || fail "python3 is needed"

R=$RINGSIDE
REG=$(region hostile)
"$PRODUCER" create "$REG" --rings 2 --data-pages 16 --overwrite || fail "create"
"$PRODUCER" identity "$REG" --release '6.1"\rel' --host 'ev"il\host' || fail "identity"
"$PRODUCER" write "$REG" --records 100 --samples 10 --markers 5 \
	--comm "$(printf 'c\033]0;t\007')" >/dev/null || fail "producer"

# clean FILE: no control byte but the newline, nothing past ASCII
clean() {
	python3 - "$1" <<'PYEOF' || { cat -v "$1" >&2; fail "$(basename "$1"): raw bytes on the terminal"; }
import sys
data = open(sys.argv[1], "rb").read()
bad = [(i, b) for i, b in enumerate(data) if (b < 0x20 and b != 0x0a) or b >= 0x7f]
if bad:
    print("bytes", bad[:10], file=sys.stderr)
    sys.exit(1)
PYEOF
}

note "the guest's quotes and backslashes escaped in its quoted identity"
run 0 snap "$R" snapshot "$REG" -o "$WORK/h.data"
expect_in "$WORK/snap.out" 'host "ev\"il\\host", release "6.1\"\\rel"'
clean "$WORK/snap.out"
run 0 stat "$R" stat "$REG"
expect_in "$WORK/stat.out" 'host "ev\"il\\host", release "6.1\"\\rel"'
clean "$WORK/stat.out"

note "a file's identity strings patched to hold terminal sequences"
python3 - "$WORK/h.data" "$WORK/hostile.bin" "$R" <<'PYEOF' || fail "patching the file"
import os, re, struct, sys
path, out, ringside = sys.argv[1], sys.argv[2], sys.argv[3]
data = bytearray(open(path, "rb").read())
evil = (b'\x1b]0;owned\x07 "q" \\ \x1b[2J\x9b1m\x7f\xff\xfe\xc3\xa9\t\nend')
# perf's strings: a u32 length (a multiple of 64), then the string and
# NULs; each one below is overwritten whole, its length kept
names = [b'ringside ' + v for v in re.findall(rb'ringside ([0-9][0-9.]*)\0', data)]
names += [os.uname().nodename.encode(), os.uname().release.encode(),
          b'ev"il\\host', b'6.1"\\rel', ringside.encode()]
done = 0
for name in set(names):
    at = 0
    while (at := data.find(name + b'\0', at)) >= 4:
        (n,) = struct.unpack_from("<I", data, at - 4)
        if n % 64 == 0 and len(name) < n <= 4096:
            data[at:at + n] = (evil[:n - 1]).ljust(n, b'\0')
            done += 1
        at += 1
assert done >= 6, done
open(path, "wb").write(data)
open(out, "wb").write(evil[:63])
print("patched", done, "strings")
PYEOF

run 0 report "$R" report "$WORK/h.data"
clean "$WORK/report.out"
expect_in "$WORK/report.out" 'written by \x1b]0;owned\x07 "q" \\ \x1b[2J\x9b1m\x7f\xff\xfe\xc3\xa9\x09\x0aend on \x1b]0;owned'
expect_in "$WORK/report.out" 'command: \x1b]0;owned\x07'

run 0 json "$R" report "$WORK/h.data" --json
clean "$WORK/json.out"
python3 - "$WORK/json.out" "$WORK/hostile.bin" <<'PYEOF' || { cat "$WORK/json.out" >&2; fail "report --json"; }
import json, sys
doc = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
evil = open(sys.argv[2], "rb").read().decode("utf-8", "replace")
for k in ("version", "hostname"):
    assert doc[k] == evil, (k, doc[k], evil)
assert doc["cmdline"].startswith(evil + " snapshot "), doc["cmdline"]
print("json: version, hostname and cmdline as the file has them")
PYEOF

run 0 dump "$R" dump "$WORK/h.data"
clean "$WORK/dump.out"
expect_in "$WORK/dump.out" 'comm="c\x1b]0;t\x07"'
expect_in "$WORK/dump.out" 'id=0 pid=4242 tid=4243 "marker 0"'
echo "PASS"
