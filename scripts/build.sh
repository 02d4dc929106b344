#!/usr/bin/env bash
# Configure and build one meson build directory.  Quiet when it works; on
# failure, the tail of what meson or ninja printed.
#   scripts/build.sh DIR [meson options...]
# The options are remembered in DIR/.rs-build-options: given others later,
# the directory is reconfigured with them (meson's rule then holds: an
# option set before and left out now keeps its value; give it again to
# change it, or remove DIR for the defaults).
set -euo pipefail
dir=$1; shift
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
opts_file=$dir/.rs-build-options
opts=
(($#)) && opts=$(printf '%q ' "$@")
if [ ! -f "$dir/build.ninja" ]; then
	meson setup "$dir" "$@" >"$log" 2>&1 ||
		{ tail -n 40 "$log" >&2; echo "build.sh: meson setup $dir failed" >&2; exit 1; }
	printf '%s\n' "$opts" >"$opts_file"
elif [ "$(cat "$opts_file" 2>/dev/null || true)" != "$opts" ]; then
	# meson configure, not setup --reconfigure: meson before 1.4 ignores
	# b_* options (b_sanitize) on a reconfigure.  ninja regenerates.
	meson configure "$dir" "$@" >"$log" 2>&1 ||
		{ tail -n 40 "$log" >&2; echo "build.sh: meson configure $dir failed" >&2; exit 1; }
	printf '%s\n' "$opts" >"$opts_file"
fi
ninja -C "$dir" >"$log" 2>&1 ||
	{ tail -n 60 "$log" >&2; echo "build.sh: the build in $dir failed" >&2; exit 1; }
