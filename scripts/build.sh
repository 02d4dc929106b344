#!/usr/bin/env bash
# Configure (once) and build one meson build directory.  Quiet when it
# works; on failure, the tail of what meson or ninja printed.
#   scripts/build.sh DIR [meson options...]
set -euo pipefail
dir=$1; shift
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [ ! -f "$dir/build.ninja" ]; then
	meson setup "$dir" "$@" >"$log" 2>&1 ||
		{ tail -n 40 "$log" >&2; echo "build.sh: meson setup $dir failed" >&2; exit 1; }
fi
ninja -C "$dir" >"$log" 2>&1 ||
	{ tail -n 60 "$log" >&2; echo "build.sh: the build in $dir failed" >&2; exit 1; }
