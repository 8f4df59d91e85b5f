# shellcheck shell=bash
# Shared by tests/qemu/run and bench/tracepoint-cost/run: build the guest's
# static binaries, an initramfs, the ext4 data disk, boot QEMU and read the
# serial console.  Source it after setting $top (repository root); every
# function writes into $QWORK (a temporary folder the caller removes) or
# $QSTATE (persistent build outputs under $O/qemu).
#
# Environment: O (build folder, default build), MMLOCK_QEMU_TIMEOUT (seconds
# per boot, default 600), MMLOCK_QEMU_ACCEL (default tcg), MMLOCK_QEMU_ARCH
# (x86_64, default, or arm64: qemu-system-aarch64 -M virt), MMLOCK_QEMU_ICOUNT
# (TCG only: e.g. "shift=0", the guest clock counts executed instructions,
# so timings do not depend on the load of the host), MMLOCK_QEMU_IOPS
# (QEMU throttling.iops-total on the data disk, default off),
# MMLOCK_DELAY_MS (dm-delay read delay in the guest, default 50),
# MMLOCK_QEMU_APPEND (more kernel command line), MMLOCK_QEMU_SMP (vCPUs,
# default 4; Linux 6.1 never brings its secondary CPUs up under -icount, so
# verify-android --cost boots it with 1).

O=${O:-build}
case "$O" in /*) ;; *) O="$top/$O" ;; esac
QSTATE=$O/qemu
QPID=""

qlog() { echo "# qemu: $*"; }

# Kill the QEMU we started (if any); for the caller's trap.
qemu_cleanup() {
	if [ -n "$QPID" ] && kill -0 "$QPID" 2>/dev/null; then
		kill "$QPID" 2>/dev/null
		sleep 1
		kill -9 "$QPID" 2>/dev/null
	fi
	QPID=""
}

qemu_deps() {
	local missing=""
	for c in qemu-system-x86_64 busybox mke2fs cpio gzip gcc make flex bison bc; do
		command -v "$c" >/dev/null || missing="$missing $c"
	done
	[ -z "$missing" ] && return 0
	"$top/scripts/install-deps.sh" build kernel >&2 || return 1
}

# Static binaries for the guest: mmlock (the project's own build, linked
# statically) and the C programs of tests/qemu/guest and any extra sources.
# Sets QBIN (folder).
qemu_build_static() {
	local s name
	QBIN=$QSTATE/bin
	mkdir -p "$QBIN" "$QSTATE/static"
	make -s -C "$top" O="$QSTATE/static" LDFLAGS=-static "$QSTATE/static/mmlock" >&2 || return 1
	file_is_static "$QSTATE/static/mmlock" || { echo "mmlock is not statically linked" >&2; return 1; }
	cp "$QSTATE/static/mmlock" "$QBIN/mmlock"
	for s in "$top"/tests/qemu/guest/*.c "$@"; do
		[ -e "$s" ] || continue
		name=$(basename "$s" .c)
		if [ ! -x "$QBIN/$name" ] || [ "$s" -nt "$QBIN/$name" ]; then
			gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -static -pthread \
				-o "$QBIN/$name" "$s" >&2 || return 1
		fi
	done
}

file_is_static() {
	# a static executable has no PT_INTERP
	! LC_ALL=C readelf -l "$1" 2>/dev/null | grep -q 'INTERP'
}

# qemu_initramfs OUT SCRIPT...: busybox + /init + guest binaries + the given
# scripts (copied to / under their own names).
qemu_initramfs() {
	local out=$1 stage=$QWORK/initramfs f
	shift
	rm -rf "$stage"
	mkdir -p "$stage/bin" "$stage/dev" "$stage/proc" "$stage/sys" "$stage/tmp"
	cp /bin/busybox "$stage/bin/busybox"
	file_is_static "$stage/bin/busybox" || { echo "/bin/busybox is not static (busybox-static)" >&2; return 1; }
	cp "$top/tests/qemu/guest/init" "$stage/init"
	cp "$QBIN"/* "$stage/bin/"
	for f in "$@"; do cp "$f" "$stage/$(basename "$f")"; done
	chmod 755 "$stage/init" "$stage"/*.sh 2>/dev/null
	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) > "$out"
	rm -rf "$stage"
}

# qemu_modules_cpio OUT KO...: a gzip'd cpio holding the given modules as
# /lib/modules/mmlock/NAME.ko.  Appended to an initramfs (cat base.gz
# modules.gz > per-kernel.gz: the kernel unpacks concatenated archives), it
# gives one guest image per kernel without rebuilding the rest.
qemu_modules_cpio() {
	local out=$1 stage=$QWORK/modstage ko
	shift
	rm -rf "$stage"
	mkdir -p "$stage/lib/modules/mmlock"
	for ko in "$@"; do cp "$ko" "$stage/lib/modules/mmlock/"; done
	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) > "$out"
	rm -rf "$stage"
}

# qemu_disk OUT: ext4 image (no journal) holding data.bin, 64 MiB of random
# bytes (zeros would be holes, which never wait for I/O).
qemu_disk() {
	local out=$1 stage=$QWORK/disk
	rm -rf "$stage"
	mkdir -p "$stage"
	head -c $((64 * 1024 * 1024)) /dev/urandom > "$stage/data.bin"
	rm -f "$out"
	mke2fs -q -F -t ext4 -O ^has_journal -E root_owner=0:0 -d "$stage" "$out" 96M >&2 || return 1
	rm -rf "$stage"
}

# qemu_boot KERNEL_IMAGE INITRD DISK LOG MODE: boot, wait (timeout), leave the
# serial console in LOG.  Returns QEMU's status (124 on timeout).
qemu_boot() {
	local kernel=$1 initrd=$2 disk=$3 log=$4 mode=$5 rc
	local timeout=${MMLOCK_QEMU_TIMEOUT:-600} accel=${MMLOCK_QEMU_ACCEL:-tcg} cpu=max
	local qemu=qemu-system-x86_64 board="" console=ttyS0
	[ "$accel" = kvm ] && cpu=host
	if [ "${MMLOCK_QEMU_ARCH:-x86_64}" = arm64 ]; then
		qemu=qemu-system-aarch64 board="-M virt" console=ttyAMA0
	fi
	local drive="file=$disk,format=raw,if=none,id=data,cache=none,aio=threads"
	[ -n "${MMLOCK_QEMU_IOPS:-}" ] && drive="$drive,throttling.iops-total=$MMLOCK_QEMU_IOPS"
	[ -n "${MMLOCK_QEMU_ICOUNT:-}" ] && board="$board -icount $MMLOCK_QEMU_ICOUNT"
	# shellcheck disable=SC2086
	timeout -k 10 "$timeout" $qemu $board -accel "$accel" -cpu "$cpu" -smp "${MMLOCK_QEMU_SMP:-4}" -m 2G \
		-nographic -no-reboot -nodefaults -serial stdio \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=$console loglevel=5 panic=-1 mmlock.mode=$mode mmlock.delay_ms=${MMLOCK_DELAY_MS:-50} ${MMLOCK_QEMU_APPEND:-}" \
		-drive "$drive" -device virtio-blk-pci,drive=data \
		</dev/null >"$log" 2>&1 &
	QPID=$!
	wait "$QPID"
	rc=$?
	QPID=""
	return $rc
}

# Console lines that fail a run wherever they appear.
SPLAT_RE='Kernel panic|WARNING: possible|WARNING: inconsistent|WARNING: suspicious|WARNING: CPU: |BUG: |BUG:|INFO: task .* blocked for more than|circular locking|possible recursive locking|DEBUG_LOCKS_WARN_ON|Oops:|general protection fault|detected stall|hung_task: blocked'

# qemu_report VARIANT LOG QEMU_RC [EXPECTED]: print the ok/not ok/skip lines
# of one boot (names prefixed "VARIANT: ") and the console checks; returns 1
# on failure.  EXPECTED: an extended regex of console lines that the boot
# provokes on purpose (the lockdep test's report); any other splat fails.
qemu_report() {
	local v=$1 log=$2 qrc=$3 expected=${4:-} bad=0 splat
	if grep -aq 'MMLOCK-BEGIN' "$log"; then
		echo "ok - $v: guest boots and runs /init ($(grep -a -m1 'MMLOCK-BEGIN' "$log" | sed 's/.*MMLOCK-BEGIN //'))"
	else
		echo "not ok - $v: guest boots and runs /init (qemu exit $qrc)"
		tail -n 30 "$log" | sed 's/^/# console: /'
		bad=1
	fi
	grep -a 'MMLOCK-T: ' "$log" | sed 's/^.*MMLOCK-T: //' |
		sed -e "s/^ok - /ok - $v: /" -e "s/^not ok - /not ok - $v: /" -e "s/^skip - /skip - $v: /"
	grep -a 'MMLOCK-T: not ok' "$log" >/dev/null && bad=1
	if grep -aq 'MMLOCK-END' "$log"; then
		echo "ok - $v: guest finished and powered off (no panic, no hang)"
	elif [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
		echo "not ok - $v: guest hung: no MMLOCK-END within ${MMLOCK_QEMU_TIMEOUT:-600}s"
		tail -n 40 "$log" | sed 's/^/# console: /'
		bad=1
	else
		echo "not ok - $v: guest died before MMLOCK-END (panic or crash, qemu exit $qrc)"
		tail -n 40 "$log" | sed 's/^/# console: /'
		bad=1
	fi
	splat=$(grep -anE "$SPLAT_RE" "$log" | { if [ -n "$expected" ]; then grep -avE "$expected"; else cat; fi; } | head -n 20)
	if [ -z "$splat" ]; then
		echo "ok - $v: console has no panic, lockdep, hung-task or BUG splat${expected:+ (other than the one provoked)}"
	else
		echo "not ok - $v: console has no panic, lockdep, hung-task or BUG splat${expected:+ (other than the one provoked)}"
		echo "$splat" | sed 's/^/# splat: /'
		bad=1
	fi
	return $bad
}
