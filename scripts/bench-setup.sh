#!/usr/bin/env bash
# What bench/anchors.py needs beyond scripts/setup.sh: LTTng-UST (headers,
# for bench/lttng-anchor) and lttng-tools (the session and consumer
# daemons).  Benchmark only: no test and no demo needs them, so setup.sh
# and CI do not install them.  perf comes with setup.sh.  Idempotent;
# reconfigure the build afterwards (meson setup --reconfigure DIR) so that
# meson finds lttng-ust.
set -euo pipefail
pkgs=(liblttng-ust-dev lttng-tools)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		"${missing[@]}"
fi
