#!/bin/sh
# The lockdep test (run by /init with mmlock.mode=lockdep, busybox sh): load
# mmlock_abba.ko (guest/modules/abba), which takes the mmap_lock and a VMA
# lock in both orders, and expect lockdep's report of the possible deadlock.
# mmlock.events=on enables every event of ours first (and the stock
# mmap_lock events), so that the traced lock paths are the ones taken:
# tracing must not hide a lock order from lockdep.  Lockdep reports once per
# boot, so each state is its own boot (tests/qemu/run).
set -u
T=/sys/kernel/tracing
I=$T/instances/mmlock-lockdep
EVENTS=off EXPECT=patched
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	mmlock.events=*) EVENTS=${arg#mmlock.events=} ;;
	mmlock.expect=*) EXPECT=${arg#mmlock.expect=} ;;
	esac
done
say() { echo "MMLOCK-T: $*"; }
ok() { say "ok - $1"; }
notok() { say "not ok - $1"; [ $# -gt 1 ] && echo "$2" | while IFS= read -r l; do say "# $l"; done; return 0; }
KO=/lib/modules/mmlock/mmlock_abba.ko

if [ ! -r /proc/lockdep_stats ]; then
	notok "lockdep: the kernel has lockdep (/proc/lockdep_stats)" "not a PROVE_LOCKING kernel"
	exit 0
fi
dl=$(awk '/debug_locks:/ { print $2 }' /proc/lockdep_stats)
if [ "$dl" = 1 ]; then ok "lockdep: on before the test (debug_locks=1)"
else notok "lockdep: on before the test" "$(cat /proc/lockdep_stats)"; exit 0; fi

n=0
if [ "$EVENTS" = on ]; then
	mkdir -p $I
	for e in $T/events/filemap/filemap_fault_* $T/events/mmap_lock/*; do
		[ -d "$e" ] || continue
		echo "$(basename "$(dirname "$e")"):$(basename "$e")" >> $I/set_event && n=$((n + 1))
	done
	echo 1 > $I/tracing_on
	# ours among them: the vma_start_write and mmap_lock wait events
	if [ "$EXPECT" = patched ] && { ! grep -q '^mmap_lock:vma_start_write_begin$' $I/set_event ||
	     ! grep -q '^mmap_lock:mmap_lock_wait_start$' $I/set_event; }; then
		notok "lockdep (events on): our events are enabled" "$(cat $I/set_event)"
	else
		ok "lockdep (events on): $n events enabled in instances/mmlock-lockdep"
	fi
fi

if [ ! -r $KO ]; then
	notok "lockdep (events $EVENTS): mmlock_abba.ko is in the guest" "$(ls -l /lib/modules/mmlock 2>&1)"
	exit 0
fi
out=$(insmod $KO 2>&1); rc=$?
if [ $rc -eq 0 ]; then ok "lockdep (events $EVENTS): mmlock_abba.ko loads and takes both orders"
else notok "lockdep (events $EVENTS): mmlock_abba.ko loads and takes both orders" "$out"; fi
if [ "$EVENTS" = on ]; then
	echo 0 > $I/tracing_on
	# read while the module is loaded: %pS resolves caller= when the
	# trace is read, an unloaded module's address prints as a number
	cat $I/trace > /tmp/lockdep.trace
fi
rmmod mmlock_abba 2>/dev/null
if [ "$EVENTS" = on ]; then
	# the write-lock path that recorded mmap_lock -> VMA lock was the traced one
	if [ "$EXPECT" = patched ]; then
		if grep -q 'vma_start_write_begin: .*caller=abba_run+0x[0-9a-f]*/0x[0-9a-f]* \[mmlock_abba\]' /tmp/lockdep.trace; then
			ok "lockdep (events on): the module's vma_start_write() went through the traced path"
		else
			notok "lockdep (events on): the module's vma_start_write() went through the traced path" \
				"$(grep -c . /tmp/lockdep.trace) trace lines, none vma_start_write_begin from abba_run; $(grep -m 2 vma_start_write_begin /tmp/lockdep.trace)"
		fi
	fi
	echo > $I/set_event
	rmdir $I
fi

report=$(dmesg | grep -A 50 'possible circular locking dependency detected')
if [ -z "$report" ]; then
	notok "lockdep (events $EVENTS): the ABBA between mmap_lock and a VMA lock is reported" \
		"no 'possible circular locking dependency' in dmesg; debug_locks=$(awk '/debug_locks:/ { print $2 }' /proc/lockdep_stats)"
elif echo "$report" | grep -q 'mmap_lock' && echo "$report" | grep -Eq 'vm_lock|vmlock'; then
	ok "lockdep (events $EVENTS): the ABBA between mmap_lock and a VMA lock is reported"
	echo "$report" | grep -E 'trying to acquire|already holding|mmap_lock|vm_lock|vmlock' | head -n 8 |
		while IFS= read -r l; do say "# $l"; done
else
	notok "lockdep (events $EVENTS): the ABBA between mmap_lock and a VMA lock is reported" \
		"a circular dependency report that names other locks:
$report"
fi
exit 0
