#!/usr/bin/env bash
# The ring protocol alone: two host processes share a memfd region; one
# produces in normal and overwrite mode, the other drains and snapshots.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bash scripts/setup.sh --demo
bash scripts/build.sh build
exec build/tools/ring-demo
