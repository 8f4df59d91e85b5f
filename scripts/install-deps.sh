#!/bin/sh
# Install what mmlock needs on Debian 12 (bookworm).  Idempotent: packages
# already present are not touched.  Groups: build (default), kernel (patched
# kernel in QEMU), gpu (the extmem workload), bench (peers the benchmarks
# measure against), all (everything but bench).
set -eu

build="build-essential pkg-config libtracefs-dev libtraceevent-dev libjson-c-dev
	libzstd-dev zlib1g-dev zstd gzip jq cppcheck"
kernel="linux-source-6.12 qemu-system-x86 busybox-static e2fsprogs cpio bc flex bison
	libelf-dev libssl-dev gcc-aarch64-linux-gnu ccache xz-utils kmod"
gpu="libvulkan-dev mesa-vulkan-drivers libegl-dev libgles-dev"
bench="time linux-perf"

want=""
[ $# -eq 0 ] && set -- build
for group in "$@"; do
	case "$group" in
	build)	want="$want $build" ;;
	kernel)	want="$want $kernel" ;;
	gpu)	want="$want $gpu" ;;
	bench)	want="$want $bench" ;;
	all)	want="$want $build $kernel $gpu" ;;
	*)	echo "install-deps: unknown group '$group' (build, kernel, gpu, bench, all)" >&2; exit 2 ;;
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
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
