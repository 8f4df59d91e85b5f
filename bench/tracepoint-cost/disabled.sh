#!/bin/sh
# In-guest part of bench/tracepoint-cost/disabled (mmlock.mode=disabled): the
# microbenchmarks with every trace event off, as a kernel runs when nobody
# traces.  One boot is one sample per benchmark (the median of REPS runs);
# the host alternates the patched kernel and its unpatched twin.  Lines start
# with "MMLOCK-B: ".
set -u
REPS=3 PAGES=2048 ITERS=4 MPROT=20000 MMAPS=20000
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	mmlock.reps=*) REPS=${arg#mmlock.reps=} ;;
	mmlock.pages=*) PAGES=${arg#mmlock.pages=} ;;
	mmlock.mprotect=*) MPROT=${arg#mmlock.mprotect=} ;;
	mmlock.mmaps=*) MMAPS=${arg#mmlock.mmaps=} ;;
	esac
done
say() { echo "MMLOCK-B: $*"; }
mkdir -p /mnt/data
mount -t ext4 -o ro /dev/vda /mnt/data || { say "cannot mount the data disk"; exit 1; }
DATA=/mnt/data/data.bin
cat $DATA > /dev/null	# page cache hot: faults measure the fault path, not I/O
patched=no
[ -d /sys/kernel/tracing/events/mmap_lock/vma_start_write_begin ] && patched=yes
enabled=$(cat /sys/kernel/tracing/instances/*/events/enable /sys/kernel/tracing/events/enable 2>/dev/null | grep -c 1)
say "kernel $(uname -r) ours=$patched events_enabled=$enabled reps=$REPS"
for b in filefault anonfault mprotect mmap; do
	case $b in
	filefault) args="filefault $DATA $PAGES $ITERS" ;;
	anonfault) args="anonfault $PAGES $ITERS" ;;
	mprotect) args="mprotect $MPROT" ;;
	mmap) args="mmap $MMAPS" ;;
	esac
	tpbench $args > /dev/null	# warm-up
	r=0
	while [ $r -lt "$REPS" ]; do
		tpbench $args | sed -n 's/^ns_per_op=\([0-9]*\).*/\1/p'
		r=$((r + 1))
	done > /tmp/$b.ns
	say "$b $(sort -n /tmp/$b.ns | sed -n "$(( (REPS + 1) / 2 ))p")"
done
exit 0
