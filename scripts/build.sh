#!/usr/bin/env bash
# Configure (once) and build one meson build directory.
#   scripts/build.sh DIR [meson options...]
set -euo pipefail
dir=$1; shift
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
if [ ! -f "$dir/build.ninja" ]; then
	meson setup "$dir" "$@" >/dev/null
fi
ninja -C "$dir" >/dev/null
