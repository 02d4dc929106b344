#!/bin/busybox sh
# shellcheck shell=dash
# /init of the e2e guests that mark steps (e2e_libvirt_save.sh,
# e2e_libvirt_migrate.sh, e2e_libvirt_steal.sh): the agent, then a marker
# every 0.3 s, each said on the console as E2E-MARK N, until a key comes;
# then the agent ends.  With rs_e2e=steal on the kernel's command line
# (the guest whose vCPU the host takes away), a busy loop per vCPU besides,
# so that each vCPU thread of QEMU is always runnable, and a marker every
# 0.2 s that does not wait for the agent's answer.
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
sync=--sync pause=0.3
case " $(cat /proc/cmdline) " in
*" rs_e2e=steal "*)
	sync='' pause=0.2
	for _ in 1 2; do
		sh -c 'while :; do :; done' &
	done ;;
esac
( read -r _ < /dev/tty1; touch /run/stop ) &
i=1
while [ ! -e /run/stop ]; do
	# shellcheck disable=SC2086 # $sync: the option, or nothing
	ringside-mark $sync $i "step $i" && echo "E2E-MARK $i"
	i=$((i + 1))
	sleep $pause
done
kill -TERM $agent
wait $agent
echo "E2E-AGENT-EXIT rc=$?"
while :; do sleep 1000; done
