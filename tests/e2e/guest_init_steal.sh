#!/bin/busybox sh
# shellcheck shell=dash
# /init of the e2e guest whose vCPU the host takes away
# (e2e_libvirt_steal.sh): the agent, a busy loop per vCPU (each vCPU
# thread of QEMU always runnable), and a marker every 0.2 s, each said on
# the console as E2E-MARK N, until a key comes; then the agent ends.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs run /run
echo "E2E-BOOT"
ringside-agent -t 100 &
agent=$!
i=0
while [ ! -S /run/ringside/mark.sock ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -S /run/ringside/mark.sock ] || { echo "E2E-FAIL the agent did not start"; poweroff -f; }
for _ in 1 2; do
	sh -c 'while :; do :; done' &
done
( read -r _ < /dev/tty1; touch /run/stop ) &
i=1
while [ ! -e /run/stop ]; do
	ringside-mark $i "step $i" && echo "E2E-MARK $i"
	i=$((i + 1))
	sleep 0.2
done
kill -TERM $agent
wait $agent
echo "E2E-AGENT-EXIT rc=$?"
while :; do sleep 1000; done
