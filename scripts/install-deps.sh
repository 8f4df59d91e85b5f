#!/bin/sh
# Install what mmlock needs on Debian 12 (bookworm).  Idempotent: packages
# already present are not touched.  Groups: build (default), kernel (patched
# kernel in QEMU), gpu (the extmem workload), bench (peers the benchmarks
# measure against), arm64 (make ARCH=arm64: the cross compiler, the arm64
# -dev packages through multiarch, qemu-aarch64-static to test them), device
# (mmlock device and its arm64 guest test: adb, ssh, qemu-system-aarch64,
# dropbear for the guest), report (headless Chromium, to test mmlock report's
# page), all (everything but bench).
set -eu

build="build-essential pkg-config libtracefs-dev libtraceevent-dev libjson-c-dev libdw-dev
	libtracecmd-dev libzstd-dev zlib1g-dev zstd gzip jq cppcheck clang libclang-rt-14-dev"
kernel="qemu-system-x86 busybox-static e2fsprogs cpio bc flex bison
	libelf-dev libssl-dev gcc-aarch64-linux-gnu ccache xz-utils kmod"
gpu="libvulkan-dev mesa-vulkan-drivers libegl-dev libgles-dev"
bench="time linux-perf"
arm64="gcc-aarch64-linux-gnu libc6-dev:arm64 libtracefs-dev:arm64 libtraceevent-dev:arm64
	libjson-c-dev:arm64 libzstd-dev:arm64 zlib1g-dev:arm64 qemu-user-static"
device="adb openssh-client qemu-system-arm dropbear-bin libtomcrypt1:arm64 libtommath1:arm64 libgmp10:arm64
	libcrypt1:arm64 zlib1g:arm64 e2fsprogs cpio gzip jq"

report="chromium"

want=""
[ $# -eq 0 ] && set -- build
for group in "$@"; do
	case "$group" in
	build)	want="$want $build" ;;
	kernel)	want="$want $kernel" ;;
	gpu)	want="$want $gpu" ;;
	bench)	want="$want $bench" ;;
	arm64)	want="$want $arm64" ;;
	device)	want="$want $arm64 $device" ;;
	report)	want="$want $report" ;;
	all)	want="$want $build $kernel $gpu $arm64 $device $report" ;;
	*)	echo "install-deps: unknown group '$group' (build, kernel, gpu, bench, arm64, device, report, all)" >&2; exit 2 ;;
	esac
done

missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: need root to install:$missing" >&2
	exit 1
fi
echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# arm64 packages come through multiarch; adding the architecture twice is harmless
case "$missing" in
*:arm64*)
	dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64 ;;
esac
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
