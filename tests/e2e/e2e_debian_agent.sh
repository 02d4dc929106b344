#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The guest package on a real Debian 12 guest with systemd, under a real
# libvirtd and QEMU (TCG):
#
#   e2e_debian_agent.sh RINGSIDE HOOK AGENT SOURCE_DIR PKG_BUILD_DIR
#
#  - scripts/package.sh --lintian builds both packages (in PKG_BUILD_DIR,
#    kept between runs), lintian reports no error, the host package has
#    no file in /etc and no maintainer script (it installs no hook and
#    restarts nothing); `apt-get install ./ringside-agent_*.deb`
#    installs it into a Debian root (debootstrap minbase + systemd-sysv,
#    udev, kmod, initramfs-tools, linux-image-amd64; e2e_debian_root.sh
#    caches it under /var/cache): no hand copy of the agent, nothing
#    enabled by hand;
#  - the root becomes a virtio disk (mke2fs -d), booted with the kernel and
#    initramfs of its own /boot (the guest's `uname -r` says so), 2 vCPUs,
#    a foreign ivshmem-plain device beside ringside's (a shared memory of
#    someone else's, all zeros);
#  - at boot udev and systemd start ringside-agent@<device>.service by
#    themselves, for ringside's device only: the guest says which units
#    run (E2E-STATE on the console), and `ringside stat` / `snapshot`
#    show the agent attached and the guest's markers in the ring;
#  - `disable --live`: the device goes, the unit stops (BindsTo=);
#  - Restart=on-failure: the guest kills its agent once (SIGKILL), and
#    systemd starts another that attaches again;
#  - `enable --live` (normal mode): the device comes back (hotplug), a
#    unit starts again and the agent attaches again;
#  - kernel.kptr_restrict 2 in the guest (sysctl.d): the agent's kernel
#    symbols have their addresses, and the guest's value is 2 again after;
#  - `record DOMAIN` of a service compressing a file in a loop: `perf
#    report` names its gzip threads, and kernel functions;
#  - the agent's footprint at 1000 Hz (the hotplugged agent's), measured in
#    the guest over three windows of 10 s of steady state while `record
#    DOMAIN` drains its rings: VmRSS, VmHWM, and its CPU time (utime +
#    stime, and schedstat's ns) as a share of the window x the vCPUs, its
#    wakeups; then the same of this host's `perf record -F 1000 -g -a`
#    (copied into the root) over three windows of its steady state, the
#    agent still running: each window and both medians printed side by
#    side, not judged;
#  - a flight recorder of the gzip service, whose processes come and go
#    (each a shell's fork, exec'd, ended long before the ring is read):
#    `enable --live` in overwrite mode, 16 pages, 1000 Hz; once a ring has
#    wrapped 5 times, of all user samples at most 1 % are [unknown] to
#    perf report --sort dso in two live snapshots, in the snapshot of the
#    guest panicked by an NMI (kernel.unknown_nmi_panic), and in the
#    hook's capture at its destroy.
# Exit 77 when QEMU, libvirt or a kernel is missing.
# shellcheck disable=SC2015  # ok/bad never fail: A && ok || bad is if-else here
set -u
# shellcheck source=scripts/lib/libvirt-guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/libvirt-guest.sh"
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

RINGSIDE=$1 HOOK_PROGRAM=$2 AGENT=$3 SRC=$4 PKG_BUILD=$5
# Every wait below is a bound for a hung guest, never a pace it must keep:
# a TCG guest on a loaded host runs many times slower than on a quiet one
# (an agent's restart, kallsyms read included, took 60 s of the host's
# time under a load of 20).  RS_E2E_SLACK multiplies the bounds.
# RS_E2E_DEB_PROFILE=1: after perf record's footprint window, 30 s of the
# agent profiled in the guest (perf record -g -p), its top functions
# printed as PROFILE lines: where a guest with processes coming and going
# spends the agent's CPU.
SLACK=${RS_E2E_SLACK:-5}
DOM=rs-deb-$$
SHM=/dev/shm/ringside-$DOM
FOREIGN=rs-foreign-$$
HOOK=/etc/libvirt/hooks/qemu.d/ringside

e2e_need_own_libvirt
for p in mke2fs chroot dpkg-deb; do
	command -v $p >/dev/null || { bad "$p is missing (scripts/setup.sh installs it)"; exit 1; }
done

W=$(lg_workdir /tmp/rs-deb.XXXXXX)
DEFINED='' HOOKED=''
cleanup() {
	e2e_teardown
	rm -f "$SHM" "/dev/shm/$FOREIGN"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- the guest package, and the root it goes into --------------------------------
t=$(date +%s)
command -v lintian >/dev/null || { bad "lintian is missing (scripts/setup.sh installs it)"; exit 1; }
bash "$SRC/scripts/package.sh" --lintian -B "$PKG_BUILD" -o "$W" >"$W/debs" 2>"$W/package.log" ||
	{ bad "scripts/package.sh --lintian"; cat "$W/package.log"; exit 1; }
DEB=$(grep '/ringside-agent_[^/]*\.deb$' "$W/debs")
HOSTDEB=$(grep '/ringside_[^/]*\.deb$' "$W/debs")
[ -f "$DEB" ] && [ -f "$HOSTDEB" ] || { bad "package.sh made: $(cat "$W/debs")"; exit 1; }
ok "packages built in $(($(date +%s) - t)) s, lintian without errors: $(basename "$DEB") $(($(stat -c %s "$DEB") / 1024)) KiB, $(basename "$HOSTDEB") $(($(stat -c %s "$HOSTDEB") / 1024)) KiB"
grep 'lintian: [WE]:' "$W/package.log" | sed 's/^ *lintian: /--   lintian /'
# the host package touches nothing of libvirt's by itself: no file
# under /etc, no maintainer script that could restart a daemon
dpkg-deb -c "$HOSTDEB" | awk '{ print $6 }' > "$W/host.files"
dpkg-deb --ctrl-tarfile "$HOSTDEB" | tar -t > "$W/host.ctrl"
! grep -q '^\./etc/' "$W/host.files" && ! grep -qE 'inst|rm$' "$W/host.ctrl" &&
	grep -q '^\./usr/bin/ringside-hook$' "$W/host.files" &&
	ok "host package: ringside, ringside-hook$(grep -q qemu-pt "$W/host.files" && echo ", the QEMU plugin"), no /etc file, no maintainer script" ||
	bad "host package: $(grep '^\./etc/' "$W/host.files") $(cat "$W/host.ctrl")"
t=$(date +%s)
ROOT=$(bash "$(dirname "${BASH_SOURCE[0]}")/e2e_debian_root.sh" 2>"$W/root.log") ||
	{ bad "the Debian root"; cat "$W/root.log"; exit 1; }
ok "Debian 12 root in $(($(date +%s) - t)) s ($(grep -q built "$W/root.log" && echo "debootstrap" || echo "cached")): $ROOT"
R=$W/root
cp -a "$ROOT" "$R" || { bad "copying the root"; exit 1; }
cp "$DEB" "$R/tmp/"
chroot "$R" apt-get install -y -q "/tmp/$(basename "$DEB")" > "$W/apt.log" 2>&1 &&
	chroot "$R" dpkg-query -W -f='${Status} ${Version}' ringside-agent | grep -q 'install ok installed' &&
	ok "apt-get install ./$(basename "$DEB") in the guest's root: $(chroot "$R" dpkg-query -W -f='${Version}' ringside-agent)" ||
	{ bad "apt-get install in the root"; tail -n 20 "$W/apt.log"; exit 1; }
rm -f "$R/tmp/$(basename "$DEB")"
for f in usr/sbin/ringside-agent usr/bin/ringside-mark usr/lib/udev/rules.d/60-ringside-agent.rules \
	usr/lib/systemd/system/ringside-agent@.service; do
	[ -e "$R/$f" ] || bad "the package did not install /$f"
done
# nothing enabled by hand: no ringside link anywhere under /etc/systemd
[ -z "$(find "$R/etc/systemd" -name 'ringside*')" ] && ok "nothing of ringside enabled under /etc/systemd" ||
	bad "ringside links under /etc/systemd: $(find "$R/etc/systemd" -name 'ringside*')"

# this host's perf, to measure the guest's own `perf record` beside the
# agent (the same Debian release: its libraries where the root lacks them)
if command -v perf >/dev/null; then
	cp "$(command -v perf)" "$R/usr/bin/perf" || bad "copying perf into the root"
	for lib in $(ldd "$(command -v perf)" | awk '/=> \// { print $3 } /^\t\// { print $1 }'); do
		[ -e "$R$lib" ] || { mkdir -p "$R$(dirname "$lib")" && cp -L "$lib" "$R$lib"; } ||
			bad "copying $lib into the root"
	done
fi

# What the test adds to the guest, none of it ringside's: a service that
# says on the console which ringside units run and which ivshmem devices
# are there (E2E-STATE), and sends a marker every half second; and the
# agent's messages on the console as well as in the journal.
cat > "$R/usr/local/bin/rs-e2e-watch" <<'EOF'
#!/bin/sh
n=0 last= killed=0 seen=0 kptr= fpid=0 ft0=0 fu0=0 fwin=0 perfd=0
unplugged=0 hotplugged=0 profd=0
ppid=0 pt0=0 pu0=0 pwin=0 fs0= ps0=
echo "E2E-KERNEL $(uname -r) vcpus=$(nproc)"
# sched PID: CPU ns and times scheduled in (schedstat), voluntary switches
sched() {
	local st v=0 k x
	read -r st < "/proc/$1/schedstat" || st="0 0 0"
	while read -r k x; do
		[ "$k" = voluntary_ctxt_switches: ] && v=$x
	done < "/proc/$1/status"
	set -- $st
	echo "$1 $3 $v"
}
# win A B: ns=.. runs=.. vol=.. between two sched's
win() {
	set -- $1 $2
	echo "ns=$(($4 - $1)) runs=$(($5 - $2)) vol=$(($6 - $3))"
}
while :; do
	# kernel.kptr_restrict as the guest has it, when it changes
	# (shell builtins where they do: every process this loop starts is
	# work for the agent and samples in the record)
	read -r k < /proc/sys/kernel/kptr_restrict
	[ "$k" = "$kptr" ] || { echo "E2E-KPTR $k"; kptr=$k; }
	# the agent's footprint, in windows of 10 s of one agent process:
	# VmRSS, VmHWM (kB), its utime + stime (clock ticks) over the window
	# and the window's length (centiseconds of /proc/uptime)
	pid=
	case $last in *active/running*)
		pid=$(systemctl show -p MainPID --value 'ringside-agent@*.service' 2>/dev/null) ;;
	esac
	if [ -n "$pid" ] && [ "$pid" != 0 ] && read -r st < "/proc/$pid/stat"; then
		set -- $st
		shift 13
		tk=$(($1 + $2))
		read -r up _ < /proc/uptime
		up=$((${up%.*} * 100 + 1${up#*.} - 100))
		if [ "$pid" != "$fpid" ]; then
			fpid=$pid ft0=$tk fu0=$up fwin=0 fs0=$(sched "$pid")
			hotplugged=$unplugged
		elif [ $((up - fu0)) -ge 1000 ]; then
			fwin=$((fwin + 1))
			fs1=$(sched "$pid")
			echo "E2E-FOOT pid=$pid win=$fwin $(awk '/^Vm(RSS|HWM):/ { printf "%s=%s ", $1, $2 }' "/proc/$pid/status")ticks=$((tk - ft0)) hz=$(getconf CLK_TCK) csecs=$((up - fu0)) vcpus=$(nproc) $(win "$fs0" "$fs1")"
			ft0=$tk fu0=$up fs0=$fs1
		fi
	fi
	# once the hotplugged agent (the first seen after the device went
	# away) has had its four windows: this host's perf record doing what
	# the agent does, beside it, 50 s, its windows 2 to 4 of 10 s measured
	# the same way.  (Not the third agent: the boot's first one may be
	# killed before this loop ever sees its pid.)
	if [ $perfd = 0 ] && [ $hotplugged = 1 ] && [ $fwin -ge 4 ] && [ -x /usr/bin/perf ]; then
		perfd=1
		perf record -q -F 1000 -g -a -e cpu-clock -o /tmp/rs-e2e-perf.data \
			-- sleep 50 > /tmp/rs-e2e-perf.err 2>&1 &
		ppid=$!
		read -r up _ < /proc/uptime
		pu0=$((${up%.*} * 100 + 1${up#*.} - 100))
		ps0=$(sched "$ppid") pt0=0
	fi
	if [ $perfd = 1 ] && read -r st < "/proc/$ppid/stat" 2>/dev/null; then
		set -- $st
		shift 13
		tk=$(($1 + $2))
		read -r up _ < /proc/uptime
		up=$((${up%.*} * 100 + 1${up#*.} - 100))
		if [ $((up - pu0)) -ge 1000 ]; then
			pwin=$((pwin + 1))
			ps1=$(sched "$ppid")
			echo "E2E-PFOOT pid=$ppid win=$pwin ticks=$((tk - pt0)) hz=$(getconf CLK_TCK) csecs=$((up - pu0)) vcpus=$(nproc) $(win "$ps0" "$ps1")"
			pt0=$tk pu0=$up ps0=$ps1
			[ $pwin -ge 4 ] && perfd=2
		elif [ $pwin = 0 ] && [ $pt0 = 0 ]; then
			pt0=$tk
		fi
	elif [ $perfd = 1 ]; then
		# it ended before its second window: why, on the console
		perfd=3
		wait "$ppid"
		echo "E2E-PFAIL status=$? after $pwin windows: $(head -c 300 /tmp/rs-e2e-perf.err | tr '\n' ' ')"
	fi
	# RS_E2E_DEB_PROFILE=1 on the host: then where the agent's CPU goes,
	# 30 s of it sampled at 2000 Hz, its top functions on the console
	if [ $profd = 0 ] && [ $perfd -ge 2 ] && [ -e /etc/rs-e2e-profile ]; then
		profd=1
		perf record -q -F 2000 -g -p "$fpid" -o /tmp/rs-e2e-prof.data \
			-- sleep 30 > /dev/null 2>&1 &
		profpid=$!
	elif [ $profd = 1 ] && ! [ -e "/proc/$profpid/stat" ]; then
		profd=2
		perf report -i /tmp/rs-e2e-prof.data --no-children --stdio \
			--sort sym -g none 2> /dev/null | grep '%' | head -n 40 |
			sed 's/^/E2E-PROF /'
		echo "E2E-PROF-END"
	fi
	units=$(systemctl list-units --all --plain --no-legend 'ringside-agent@*' |
		awk '{ printf "%s:%s/%s ", $1, $3, $4 }')
	ivs=
	for d in /sys/bus/pci/devices/*; do
		read -r v < "$d/vendor"; read -r dv < "$d/device"
		[ "$v$dv" = 0x1af40x1110 ] && ivs="$ivs${d##*/} "
	done
	now="units=[ $units] ivshmem=[ $ivs]"
	if [ "$now" != "$last" ]; then
		echo "E2E-STATE $n up=$(cut -d' ' -f1 /proc/uptime) $now"
		last=$now
	fi
	# once the first agent has attached (it said so in the journal;
	# under TCG its start takes seconds or minutes): kill it as a crash
	# would, for Restart=on-failure
	case $now in *active/running*) seen=$((seen + 1)) ;; esac
	# no agent unit left after one ran: the device was unplugged
	case $now in "units=[ ]"*) [ $seen -ge 1 ] && unplugged=1 ;; esac
	if [ $killed = 0 ] && [ $seen -ge 1 ] &&
	   journalctl -b -q -o cat -u 'ringside-agent@*' 2>/dev/null |
	   grep -q 'attached to the region on'; then
		killed=1
		echo "E2E-KILLED $(systemctl show -p MainPID --value 'ringside-agent@*.service')"
		systemctl kill --signal=SIGKILL 'ringside-agent@*.service'
	fi
	ringside-mark 9 "deb $n" 2>/dev/null
	n=$((n + 1))
	sleep 0.5
done
EOF
chmod 755 "$R/usr/local/bin/rs-e2e-watch"
cat > "$R/etc/systemd/system/rs-e2e-watch.service" <<'EOF'
[Unit]
Description=ringside e2e: units and devices on the console
[Service]
ExecStart=/usr/local/bin/rs-e2e-watch
StandardOutput=journal+console
[Install]
WantedBy=multi-user.target
EOF
# a real workload: a service compressing a file in a loop
cat > "$R/etc/systemd/system/rs-e2e-work.service" <<'EOF'
[Unit]
Description=ringside e2e: CPU work
[Service]
ExecStart=/bin/sh -c 'while :; do gzip -6 -c /usr/bin/bash > /dev/null; done'
[Install]
WantedBy=multi-user.target
EOF
# kptr_restrict 2 hides kernel addresses from root too: the agent lowers it
# for its read of /proc/kallsyms and must put it back
echo 'kernel.kptr_restrict = 2' > "$R/etc/sysctl.d/60-rs-e2e.conf"
# an NMI from the host (virsh inject-nmi) panics the guest: the crash of
# the flight recorder's part
echo 'kernel.unknown_nmi_panic = 1' >> "$R/etc/sysctl.d/60-rs-e2e.conf"
ln -s /etc/systemd/system/rs-e2e-watch.service /etc/systemd/system/rs-e2e-work.service \
	"$R/etc/systemd/system/multi-user.target.wants/"
mkdir -p "$R/etc/systemd/system/ringside-agent@.service.d"
printf '[Service]\nStandardError=journal+console\n' \
	> "$R/etc/systemd/system/ringside-agent@.service.d/e2e-console.conf"
echo rs-deb > "$R/etc/hostname"
[ "${RS_E2E_DEB_PROFILE:-0}" = 1 ] && touch "$R/etc/rs-e2e-profile"
# the guest's own kernel and initramfs (linux-image-amd64's, made by
# initramfs-tools in the root), copied out of its /boot for libvirt's
# <kernel> and <initrd>, readable by QEMU's user in this 755 directory
KVER=$(find "$R/boot" -maxdepth 1 -name 'vmlinuz-*' | sed 's|.*/vmlinuz-||')
[ "$(echo "$KVER" | wc -w)" = 1 ] && [ -f "$R/boot/initrd.img-$KVER" ] &&
	[ -d "$R/lib/modules/$KVER" ] ||
	{ bad "want one kernel, its initrd and modules in the root's /boot: '$KVER'"; ls -l "$R/boot"; exit 1; }
cp "$R/boot/vmlinuz-$KVER" "$W/vmlinuz" && cp "$R/boot/initrd.img-$KVER" "$W/initrd.img" &&
	chmod 644 "$W/vmlinuz" "$W/initrd.img" || { bad "copying the kernel out of the root"; exit 1; }
ok "the image's own kernel $KVER ($(chroot "$R" dpkg-query -W -f='${Version}' linux-image-amd64 2>/dev/null)), initrd $(($(stat -c %s "$W/initrd.img") / 1048576)) MB (this host runs $(uname -r))"
t=$(date +%s)
DISK_MB=$(($(du -sm "$R" | cut -f1) * 3 / 2 + 256))
mke2fs -q -t ext4 -L rs-root -d "$R" "$W/disk.img" "${DISK_MB}M" > "$W/mke2fs.log" 2>&1 ||
	{ bad "mke2fs -d"; cat "$W/mke2fs.log"; exit 1; }
rm -rf "$R"
ok "disk image by mke2fs -d in $(($(date +%s) - t)) s: $(du -m "$W/disk.img" | cut -f1) MB used of $DISK_MB"

"$RINGSIDE" hook install --program "$HOOK_PROGRAM" --capture-dir "$W/captures" >/dev/null ||
	{ bad "hook install"; exit 1; }
HOOKED=1
lg_daemons_start "$W" || { bad "$LG_WHY"; exit 1; }
export HOME=$W/home PERF_CONFIG=/dev/null
mkdir -p "$HOME"

cat > "$W/domain.xml" <<EOF
<domain type='qemu'>
  <name>$DOM</name>
  <memory unit='MiB'>512</memory>
  <vcpu>2</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>$W/vmlinuz</kernel>
    <initrd>$W/initrd.img</initrd>
    <cmdline>root=/dev/vda rw console=ttyS0 quiet noresume</cmdline>
  </os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff>
  <devices>
    <disk type='file' device='disk'>
      <driver name='qemu' type='raw'/>
      <source file='$W/disk.img'/>
      <target dev='vda' bus='virtio'/>
    </disk>
    <shmem name='$FOREIGN'>
      <model type='ivshmem-plain'/>
      <size unit='M'>1</size>
    </shmem>
    <serial type='file'><source path='$W/console.log'/></serial>
    <memballoon model='none'/>
  </devices>
</domain>
EOF
vsh define "$W/domain.xml" >/dev/null || { bad "virsh define"; exit 1; }
DEFINED=1
"$RINGSIDE" enable "$DOM" --freq 100 --sideband-pages 1024 > "$W/out" 2>&1 ||
	{ bad "enable: $(cat "$W/out")"; exit 1; }

# state N: the console's Nth E2E-STATE line; states: how many
states() { grep -c "E2E-STATE" "$W/console.log" 2>/dev/null || true; }
state() { grep "E2E-STATE" "$W/console.log" | sed -n "${1}p" | tr -d '\r'; }
# wait_state REGEX SECONDS: until the newest E2E-STATE matches REGEX
wait_state() {
	local _
	for _ in $(seq $(($2 * 5 * SLACK))); do
		state '$' | grep -qE -- "$1" && return 0
		sleep 0.2
	done
	bad "no state like '$1' on the console within $(($2 * SLACK)) s (last: $(state '$'))"
	lg_console_tail "$W/console.log"
	return 1
}
ACTIVE='ringside-agent@[^ ]*:active/running'

t0=$(date +%s)
vsh start "$DOM" >/dev/null || { bad "virsh start"; exit 1; }
note "booting $DOM (TCG): Debian 12, systemd, on a virtio disk"
LG_PROGRESS=20 LG_SINCE=$t0 lg_wait_console "$W/console.log" "E2E-STATE" 300 ||
	{ bad "$LG_WHY"; lg_console_tail "$W/console.log"; exit 1; }
wait_state "$ACTIVE" 120 || exit 1
t1=$(date +%s)
S=$(state '$')
ok "at boot, udev and systemd started the agent by themselves, $((t1 - t0)) s after virsh start: $(echo "$S" | cut -c 1-160)"
GK=$(grep -a -m1 -o 'E2E-KERNEL [^ ]* vcpus=[0-9]*' "$W/console.log")
[ "$GK" = "E2E-KERNEL $KVER vcpus=2" ] &&
	ok "the guest runs the image's kernel: uname -r $KVER, 2 vCPUs" ||
	bad "the guest says '$GK', want 'E2E-KERNEL $KVER vcpus=2'"
# two ivshmem devices, one ringside unit: the foreign one started nothing
n_ivs=$(echo "$S" | sed 's/.*ivshmem=\[ \(.*\)\]/\1/' | wc -w)
n_units=$(echo "$S" | grep -o 'ringside-agent@[^ ]*' | wc -l)
[ "$n_ivs" = 2 ] && [ "$n_units" = 1 ] &&
	ok "2 ivshmem-plain devices, 1 ringside unit: the foreign device started nothing" ||
	bad "$n_ivs ivshmem devices, $n_units ringside units, want 2 and 1"
grep -q "ringside-agent.*\(none of\|cannot use\|failed\)" "$W/console.log" &&
	bad "the agent complained on the console" || ok "nothing said about the foreign device"
# Restart=on-failure: the guest kills the agent (SIGKILL) once
wait_console "E2E-KILLED [1-9]" 60 || exit 1
KPID=$(grep -a -m1 -o "E2E-KILLED [0-9]*" "$W/console.log" | cut -d' ' -f2)
for _ in $(seq $((150 * SLACK))); do
	[ "$(grep -c 'attached to the region on' "$W/console.log")" -ge 2 ] && break
	sleep 0.2
done
wait_state "$ACTIVE" 60 && [ "$(grep -c 'attached to the region on' "$W/console.log")" -ge 2 ] &&
	ok "Restart=on-failure: agent $KPID killed (SIGKILL), systemd started another, attached again" ||
	{ bad "no restart after the agent was killed"; lg_console_tail "$W/console.log"; }
grep -q "attached to the region on" "$W/console.log" &&
	ok "agent: $(grep -m1 'attached to the region on' "$W/console.log" | tr -d '\r' | sed 's/.*ringside-agent: //' | cut -c 1-110)" ||
	bad "no 'attached' message from the agent"

for _ in $(seq $((100 * SLACK))); do
	"$RINGSIDE" stat "$DOM" > "$W/stat1" 2>&1
	grep -q "agent attached (kind 2" "$W/stat1" && break
	sleep 0.3
done
grep -q "agent attached (kind 2" "$W/stat1" && ok "stat $DOM: agent attached" ||
	{ bad "stat: agent not attached"; cat "$W/stat1"; }
# a marker sent after the unit was seen active is in the ring
M0=$(state '$' | sed 's/.*E2E-STATE \([0-9]*\) .*/\1/')
for _ in $(seq $((60 * SLACK))); do
	"$RINGSIDE" snapshot "$DOM" -o "$W/boot.data" -q > /dev/null 2>&1
	"$RINGSIDE" dump "$W/boot.data" > "$W/dump" 2>&1
	last=$(grep -o 'marker .*"deb [0-9]*"' "$W/dump" | sed 's/.*"deb \([0-9]*\)"/\1/' | sort -n | tail -n 1)
	[ -n "$last" ] && [ "$last" -gt "$M0" ] && break
	sleep 0.5
done
[ -n "$last" ] && [ "$last" -gt "$M0" ] &&
	ok "snapshot: the guest's marker 'deb $last' and $(grep -c ' sample ' "$W/dump") samples" ||
	{ bad "snapshot: newest marker 'deb ${last:-none}', want > $M0"; tail -n 5 "$W/dump"; }
grep -q "guest kernel symbols: [1-9]" "$W/stat1" &&
	ok "$(grep -m1 'guest kernel symbols' "$W/stat1" | sed 's/^ *//' | cut -c 1-100)" ||
	bad "no guest kernel symbols in stat"
# kptr_restrict 2 (sysctl.d): the agent read the addresses (no 'zero
# address left out') and the guest has 2 again
kptr_now() { grep -a -o 'E2E-KPTR [0-9]*' "$W/console.log" | tail -n 1 | cut -d' ' -f2; }
grep -a -m1 -q 'E2E-KPTR 2' "$W/console.log" || bad "kernel.kptr_restrict was not 2 at boot: $(kptr_now)"
for _ in $(seq $((50 * SLACK))); do [ "$(kptr_now)" = 2 ] && break; sleep 0.2; done
[ "$(kptr_now)" = 2 ] && ! grep -a -q 'zero address left out' "$W/console.log" &&
	ok "kernel.kptr_restrict 2 in the guest: symbols read with their addresses, 2 again after" ||
	bad "kptr_restrict in the guest: $(kptr_now), want 2; $(grep -a -m1 'zero address' "$W/console.log")"

# The udev rule's question, asked on this host of a fake sysfs: the
# running domain's region file says yes, the foreign device's zeros say
# no, and neither answer prints anything.
F=$W/sysfs
for d in 0000:00:03.0 0000:00:04.0; do
	mkdir -p "$F/$d"
	echo 0x1af4 > "$F/$d/vendor"
	echo 0x1110 > "$F/$d/device"
done
cp "/dev/shm/$FOREIGN" "$F/0000:00:03.0/resource2"
cp "$SHM" "$F/0000:00:04.0/resource2"
"$AGENT" --probe --sysfs "$F" --device 0000:00:04.0 > "$W/probe.out" 2>&1; r1=$?
"$AGENT" --probe --sysfs "$F" --device /sys/devices/pci0000:00/0000:00:03.0 >> "$W/probe.out" 2>&1; r2=$?
rm -f "$F/0000:00:04.0/resource2"
"$AGENT" --probe --sysfs "$F" >> "$W/probe.out" 2>&1; r3=$?
[ "$r1$r2$r3" = 011 ] && [ ! -s "$W/probe.out" ] &&
	ok "--probe: ringside's region 0, the foreign device 1 (by sysfs path), none 1, silent" ||
	{ bad "--probe: statuses $r1$r2$r3, want 011; said: $(cat "$W/probe.out")"; }

# ---- disable --live: the unit stops with its device ----------------------------
BDF=$(echo "$S" | grep -o 'ringside-agent@[^ ]*' | sed 's/.*-\([0-9a-f]\{4\}:[0-9a-f:.]*\)\.service.*/\1/')
"$RINGSIDE" disable "$DOM" --live > "$W/out" 2>&1 ||
	{ bad "disable --live: $(cat "$W/out")"; exit 1; }
note "$(head -n 1 "$W/out")"
wait_state "units=\[ \] ivshmem=\[ [^ ]+ \]" 60 &&
	ok "disable --live: device $BDF gone, no ringside unit left: $(state '$' | cut -c 1-120)" || exit 1
grep -q "ringside-agent@.*\(failed\|core-dump\)" "$W/console.log" &&
	bad "a unit failed on the way out" || ok "the unit stopped cleanly"

# ---- enable --live: hotplug starts it again, at 1000 Hz ---------------------------
t=$(date +%s)
L0=$(wc -l < "$W/console.log")
"$RINGSIDE" enable "$DOM" --live --freq 1000 --mode normal > "$W/out" 2>&1 ||
	{ bad "enable --live: $(cat "$W/out")"; exit 1; }
wait_state "$ACTIVE" 60 &&
	ok "enable --live: a unit started again by udev and systemd alone, $(($(date +%s) - t)) s: $(state '$' | cut -c 1-120)" ||
	exit 1
for _ in $(seq $((100 * SLACK))); do
	"$RINGSIDE" stat "$DOM" > "$W/stat2" 2>&1
	grep -q "agent attached (kind 2" "$W/stat2" && break
	sleep 0.3
done
grep -q "agent attached (kind 2" "$W/stat2" && ok "stat $DOM: the new agent attached" ||
	{ bad "stat after enable --live: agent not attached"; cat "$W/stat2"; }
for _ in $(seq $((50 * SLACK))); do
	[ "$(grep -c 'attached to the region on' "$W/console.log")" -ge 3 ] && break
	sleep 0.2
done
[ "$(grep -c 'attached to the region on' "$W/console.log")" -ge 3 ] &&
	ok "the agent attached 3 times on the console: at boot, after the kill, after the hotplug" ||
	bad "no third 'attached' on the console"
tail -n +"$((L0 + 1))" "$W/console.log" | grep -a -q 'attached to the region on.* 1000 Hz' &&
	ok "the hotplugged agent samples at 1000 Hz" ||
	bad "the agent after enable --live --freq 1000: $(tail -n +"$((L0 + 1))" "$W/console.log" | grep -a -m1 'attached to the region' | tr -d '\r')"

# ---- the agent's footprint at 1000 Hz on 2 vCPUs, the gzip service running ----
# Windows 2 to 4 (10 s each) of the hotplugged agent (the first holds its
# start: the kallsyms read, the maps of every process), then windows 2 to
# 4 of the guest's own `perf record -F 1000 -g -a`, the agent still
# running beside it.  `ringside record` drains the normal rings all the
# while, as an operator's recording would (a ring nobody drains fills,
# and the agent then drops instead of copying).  Each window is printed,
# then both medians side by side.  A measurement: nothing is judged by
# it.
"$RINGSIDE" record "$DOM" -o "$W/rec.data" > "$W/record.out" 2>&1 &
RECPID=$!
# foot WHO: the console's footprint lines of windows 2 to 4
foot() { tail -n +"$((L0 + 1))" "$W/console.log" | grep -a "E2E-$1 .* win=[234] " | head -n 3 | tr -d '\r'; }
# footprint WHO LINES: a FOOTPRINT line per window, then their median's
# (schedstat's share of the vCPUs, as a number into $W/median.WHO)
footprint() {
	echo "$2" | sed 's/.*E2E-P*FOOT //' | awk -v who="$1" -v out="$W/median.${1%% *}" '
		function median(a, n,   i, j, t) {
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
					t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
				}
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		{ delete v
		  for (i = 1; i <= NF; i++) {
			  split($i, kv, "=")
			  v[kv[1]] = kv[2]
		  }
		  cpu = v["ticks"] / v["hz"]
		  secs = v["csecs"] / 100
		  share[NR] = 100 * v["ns"] / 1e9 / (secs * v["vcpus"])
		  wakes[NR] = v["runs"] / secs
		  vcpus = v["vcpus"]
		  printf "--   FOOTPRINT %s at 1000 Hz, %d vCPUs (TCG), window %s: ", who, v["vcpus"], v["win"]
		  if (v["VmRSS:"] != "")
			  printf "VmRSS %d KiB, VmHWM %d KiB, ", v["VmRSS:"], v["VmHWM:"]
		  printf "CPU %.2f s in %.2f s = %.2f%% of %d vCPUs (%.2f%% of one); schedstat %.4f s = %.3f%% of %d vCPUs, %.1f wakeups/s\n",
			cpu, secs, 100 * cpu / (secs * v["vcpus"]), v["vcpus"],
			100 * cpu / secs, v["ns"] / 1e9, share[NR], v["vcpus"], wakes[NR] }
		END { if (!NR)
			      exit
		      m = median(share, NR)
		      printf "--   FOOTPRINT %s, median of %d windows: %.3f%% of %d vCPUs, %.1f wakeups/s\n",
			who, NR, m, vcpus, median(wakes, NR)
		      printf "%.4f\n", m > out }'
}
for _ in $(seq $((200 * SLACK))); do [ "$(foot FOOT | grep -c .)" = 3 ] && break; sleep 0.3; done
F=$(foot FOOT)
if [ "$(echo "$F" | grep -c .)" = 3 ]; then
	ok "footprint at 1000 Hz, windows 2-4: $(echo "$F" | sed 's/.*E2E-FOOT //; s/ VmRSS.*ticks=/ ticks=/' | tr '\n' ';' | cut -c 1-200)"
	footprint agent "$F"
else
	bad "not three footprint windows of the agent after enable --live on the console: $(echo "$F" | grep -c .)"
	lg_console_tail "$W/console.log"
fi
if command -v perf >/dev/null; then
	# a bound for a hung guest: perf's start under TCG takes its time
	for _ in $(seq $((300 * SLACK))); do
		[ "$(foot PFOOT | grep -c .)" = 3 ] && break
		tail -n +"$((L0 + 1))" "$W/console.log" | grep -aq 'E2E-PFAIL' && break
		sleep 0.2
	done
	P=$(foot PFOOT)
	if [ "$(echo "$P" | grep -c .)" = 3 ]; then
		ok "perf record's footprint at 1000 Hz beside it, windows 2-4: $(echo "$P" | sed 's/.*E2E-PFOOT //' | tr '\n' ';' | cut -c 1-200)"
		footprint "perf record -g -a" "$P"
		[ -s "$W/median.agent" ] && [ -s "$W/median.perf" ] &&
			note "FOOTPRINT medians of windows 2-4: agent $(cat "$W/median.agent") %, perf record $(cat "$W/median.perf") % of the vCPUs (a measurement: not judged)"
		if [ "${RS_E2E_DEB_PROFILE:-0}" = 1 ]; then
			for _ in $(seq 1200); do
				tail -n +"$((L0 + 1))" "$W/console.log" | grep -aq 'E2E-PROF-END' && break
				sleep 0.5
			done
			tail -n +"$((L0 + 1))" "$W/console.log" | grep -a 'E2E-PROF ' |
				tr -d '\r' | sed 's/^.*E2E-PROF /--   PROFILE agent /'
		fi
	else
		note "not three footprint windows of the guest's perf record on the console (a measurement: not judged)$(tail -n +"$((L0 + 1))" "$W/console.log" | grep -a -m 1 'E2E-PFAIL' | tr -d '\r' | sed 's/^.*E2E-PFAIL/: perf record/')"
	fi
fi

# ---- record: the workload service's threads, the kernel's functions named ------
kill -INT $RECPID 2>/dev/null
wait $RECPID
rc=$?
[ $rc = 0 ] && [ -s "$W/rec.data" ] && ok "record $DOM through the footprint windows: $(du -k "$W/rec.data" | cut -f1) KiB, $(grep -m1 -o '[0-9]* records' "$W/record.out" || echo '?' records)" ||
	{ bad "record (status $rc): $(cat "$W/record.out")"; }
perf report -i "$W/rec.data" --stdio --sort comm -g none --no-children 2>/dev/null | grep -v '^#' | grep . > "$W/comm.report"
grep -q ' gzip *$' "$W/comm.report" &&
	ok "perf report names the service's threads: $(awk '/%/ { printf "%s %s, ", $2, $1 }' "$W/comm.report" | head -c 110)" ||
	{ bad "no gzip thread in perf report --sort comm"; head -n 10 "$W/comm.report"; }
perf --buildid-dir "$(rs_cache "$W/rec.data")" report -i "$W/rec.data" --stdio \
	--sort sym -g none --no-children 2>/dev/null | grep '\[k\]' > "$W/ksym.report"
named=$(grep -vc '\[k\] 0x' "$W/ksym.report")
[ "$named" -gt 0 ] &&
	ok "kernel samples named: $named functions, first: $(head -n 1 "$W/ksym.report" | sed 's/.*\[k\] //')" ||
	{ bad "no named kernel function in perf report"; head -n 5 "$W/ksym.report"; }

# ---- the flight recorder of processes that come and go -----------------------
# The gzip service's processes each live a few seconds at most under TCG,
# then end: long before a flight recorder is read, its ring has
# overwritten their births (FORK, exec, MMAP2); the agent's process table
# keeps them, ended, while the rings may hold their samples.
"$RINGSIDE" disable "$DOM" --live > "$W/out" 2>&1 || bad "disable --live (flight)"
wait_state "units=\[ \] ivshmem=\[ [^ ]+ \]" 60 || exit 1
L1=$(wc -l < "$W/console.log")
"$RINGSIDE" enable "$DOM" --live --freq 1000 --data-pages 16 > "$W/out" 2>&1 ||
	{ bad "enable --live (overwrite): $(cat "$W/out")"; exit 1; }
wait_state "$ACTIVE" 60 || exit 1
for _ in $(seq $((100 * SLACK))); do
	"$RINGSIDE" stat "$DOM" 2>/dev/null | grep -q "agent attached (kind 2" && break
	sleep 0.3
done
# the ring that wrote most, wrapped 5 times; not timed: as many looks as
# it takes
wraps=0
for _ in $(seq 300); do
	"$RINGSIDE" snapshot "$DOM" -o "$W/flive.data" > "$W/flive.out" 2>&1 ||
		{ bad "live snapshot (flight)"; cat "$W/flive.out"; break; }
	wraps=$(awk '/holds the newest/ && $4 > 0 { w = int($7 / $4); if (w > m) m = w }
		END { print m + 0 }' "$W/flive.out")
	[ "$wraps" -ge 5 ] && break
	sleep 1
done
[ "$wraps" -ge 5 ] && ok "flight: overwrite ring wrapped $wraps times under the gzip service" ||
	bad "flight: the ring wrapped only $wraps times"
unknown_judge "$W/flive.data" "flight, live snapshot 1"
sleep 2
"$RINGSIDE" snapshot "$DOM" -o "$W/flive2.data" > "$W/flive2.out" 2>&1 ||
	bad "live snapshot 2 (flight)"
unknown_judge "$W/flive2.data" "flight, live snapshot 2"
note "$(grep -m 1 'process state' "$W/flive2.out" | sed 's/^ *//')"
# the crash: an NMI the guest panics on
vsh inject-nmi "$DOM" > /dev/null || bad "virsh inject-nmi"
if wait_console "Kernel panic" 120; then
	"$RINGSIDE" snapshot "$DOM" --stable -o "$W/fcrash.data" > "$W/fcrash.out" 2>&1 ||
		{ bad "snapshot --stable after the panic"; cat "$W/fcrash.out"; }
	unknown_judge "$W/fcrash.data" "flight, crash snapshot"
	captures_now
	vsh destroy "$DOM" > /dev/null
	if cap=$(new_capture 20); then
		unknown_judge "$cap" "flight, the hook's capture"
	else
		bad "flight: no capture of the crashed domain by the hook"
	fi
fi
# the 1000 Hz normal-mode agent's words at its detach (disable --live)
sed -n "$((L0 + 1)),${L1}p" "$W/console.log" | grep -a "process state:\|mappings:\|woke [0-9]* times" |
	tr -d '\r' | sed 's/.*ringside-agent: /--   the agent said: /' | head -n 3

echo "$fails failure(s)"
[ $fails = 0 ]
