#!/usr/bin/env bash
# Set everything up and run the demo.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bash scripts/setup.sh
bash scripts/build.sh build
exec build/tools/ring-demo
