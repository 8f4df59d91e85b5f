#!/bin/bash
# Boot the CONFIG_MODULES=y kernel with the stock-header module (by hand, see
# ../README.md "What was verified"; paths are those of that one run).
set -u
top=/work/main
export O=/var/tmp/mmlock-android/verify/android14-6.1/o
. $top/tests/qemu/lib.sh
M=/var/tmp/mmlock-android/modtest
QWORK=$(mktemp -d /tmp/mmlock-modtest.XXXXXX)
trap 'qemu_cleanup; rm -rf "$QWORK"' EXIT
QBIN=$QSTATE/bin
qemu_initramfs $QWORK/initramfs.gz $M/tests.sh $M/mod/mltest.ko || exit 1
qemu_disk $QWORK/data.img || exit 1
MMLOCK_QEMU_TIMEOUT=300 MMLOCK_QEMU_APPEND="tsc=reliable" qemu_boot $M/obj-patched/arch/x86/boot/bzImage $QWORK/initramfs.gz $QWORK/data.img $M/console.log test
echo "qemu rc=$?"
