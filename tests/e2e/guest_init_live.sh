#!/bin/busybox sh
# shellcheck shell=dash
# /init of the e2e guest of e2e_libvirt_live.sh (a busybox initramfs): the
# agent starts before any ringside device exists (--follow) and is never
# restarted.  The harness reads these lines on the serial console:
#   E2E-IVSHMEM [BDF...]   the 1af4:1110 devices in /sys/bus/pci/devices,
#                          at boot and whenever they change
#   E2E-MARK N up=S        marker "live N" is in the ring (--sync), at
#                          guest uptime S; the first after each attach
# and the agent's own messages (stderr: the console).
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs run /run
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
echo "E2E-BOOT mode=live"

ivshmem() {
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")$(cat "$d/device")" = 0x1af40x1110 ] &&
			printf ' %s' "${d##*/}"
	done
}
ringside-agent --follow -t 100 &
(
	last=x
	while :; do
		now=$(ivshmem)
		[ "$now" != "$last" ] && echo "E2E-IVSHMEM [$now ]"
		last=$now
		sleep 0.2
	done
) &
# a marker a second; said on the console the first time after each attach
i=0 said=0
while :; do
	if ringside-mark --sync 5 "live $i" 2>/dev/null; then
		[ $said = 0 ] && echo "E2E-MARK $i up=$(cut -d' ' -f1 /proc/uptime)"
		said=1
	else
		said=0
	fi
	i=$((i + 1))
	sleep 1
done
