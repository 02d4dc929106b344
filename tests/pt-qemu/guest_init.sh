#!/bin/busybox sh
# shellcheck shell=dash
# /init of the pt-qemu guest: a fixed workload in the kernel (files,
# /proc, pipes, processes), then power off.  The harness waits for QEMU
# to exit; the PTQ-* lines on the serial console say how far it got.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t tmpfs tmp /tmp
echo "PTQ-BOOT"
i=0
while [ $i -lt 40 ]; do
	cat /proc/interrupts /proc/meminfo > /tmp/f
	ls -l /bin > /dev/null
	sha256sum /tmp/f | cut -c1-8 > /dev/null
	i=$((i + 1))
done
echo "PTQ-DONE"
poweroff -f
