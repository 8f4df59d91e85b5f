#!/bin/sh
# tests/module's stress guest (busybox sh), installed as /unload-loop.sh and
# run by /init with mmlock.mode=unload-loop (tests/module/unload-stress).
# Loads and unloads mmlock_probe.ko CYCLES times in one boot while workloads
# fault, mprotect and fork and the module's events are enabled in a tracing
# instance: the "rmmod under load" step of module.sh, many times over, so
# that a rare crash at unload shows up in one boot instead of one in ten.
# Every cycle prints "MMLOCK-T: # cycle N"; the end "MMLOCK-T: # cycles
# done N of CYCLES in S s".  A crash ends the boot early (the host counts the
# cycles that completed before it).
#
# Kernel command line: mmlock.cycles=N (default 100), mmlock.stress_s=S (stop
# after S seconds even if fewer cycles ran, default 420), mmlock.delay_ms=N,
# mmlock.kpopt=0|1 (write /proc/sys/debug/kprobes-optimization first: 0 keeps
# every kprobe an int3, no jump optimization).
set -u
T=/sys/kernel/tracing
KO=/lib/modules/mmlock/mmlock_probe.ko
CYCLES=100
STRESS_S=420
DELAY_MS=50
KPOPT=""
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	mmlock.cycles=*) CYCLES=${arg#mmlock.cycles=} ;;
	mmlock.stress_s=*) STRESS_S=${arg#mmlock.stress_s=} ;;
	mmlock.delay_ms=*) DELAY_MS=${arg#mmlock.delay_ms=} ;;
	mmlock.kpopt=*) KPOPT=${arg#mmlock.kpopt=} ;;
	esac
done
say() { echo "MMLOCK-T: $*"; }

say "# kernel $(uname -r), $CYCLES cycles or $STRESS_S s, kprobes-optimization ${KPOPT:-as booted}"
if ! dmdelay slow /dev/vda "$DELAY_MS" 0 >/dev/null 2>&1 || ! mkdir -p /mnt/slow ||
   ! mount -t ext4 /dev/mapper/slow /mnt/slow; then
	say "not ok - stress: dm-delay data disk"
	exit 1
fi
mkdir -p /mnt/slow/work
if [ -n "$KPOPT" ]; then
	echo "$KPOPT" > /proc/sys/debug/kprobes-optimization
fi
say "# kprobes-optimization $(cat /proc/sys/debug/kprobes-optimization 2>/dev/null)"
mkdir -p $T/instances/stress

# Workloads for the whole loop: page faults under the per-VMA lock and their
# retries (filemap_fault, lock_vma_under_rcu), mprotect writers (down_write,
# up_write), forks (dup_mmap).
end=$(( $(date +%s) + STRESS_S + 30 ))
mmlock workload vma-contention -q -d "$((STRESS_S + 30))s" -D /mnt/slow/work \
	--readers 3 --pages 1024 -r /tmp/w1.json > /dev/null 2>&1 &
w1=$!
mmlock workload fork-fault -q -d "$((STRESS_S + 30))s" -D /mnt/slow/work \
	--pages 1024 -r /tmp/w2.json > /dev/null 2>&1 &
w2=$!

start=$(date +%s)
n=0
while [ $n -lt "$CYCLES" ] && [ $(( $(date +%s) - start )) -lt "$STRESS_S" ]; do
	if ! out=$(insmod $KO 2>&1); then
		say "not ok - stress: insmod in cycle $((n + 1))"
		say "# $out"
		break
	fi
	echo 1 > $T/instances/stress/events/mmlock_probe/enable
	# long enough for the kprobe optimizer (it runs a few jiffies after
	# registration) to turn some probes into jumps, varied between cycles
	sleep "0.$(( (n * 37) % 9 + 1 ))"
	if ! out=$(rmmod mmlock_probe 2>&1); then
		say "not ok - stress: rmmod in cycle $((n + 1))"
		say "# $out"
		break
	fi
	n=$((n + 1))
	say "# cycle $n"
done
s=$(( $(date +%s) - start ))
say "# cycles done $n of $CYCLES in $s s"
kill $w1 $w2 2>/dev/null
wait $w1 $w2 2>/dev/null
rmdir $T/instances/stress
[ "$(date +%s)" -le "$end" ] || say "# the workloads outlived the loop"
exit 0
