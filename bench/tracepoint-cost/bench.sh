#!/bin/sh
# In-guest part of bench/tracepoint-cost (run by /init with mmlock.mode=bench).
# Runs tpbench with our events off and on (enabled in the instance
# instances/mmlock-bench), alternating the order every round (off,on then
# on,off), and prints per benchmark: min/median/max ns per operation for each
# state, the events per operation counted between tpbench's markers, and the
# cost per event = (median on - median off) / events per op.  It prints; it
# asserts nothing about timing.  Output lines start with "MMLOCK-B: ".
set -u
T=/sys/kernel/tracing
I=$T/instances/mmlock-bench
ROUNDS=7 PAGES=2048 ITERS=4 MPROT=20000
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	mmlock.rounds=*) ROUNDS=${arg#mmlock.rounds=} ;;
	mmlock.pages=*) PAGES=${arg#mmlock.pages=} ;;
	mmlock.mprotect=*) MPROT=${arg#mmlock.mprotect=} ;;
	esac
done
W=/tmp/bench
mkdir -p $W /mnt/data
say() { echo "MMLOCK-B: $*"; }

EVENTS=""
for e in filemap_fault_begin filemap_fault_wait_start filemap_fault_wait_end filemap_fault_retry filemap_fault_end; do
	[ -d $T/events/filemap/$e ] && EVENTS="$EVENTS filemap:$e"
done
for e in vma_start_write_begin vma_start_write_wait_start vma_start_write_wait_end vma_start_write_done \
	 vma_start_read_fail fault_mmap_lock_fallback mmap_lock_wait_start mmap_lock_wait_end \
	 mmap_lock_hold_start mmap_lock_hold_end; do
	[ -d $T/events/mmap_lock/$e ] && EVENTS="$EVENTS mmap_lock:$e"
done
if [ -z "$EVENTS" ]; then
	say "this kernel lacks our events: nothing to compare (unpatched kernel?)"
	exit 0
fi
say "kernel $(uname -r); events: $(echo $EVENTS | wc -w) of 15; rounds=$ROUNDS pages=$PAGES iters=$ITERS mprotect=$MPROT"

mount -t ext4 -o ro /dev/vda /mnt/data || { say "cannot mount the data disk"; exit 1; }
DATA=/mnt/data/data.bin
cat $DATA > /dev/null	# page cache hot: faults measure the fault path, not I/O
mkdir -p $I
echo 65536 > $I/buffer_size_kb
echo 0 > $I/tracing_on

# one STATE BENCH ARGS...: one round; appends ns/op to $W/BENCH.STATE and,
# when on, events/op to $W/BENCH.epo
one() {
	state=$1 b=$2; shift 2
	echo > $I/trace
	if [ "$state" = on ]; then
		for e in $EVENTS; do echo "$e" >> $I/set_event; done
		echo 1 > $I/tracing_on
		out=$(TPBENCH_MARKER=$I/trace_marker tpbench "$@")
		echo 0 > $I/tracing_on
		echo > $I/set_event
		ops=$(echo "$out" | sed -n 's/.*ops=\([0-9]*\).*/\1/p')
		# count events of tpbench between its markers; marker writes are
		# tracing_mark_write lines
		awk -v ops="$ops" '
			/tracing_mark_write: tpbench-begin/ { inside = 1; next }
			/tracing_mark_write: tpbench-end/ { inside = 0; next }
			inside && /^ *tpbench-[0-9]+ / && /: (filemap_fault_|vma_start_|fault_mmap_lock_|mmap_lock_)[a-z_]*: / { n++ }
			/LOST/ { lost = 1 }
			END { if (lost) print "lost"; else printf "%.2f\n", n / ops }' $I/trace >> $W/$b.epo
	else
		out=$(tpbench "$@")	# markers are outside the timed part anyway
	fi
	echo "$out" | sed -n 's/^ns_per_op=\([0-9]*\).*/\1/p' >> $W/$b.$state
}

stats() {	# min median max of the numbers in $1
	sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%d %d %d\n", v[1], v[int((NR + 1) / 2)], v[NR] }'
}

for b in filefault anonfault mprotect; do
	case $b in
	filefault) args="filefault $DATA $PAGES $ITERS" ;;
	anonfault) args="anonfault $PAGES $ITERS" ;;
	mprotect) args="mprotect $MPROT" ;;
	esac
	rm -f $W/$b.*
	tpbench $args > /dev/null	# warm-up
	r=1
	while [ $r -le "$ROUNDS" ]; do
		if [ $((r % 2)) -eq 1 ]; then one off $b $args; one on $b $args
		else one on $b $args; one off $b $args; fi
		r=$((r + 1))
	done
done

say ""
say "$(printf '%-10s %-4s %6s %10s %10s %10s %10s' bench state rounds min_ns median_ns max_ns events/op)"
for b in filefault anonfault mprotect; do
	set -- $(stats $W/$b.off); off_min=$1 off_med=$2 off_max=$3
	set -- $(stats $W/$b.on); on_min=$1 on_med=$2 on_max=$3
	epo=$(sort -n $W/$b.epo | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	say "$(printf '%-10s %-4s %6s %10s %10s %10s %10s' $b off "$ROUNDS" $off_min $off_med $off_max -)"
	say "$(printf '%-10s %-4s %6s %10s %10s %10s %10s' $b on "$ROUNDS" $on_min $on_med $on_max "$epo")"
	say "$(awk -v a="$off_med" -v b="$on_med" -v e="$epo" -v n="$b" 'BEGIN {
		d = b - a; pct = a > 0 ? 100 * d / a : 0
		if (e == "lost") per = "n/a (events lost)"
		else if (e + 0 > 0) per = sprintf("%.0f ns per event", d / e)
		else per = "no events on this path"
		printf "%-10s cost: %+d ns/op (%+.1f%%), %s", n, d, pct, per }')"
done
say "raw ns/op per round (off | on):"
for b in filefault anonfault mprotect; do
	say "  $b: $(tr '\n' ' ' < $W/$b.off)| $(tr '\n' ' ' < $W/$b.on)"
done
exit 0
