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
# What meson's configure step looked for on this host and setup.sh may
# install later (setup.sh --demo installs less than --test): QEMU's plugin
# header, and the libraries found with required: false.  A tree configured
# before they were there is configured again once they are, so that a
# build the demo made is the one the tests want.
host_env() {
	bash scripts/qemu-plugin-header.sh --cached 2>/dev/null || true
	local p
	for p in check libvirt lttng-ust; do
		pkg-config --exists "$p" 2>/dev/null && echo "$p"
	done
	return 0
}
env_file=$dir/.rs-build-env
if [ ! -f "$dir/build.ninja" ]; then
	meson setup "$dir" "$@" >"$log" 2>&1 ||
		{ tail -n 40 "$log" >&2; echo "build.sh: meson setup $dir failed" >&2; exit 1; }
	printf '%s\n' "$opts" >"$opts_file"
	host_env >"$env_file"
elif [ -f "$env_file" ] && [ "$(cat "$env_file")" != "$(host_env)" ]; then
	meson setup --reconfigure "$dir" >"$log" 2>&1 ||
		{ tail -n 40 "$log" >&2; echo "build.sh: meson setup --reconfigure $dir failed" >&2; exit 1; }
	host_env >"$env_file"
elif [ ! -f "$env_file" ]; then
	host_env >"$env_file"   # a tree configured before this check existed
fi
if [ "$(cat "$opts_file" 2>/dev/null || true)" != "$opts" ]; then
	# meson configure, not setup --reconfigure: meson before 1.4 ignores
	# b_* options (b_sanitize) on a reconfigure.  ninja regenerates.
	meson configure "$dir" "$@" >"$log" 2>&1 ||
		{ tail -n 40 "$log" >&2; echo "build.sh: meson configure $dir failed" >&2; exit 1; }
	printf '%s\n' "$opts" >"$opts_file"
fi
ninja -C "$dir" >"$log" 2>&1 ||
	{ tail -n 60 "$log" >&2; echo "build.sh: the build in $dir failed" >&2; exit 1; }
