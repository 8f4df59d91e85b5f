#!/bin/sh
# module test: stock-header module in the patched kernel
T=/sys/kernel/tracing
run() {
	echo 0 > $T/tracing_on; echo > $T/trace; echo > $T/set_event
	for e in "$@"; do echo "$e" >> $T/set_event; done
	echo 1 > $T/tracing_on
	insmod /mltest.ko && echo "insmod ok" || echo "insmod failed"
	echo 0 > $T/tracing_on
	rmmod mltest 2>/dev/null
	grep -E "insmod|mltest" $T/trace | grep -E "mmap_lock_(wait|hold)" | sed "s/^/MLT[$1]: /"
	echo "MLT[$1]: total $(grep -cE 'insmod|mltest' $T/trace)"
}
run new mmap_lock:mmap_lock_wait_start mmap_lock:mmap_lock_wait_end mmap_lock:mmap_lock_hold_start mmap_lock:mmap_lock_hold_end
run new+stock mmap_lock:mmap_lock_wait_start mmap_lock:mmap_lock_wait_end mmap_lock:mmap_lock_hold_start mmap_lock:mmap_lock_hold_end mmap_lock:mmap_lock_start_locking mmap_lock:mmap_lock_acquire_returned mmap_lock:mmap_lock_released
echo "MLT: done"
