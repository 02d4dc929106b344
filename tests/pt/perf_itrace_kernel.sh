#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Kernel PT in a perf.data file of ringside's writer (pt_kernel_data: the
# generator over a code image at 0xffffffff81000000, the guest's kallsyms
# and code in ringside's build-id cache beside the file), decoded by
# perf's own intel_pt
# decoder and by `ringside decode`: both must print exactly the
# instructions the generator was fed, count and addresses, in order.
# Usage: perf_itrace_kernel.sh PT_KERNEL_DATA RINGSIDE
set -uo pipefail
gen=$1 ringside=$2
command -v perf >/dev/null || { echo "SKIP: no perf (scripts/setup.sh installs linux-perf)"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# perf's own cache, $HOME/.debug (no perfconfig pointing elsewhere), is
# not where the guest's code goes: ringside's beside the file, which
# perf reads with --buildid-dir and `ringside decode` finds by itself
export HOME=$dir/home PERF_CONFIG=/dev/null
mkdir -p "$HOME"
cache=$dir/.ringside-debug
"$gen" "$dir/pt.data" "$dir/truth" "$cache" || fail "pt_kernel_data"
n=$(wc -l < "$dir/truth")
entry=$(find "$cache/[kernel.kallsyms]" -mindepth 1 -maxdepth 1 -type d)
for f in kallsyms kcore modules; do
	[ -f "$entry/$f" ] || fail "no $f in the cache entry $entry"
done

perf --buildid-dir "$cache" script -i "$dir/pt.data" --itrace=i0ns -F ip,sym \
	2>"$dir/perf.err" \
	>"$dir/perf.txt" || fail "perf script: $(cat "$dir/perf.err")"
awk '{print $1}' "$dir/perf.txt" >"$dir/perf.ips"
if cmp -s "$dir/truth" "$dir/perf.ips"; then
	echo "ok   perf script --itrace=i0ns: the $n instructions fed, in order"
else
	echo "FAIL perf script --itrace: $(wc -l <"$dir/perf.ips") instructions, $n fed"
	diff "$dir/truth" "$dir/perf.ips" | head -n 10
	head -n 20 "$dir/perf.err"
	exit 1
fi
if ! grep -q ' rs_leaf$' "$dir/perf.txt" || ! grep -q ' rs_handler$' "$dir/perf.txt"; then
	fail "perf names no guest kernel function: $(head -n 3 "$dir/perf.txt")"
fi
echo "ok   perf names them from the guest's kallsyms (rs_leaf, rs_handler)"
[ "$(perf --buildid-dir "$cache" script -i "$dir/pt.data" --itrace=i 2>/dev/null |
	wc -l)" -le 1 ] ||
	fail "--itrace=i (one sample per 100000 instructions) gave more than one"

"$ringside" decode "$dir/pt.data" >"$dir/dec.txt" 2>"$dir/dec.err" ||
	fail "ringside decode: $(cat "$dir/dec.err")"
grep -E '^[0-9a-f]{16}  ' "$dir/dec.txt" | awk '{print $1}' | sed 's/^0*//' >"$dir/dec.ips"
cmp -s "$dir/truth" "$dir/dec.ips" ||
	fail "ringside decode: $(wc -l <"$dir/dec.ips") instructions, $n fed"
echo "ok   ringside decode: the same $n instructions"
echo ok
