# shellcheck shell=bash
# The arm64 device guest of tests/device: a QEMU virt machine (TCG, -cpu max)
# with the patched arm64 kernel, busybox, dropbear and a setuid su, reached
# over user-mode networking (host 127.0.0.1:PORT -> guest :22).  Source it
# after setting $top and $DWORK (a temporary folder the caller removes).
#
# Environment: O (build folder), MMLOCK_DEVICE_IMAGE (an arm64 Image to boot
# instead of tests/qemu/build-kernel's), MMLOCK_DELAY_MS (dm-delay, default 50),
# MMLOCK_DEVICE_TIMEOUT (seconds for the boot, default 300).

O=${O:-build}
case "$O" in /*) ;; *) O="$top/$O" ;; esac
DSTATE=$O/device
DPID=""
DPORT=""

dlog() { echo "# device: $*"; }

dev_cleanup() {
	if [ -n "$DPID" ] && kill -0 "$DPID" 2>/dev/null; then
		kill "$DPID" 2>/dev/null
		sleep 1
		kill -9 "$DPID" 2>/dev/null
	fi
	DPID=""
}

# the arm64 Image: MMLOCK_DEVICE_IMAGE, else build-kernel's cached one
# (--cached: only if already built).  Prints its path.
dev_kernel() {
	local cached=${1:-} dir
	if [ -n "${MMLOCK_DEVICE_IMAGE:-}" ]; then
		[ -s "$MMLOCK_DEVICE_IMAGE" ] && { echo "$MMLOCK_DEVICE_IMAGE"; return 0; }
		return 1
	fi
	# kernel-patches/config/arm64.config has what the guest needs (virtio-net,
	# ptys, the PL031 RTC)
	dir=$("$top/tests/qemu/build-kernel" $cached --arch arm64 base) || return 1
	[ -s "$dir/Image" ] && echo "$dir/Image"
}

# arm64 userland for the guest: mmlock (static), dmdelay, su, adbd, busybox,
# mksh and dropbear with its libraries (Debian arm64 packages, fetched once
# with apt-get download into $DSTATE/debs).
dev_build() {
	local deb
	mkdir -p "$DSTATE/bin" "$DSTATE/debs"
	make -s -C "$top" ARCH=arm64 O="$DSTATE/arm64" "$DSTATE/arm64/mmlock" >"$DWORK/make-arm64.log" 2>&1 ||
		{ grep -v "dlopen\|load_plugin" "$DWORK/make-arm64.log" >&2; return 1; }
	aarch64-linux-gnu-gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -static \
		-o "$DSTATE/bin/dmdelay" "$top/tests/qemu/guest/dmdelay.c" || return 1
	aarch64-linux-gnu-gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -static \
		-o "$DSTATE/bin/su" "$top/tests/device/guest-su.c" || return 1
	aarch64-linux-gnu-gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -static \
		-o "$DSTATE/bin/adbd" "$top/tests/device/adbd.c" || return 1
	for deb in busybox-static dropbear-bin mksh; do
		ls "$DSTATE/debs/${deb}_"*_arm64.deb >/dev/null 2>&1 && continue
		(cd "$DSTATE/debs" && chmod 777 . && apt-get download -q "$deb:arm64" >/dev/null 2>&1) || {
			echo "cannot fetch $deb:arm64 (apt-get download)" >&2; return 1; }
	done
	rm -rf "$DSTATE/debs/x"
	for deb in "$DSTATE"/debs/*.deb; do dpkg-deb -x "$deb" "$DSTATE/debs/x" || return 1; done
}

# the shared libraries a guest binary needs, from the host's arm64 multiarch
dev_libs() {
	local stage=$1 bin=$2 lib f
	for lib in $(aarch64-linux-gnu-readelf -d "$bin" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
		[ -e "$stage/lib/$lib" ] && continue
		for f in /lib/aarch64-linux-gnu/$lib /usr/lib/aarch64-linux-gnu/$lib; do
			if [ -e "$f" ]; then
				cp -L "$f" "$stage/lib/$lib"
				dev_libs "$stage" "$f"
				break
			fi
		done
		[ -e "$stage/lib/$lib" ] || { echo "no arm64 $lib (install-deps.sh device)" >&2; return 1; }
	done
}

# dev_rootfs OUT PUBKEY: the initramfs
dev_rootfs() {
	local out=$1 key=$2 stage=$DWORK/rootfs x=$DSTATE/debs/x
	[ -n "${DKEEP:-}" ] || rm -rf "$stage"
	mkdir -p "$stage"/{bin,sbin,usr/sbin,lib,etc,root/.ssh,home/shell/.ssh,dev,proc,sys,tmp}
	cp "$x/bin/busybox" "$stage/bin/busybox"
	# the shell is mksh (static, musl), as on Android: busybox's sh would run
	# its own su applet instead of /bin/su
	cp "$x/usr/lib/aarch64-linux-musl/bin/mksh" "$stage/bin/mksh"
	ln -s mksh "$stage/bin/sh"
	cp "$x/usr/sbin/dropbear" "$stage/usr/sbin/dropbear"
	cp /lib/ld-linux-aarch64.so.1 "$stage/lib/" 2>/dev/null ||
		cp -L /usr/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1 "$stage/lib/"
	dev_libs "$stage" "$x/usr/sbin/dropbear" || return 1
	cp "$DSTATE/bin/dmdelay" "$DSTATE/bin/adbd" "$stage/bin/"
	cp "$DSTATE/bin/su" "$stage/bin/su"
	chmod 4755 "$stage/bin/su"
	cp "$top/tests/device/guest-init" "$stage/init"
	chmod 755 "$stage/init"
	printf 'root:x:0:0:root:/root:/bin/sh\nshell:x:2000:2000:shell:/home/shell:/bin/sh\n' > "$stage/etc/passwd"
	printf 'root:x:0:\nshell:x:2000:\n' > "$stage/etc/group"
	printf '/bin/sh\n' > "$stage/etc/shells"
	# Android's getprop, for the product name mmlock device uses as DEVICE
	printf '#!/bin/sh\n[ "$1" = ro.product.device ] && echo mmlock-guest\n' > "$stage/bin/getprop"
	chmod 755 "$stage/bin/getprop"
	cp "$key" "$stage/root/.ssh/authorized_keys"
	cp "$key" "$stage/home/shell/.ssh/authorized_keys"
	chmod 700 "$stage/root" "$stage/root/.ssh" "$stage/home/shell/.ssh"
	chmod 600 "$stage/root/.ssh/authorized_keys" "$stage/home/shell/.ssh/authorized_keys"
	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) > "$out"
	[ -n "${DKEEP:-}" ] || rm -rf "$stage"
}

# dev_disk OUT: ext4 with 64 MiB of random data (as tests/qemu's disk)
dev_disk() {
	local out=$1 stage=$DWORK/disk
	[ -n "${DKEEP:-}" ] || rm -rf "$stage"
	mkdir -p "$stage/local/tmp"
	chmod 1777 "$stage/local/tmp"
	rm -f "$out"
	mke2fs -q -F -t ext4 -O ^has_journal -E root_owner=0:0 -d "$stage" "$out" 256M >&2 || return 1
	[ -n "${DKEEP:-}" ] || rm -rf "$stage"
}

# a free TCP port on 127.0.0.1
dev_port() {
	local p i
	for i in $(seq 1 50); do
		p=$((20000 + RANDOM % 40000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
	done
	return 1
}

# dev_boot IMAGE INITRD DISK LOG: start QEMU in the background, wait until
# ssh answers.  Sets DPID, DPORT (ssh) and DADBPORT (the test adbd).
dev_boot() {
	local image=$1 initrd=$2 disk=$3 log=$4 t0 limit=${MMLOCK_DEVICE_TIMEOUT:-300}
	DPORT=$(dev_port) || return 1
	DADBPORT=$(dev_port) || return 1
	[ "$DADBPORT" = "$DPORT" ] && DADBPORT=$((DPORT + 1))
	qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -accel tcg -smp 2 -m 1G \
		-nographic -no-reboot -nodefaults -serial stdio \
		-kernel "$image" -initrd "$initrd" \
		-append "console=ttyAMA0 loglevel=5 panic=-1 mmlock.delay_ms=${MMLOCK_DELAY_MS:-50}" \
		-netdev "user,id=n0,hostfwd=tcp:127.0.0.1:$DPORT-:22,hostfwd=tcp:127.0.0.1:$DADBPORT-:5555" \
		-device virtio-net-pci,netdev=n0 \
		-drive "file=$disk,format=raw,if=none,id=data,cache=none,aio=threads" \
		-device virtio-blk-pci,drive=data \
		</dev/null >"$log" 2>&1 &
	DPID=$!
	t0=$(date +%s)
	while ! grep -aq 'MMLOCK-DEVICE-READY' "$log"; do
		if ! kill -0 "$DPID" 2>/dev/null || [ $(( $(date +%s) - t0 )) -gt "$limit" ]; then
			return 1
		fi
		sleep 2
	done
	while ! dev_ssh root true 2>/dev/null; do
		[ $(( $(date +%s) - t0 )) -gt "$limit" ] && return 1
		sleep 2
	done
}

# dev_ssh USER CMD...: a command on the guest
dev_ssh() {
	local user=$1
	shift
	ssh -T -o BatchMode=yes -o ConnectTimeout=10 $DSSH_OPTS -p "$DPORT" "$user@127.0.0.1" -- "$@"
}
