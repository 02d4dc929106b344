#!/usr/bin/env bash
# Set everything up and run the demo: boot the freestanding guest in the
# ringside VMM on /dev/kvm, record it, snapshot a crashed flight recorder,
# and report both (scripts/demo-vmm.sh).  scripts/demo-ring.sh shows the
# ring protocol alone between two host processes.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bash scripts/setup.sh
exec bash scripts/demo-vmm.sh
