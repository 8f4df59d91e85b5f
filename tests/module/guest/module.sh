#!/bin/sh
# tests/module's guest script (busybox sh), installed as /tests.sh of its own
# initramfs.  Loads mmlock_probe.ko, records the same workload run from the
# kernel's events (patched kernels) and from the module's at once, in two
# tracefs instances, analyses each alone and compares; then unloads the
# module while it records and a workload runs.  Result lines
# "MMLOCK-T: ok|not ok|skip - ..." (tests/qemu/lib.sh's qemu_report), and one
# "MMLOCK-T: # verdict SOURCE WORKLOAD POLICY CODE A B C" per analysis, which
# tests/module/run compares across kernels.
#
# Kernel command line: mmlock.delay_ms=N, mmlock.expect=patched|stock,
# mmlock.duration=TIME (per workload run, default 4s),
# mmlock.policies=a,b (default: stock,no-retry,retry-vma where the kernel has
# the sysctls), mmlock.workloads=a,b (default vma-contention,fork-fault),
# mmlock.samples=N (print N lines of each event of each capture, and the
# analysis of the module's chunks without their trace.status),
# mmlock.dump=NAME (e.g. vma-contention-stock: that run's files, base64).
set -u
T=/sys/kernel/tracing
DELAY_MS=50
EXPECT=patched
DURATION=4s
POLICIES=""
WORKLOADS="vma-contention,fork-fault"
SAMPLES=0
DUMP=""
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	mmlock.delay_ms=*) DELAY_MS=${arg#mmlock.delay_ms=} ;;
	mmlock.expect=*) EXPECT=${arg#mmlock.expect=} ;;
	mmlock.duration=*) DURATION=${arg#mmlock.duration=} ;;
	mmlock.policies=*) POLICIES=${arg#mmlock.policies=} ;;
	mmlock.workloads=*) WORKLOADS=${arg#mmlock.workloads=} ;;
	mmlock.samples=*) SAMPLES=${arg#mmlock.samples=} ;;
	mmlock.dump=*) DUMP=${arg#mmlock.dump=} ;;
	esac
done
W=/tmp/mmlock-module
KO=/lib/modules/mmlock/mmlock_probe.ko
mkdir -p $W

say() { echo "MMLOCK-T: $*"; }
diag() { echo "$*" | while IFS= read -r l; do echo "MMLOCK-T: # $l"; done; }
ok() { say "ok - $1"; }
notok() { say "not ok - $1"; [ $# -gt 1 ] && diag "$2"; return 0; }
skip() { say "skip - $1: $2"; }
check() {
	name=$1; shift
	if out=$("$@" 2>&1); then ok "$name"; else notok "$name" "$out"; fi
}

EVENTS="filemap:filemap_fault_begin filemap:filemap_fault_wait_start
filemap:filemap_fault_wait_end filemap:filemap_fault_retry filemap:filemap_fault_end
mmap_lock:vma_start_write_begin mmap_lock:vma_start_write_wait_start
mmap_lock:vma_start_write_wait_end mmap_lock:vma_start_write_done
mmap_lock:vma_start_read_fail mmap_lock:fault_mmap_lock_fallback
mmap_lock:mmap_lock_wait_start mmap_lock:mmap_lock_wait_end
mmap_lock:mmap_lock_hold_start mmap_lock:mmap_lock_hold_end"
kernel_events() { echo $EVENTS | tr ' ' ','; }
module_events() { for e in $EVENTS; do printf 'mmlock_probe:%s,' "${e#*:}"; done | sed 's/,$//'; }

say "# kernel $(uname -r), expect $EXPECT, dm-delay ${DELAY_MS} ms, $DURATION per run"

# ---------------------------------------------------------------- setup
check "guest: tracefs mounted" test -d $T/events
if slowdev=$(dmdelay slow /dev/vda "$DELAY_MS" 0 2>&1); then
	ok "guest: dm-delay device over /dev/vda ($slowdev)"
else
	notok "guest: dm-delay device over /dev/vda" "$slowdev"
fi
mkdir -p /mnt/slow
if ! out=$(mount -t ext4 /dev/mapper/slow /mnt/slow 2>&1); then
	notok "guest: ext4 data disk mounted read-write through dm-delay" "$out"
	exit 1
fi
ok "guest: ext4 data disk mounted read-write through dm-delay"
mkdir -p /mnt/slow/work

patched=1
for e in $EVENTS; do [ -d "$T/events/${e%%:*}/${e#*:}" ] || patched=0; done
if [ "$EXPECT" = patched ] && [ $patched = 0 ]; then
	notok "guest: the patched kernel has its own events" "$(ls $T/events/filemap $T/events/mmap_lock 2>&1)"
elif [ "$EXPECT" = stock ] && [ $patched = 1 ]; then
	notok "guest: the unpatched twin has none of the series' events"
else
	ok "guest: kernel events as expected ($EXPECT)"
fi

# ---------------------------------------------------------------- load
if [ ! -e $KO ]; then
	notok "module: mmlock_probe.ko is in the guest (did it build for this kernel?)" "$(ls -l /lib/modules/mmlock 2>&1)"
	exit 1
fi
if out=$(insmod $KO 2>&1); then
	ok "module: insmod mmlock_probe.ko"
else
	notok "module: insmod mmlock_probe.ko" "$out
$(dmesg | tail -n 20)"
	exit 1
fi
caps=$(cat /sys/module/mmlock_probe/parameters/caps 2>/dev/null)
say "# caps: $caps"
missing=""
for e in $EVENTS; do [ -d "$T/events/mmlock_probe/${e#*:}" ] || missing="$missing ${e#*:}"; done
if [ -z "$missing" ]; then
	ok "module: the 15 events exist under events/mmlock_probe/"
else
	notok "module: the 15 events exist under events/mmlock_probe/" "missing:$missing"
fi

# The module's format files against the contract (mmlock events --check
# --source module), and on a patched kernel field for field against the
# kernel's own events.
out=$(mmlock events --check --source module --tracefs $T 2>&1); rc=$?
if [ $rc -eq 0 ] && echo "$out" | grep -q '^format files of mmlock_probe.ko .*all 15 events match' &&
   echo "$out" | grep -q '^# mmlock_probe.ko.*: version='; then
	ok "module: mmlock events --check --source module (its 15 events, v2, and its caps)"
else
	notok "module: mmlock events --check --source module (exit $rc)" "$out"
fi
# on a stock kernel the kernel's own check finds none and points at the module
if [ $patched = 0 ]; then
	out=$(mmlock events --check --tracefs $T 2>&1); rc=$?
	if [ $rc -eq 5 ] && echo "$out" | grep -q 'mmlock_probe.*--source module'; then
		ok "module: mmlock events --check (kernel) on a stock kernel: exit 5, names --source module"
	else
		notok "module: mmlock events --check (kernel) on a stock kernel: exit 5, names --source module (exit $rc)" "$(echo "$out" | tail -n 3)"
	fi
fi
fields() { sed -n 's/^[[:space:]]*field:\(.*\);[[:space:]]*offset:.*/\1/p' "$1" | grep -v ' common_'; }
if [ $patched = 1 ]; then
	bad="" v1=0
	for e in $EVENTS; do
		k=$T/events/${e%%:*}/${e#*:}/format m=$T/events/mmlock_probe/${e#*:}/format
		fields "$k" | head -n 1 | grep -q ' pid$' && v1=1
		[ "$(fields "$k" | grep -v ' pid$')" = "$(fields "$m")" ] || bad="$bad ${e#*:}"
	done
	if [ -n "$bad" ]; then
		notok "module: its events have the kernel's fields, in order (pid aside)" "differ:$bad"
	elif [ $v1 = 1 ]; then
		ok "module: its events have the kernel's fields, in order (the kernel still prints v1's pid)"
	else
		ok "module: its events have the kernel's fields, in order"
	fi
fi

# ---------------------------------------------------------------- recordings
state() { awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null; }
ready() {	# DIR: the recorder turned tracing on
	grep -q '"state": *"recording"' "$1/trace.status" 2>/dev/null
}
# record_run NAME WORKLOAD ARGS...: the workload held at its gate, one
# recorder per source filtering its TGID, then released; leaves
# $W/NAME/{kernel,module} and the workload's exit status in $W/NAME/rc.
record_run() {
	name=$1 wl=$2
	shift 2
	d=$W/$name
	rm -rf "$d"
	mkdir -p "$d"
	sync
	echo 3 > /proc/sys/vm/drop_caches
	mmlock workload "$wl" -g -q -d "$DURATION" -D /mnt/slow/work --report "$d/workload.json" \
		"$@" > /dev/null 2> "$d/workload.err" &
	tgid=$!
	# -g: the workload stops itself (SIGSTOP) once it has a TGID
	i=0
	while [ "$(state "$tgid")" != T ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	pids=""
	if [ $patched = 1 ]; then
		mmlock record --text -z none -e "$(kernel_events)" --tgid "$tgid" -o "$d/kernel" \
			> "$d/kernel.log" 2>&1 &
		pids="$pids $!"
	fi
	# the kernel's events are filtered on their tgid field; the module's too
	# (not only on set_event_pid, which event-fork widens to forked children)
	set --
	for e in $EVENTS; do set -- "$@" -F "mmlock_probe:${e#*:}:tgid == $tgid"; done
	mmlock record --text -z none -e "$(module_events)" --tgid "$tgid" "$@" -o "$d/module" \
		> "$d/module.log" 2>&1 &
	pids="$pids $!"
	i=0
	while [ $i -lt 200 ]; do
		r=1
		[ $patched = 1 ] && ! ready "$d/kernel" && r=0
		ready "$d/module" || r=0
		[ $r = 1 ] && break
		sleep 0.1
		i=$((i + 1))
	done
	kill -CONT "$tgid"
	# the workload's duration plus a generous margin under TCG, then kill it
	i=0
	while [ -d /proc/$tgid ] && [ "$(state "$tgid")" != Z ] && [ $i -lt 3000 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ $i -ge 3000 ]; then
		echo "killed after 300 s" >> "$d/workload.err"
		kill -9 "$tgid" 2>/dev/null
	fi
	wait $tgid
	echo $? > "$d/rc"
	sleep 0.5
	for p in $pids; do kill -INT "$p" 2>/dev/null; done
	for p in $pids; do wait "$p"; done
}

# jget FILE KEY: the number or word after "KEY": in a summary (first match)
jget() { sed -n "s/.*\"$2\": *\"*\([^\",}]*\)\"*.*/\1/p" "$1" | head -n 1; }

# near A B: within 10 % of the larger, rounded up (1 apart below 10).
# Its own names: the caller's d and m are the run's folder and summary.
near() {
	[ "$1" = null ] || [ "$2" = null ] || [ -z "$1" ] || [ -z "$2" ] && return 1
	near_d=$(( $1 > $2 ? $1 - $2 : $2 - $1 ))
	near_m=$(( $1 > $2 ? $1 : $2 ))
	[ $((near_d * 10)) -le $((near_m + 9)) ]
}

analyse() {	# NAME SOURCE WORKLOAD POLICY: summary at $W/NAME/SOURCE.json
	mmlock analyze --pretty --workload "$3" --kernel "$(uname -r)" -o "$W/$1/$2.json" \
		"$W/$1/$2" > "$W/$1/$2.analyze" 2>&1
	rc=$?
	s=$W/$1/$2.json
	say "# verdict $2 $3 $4 $(jget "$s" code) $(jget "$s" type_a_count) $(jget "$s" type_b_count) $(jget "$s" type_c_count)"
	return $rc
}

if [ -z "$POLICIES" ]; then
	POLICIES=stock
	[ -e /proc/sys/vm/filemap_fault_no_retry ] && POLICIES="$POLICIES,no-retry"
	[ -e /proc/sys/vm/fault_retry_vma_lock ] && POLICIES="$POLICIES,retry-vma"
fi
set_policy() {
	nr=0 rv=0
	case "$1" in no-retry) nr=1 ;; retry-vma) rv=1 ;; esac
	[ -e /proc/sys/vm/filemap_fault_no_retry ] && echo $nr > /proc/sys/vm/filemap_fault_no_retry
	[ -e /proc/sys/vm/fault_retry_vma_lock ] && echo $rv > /proc/sys/vm/fault_retry_vma_lock
	return 0
}
wl_args() {
	case "$1" in
	vma-contention) echo "--writer-nice -10 --readers 3 --pages 1024" ;;
	*) echo "--pages 1024" ;;
	esac
}

for wl in $(echo "$WORKLOADS" | tr ',' ' '); do
	for pol in $(echo "$POLICIES" | tr ',' ' '); do
		n=$wl-$pol
		set_policy "$pol"
		# shellcheck disable=SC2046
		record_run "$n" "$wl" $(wl_args "$wl")
		if [ "$(cat $W/$n/rc)" != 0 ]; then
			notok "$n: the workload runs under both recorders" "$(cat $W/$n/workload.err $W/$n/*.log 2>/dev/null | tail -n 20)"
			continue
		fi
		evs=$(cat $W/$n/module/trace-*.txt 2>/dev/null | grep -c ': filemap_fault_begin: ')
		# events per source, and the fault sleeps by lock: where two analyses differ
		line=""
		for e in $EVENTS; do
			k=$(cat $W/$n/kernel/trace-*.txt 2>/dev/null | grep -c ": ${e#*:}: ")
			m=$(cat $W/$n/module/trace-*.txt 2>/dev/null | grep -c ": ${e#*:}: ")
			line="$line ${e#*:}=$k/$m"
		done
		say "# events kernel/module:$line"
		for l in lock=vma lock=mmap lock=none lock=unknown reason=folio_lock reason=read_folio reason=readahead; do
			k=$(cat $W/$n/kernel/trace-*.txt 2>/dev/null | grep -c "filemap_fault_wait_start: .* $l")
			m=$(cat $W/$n/module/trace-*.txt 2>/dev/null | grep -c "filemap_fault_wait_start: .* $l")
			printf '%s' " $l:$k/$m"
		done | { read -r x; say "# fault sleeps kernel/module:$x"; }
		if [ "$SAMPLES" -gt 0 ]; then	# mmlock.samples=N: N lines of each event, for a person
			for e in $EVENTS; do
				for src in module kernel; do
					grep -h ": ${e#*:}: " $W/$n/$src/trace-*.txt 2>/dev/null | head -n "$SAMPLES" |
						sed "s/^/sample $src: /" | while IFS= read -r l; do say "# $l"; done
				done
			done
			mkdir -p $W/$n/bare
			cp $W/$n/module/trace-*.txt $W/$n/bare/ 2>/dev/null
			mmlock analyze --pretty -o $W/$n/bare.json $W/$n/bare/trace-*.txt >/dev/null 2>&1
			say "# verdict module-bare $wl $pol $(jget $W/$n/bare.json code) $(jget $W/$n/bare.json type_a_count) $(jget $W/$n/bare.json type_b_count) $(jget $W/$n/bare.json type_c_count)"
		fi
		if analyse "$n" module "$wl" "$pol" && [ "$evs" -gt 0 ]; then
			ok "$n: the module's capture analyses ($evs filemap_fault_begin)"
		else
			notok "$n: the module's capture analyses ($evs filemap_fault_begin)" "$(cat $W/$n/module.analyze $W/$n/module.log | tail -n 20)"
			continue
		fi
		[ $patched = 1 ] || continue
		if ! analyse "$n" kernel "$wl" "$pol"; then
			notok "$n: the kernel's capture analyses" "$(cat $W/$n/kernel.analyze $W/$n/kernel.log | tail -n 20)"
			continue
		fi
		k=$W/$n/kernel.json m=$W/$n/module.json
		for key in type_a_count type_b_count; do
			a=$(jget $k $key) b=$(jget $m $key)
			if near "$a" "$b"; then
				ok "$n: $key within 10 % (kernel $a, module $b)"
			else
				notok "$n: $key within 10 % (kernel $a, module $b)"
			fi
		done
		a=$(jget $k code) b=$(jget $m code)
		if [ -n "$a" ] && [ "$a" = "$b" ]; then
			ok "$n: same verdict from both sources ($a)"
		else
			notok "$n: same verdict from both sources (kernel $a, module $b)"
		fi
	done
done
set_policy stock
# mmlock.dump=NAME: that run's captures and summaries on the console, as a
# base64 tar between MMLOCK-DUMP-BEGIN/END, for a person to analyse
if [ -n "$DUMP" ] && [ -d "$W/$DUMP" ]; then
	dmesg -n 1	# no kernel line inside the base64
	echo "MMLOCK-DUMP-BEGIN $DUMP"
	tar czf - -C $W "$DUMP" | base64
	echo "MMLOCK-DUMP-END"
	dmesg -n 7
fi

# ---------------------------------------------------------------- unload
# The module goes while its events are enabled and a workload faults.
d=$W/unload
mkdir -p $d
mmlock workload vma-contention -q -d 6s -D /mnt/slow/work --report $d/workload.json \
	--pages 1024 > /dev/null 2> $d/workload.err &
wpid=$!
mmlock record --text -z none -e "$(module_events)" -o $d/trace -d 8s > $d/record.log 2>&1 &
rpid=$!
i=0
while ! ready $d/trace && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 2
before=$(cat $d/trace/trace-*.txt* 2>/dev/null | wc -l)
if out=$(rmmod mmlock_probe 2>&1); then
	ok "unload: rmmod with its events enabled and a workload running"
else
	notok "unload: rmmod with its events enabled and a workload running" "$out"
fi
check "unload: its events are gone from tracefs" test ! -d $T/events/mmlock_probe
wait $wpid
check "unload: the workload finishes normally" test $? -eq 0
kill -INT $rpid 2>/dev/null
wait $rpid
rc=$?
if [ $rc -eq 0 ] && grep -q '"state": *"\(stopped\|complete\)"' $d/trace/trace.status; then
	ok "unload: the recorder ends cleanly (events recorded before: $before lines)"
else
	notok "unload: the recorder ends cleanly (exit $rc)" "$(tail -n 5 $d/record.log)"
fi
check "unload: no tracing instance left" sh -c "! ls $T/instances | grep -q mmlock"
if out=$(insmod $KO 2>&1) && rmmod mmlock_probe 2>&1; then
	ok "unload: loads and unloads again"
else
	notok "unload: loads and unloads again" "$out"
fi
# and CYCLES more times under load, each after its events were on for a
# moment (tests/module/unload-stress does hundreds)
CYCLES=5
mmlock workload vma-contention -q -d 120s -D /mnt/slow/work --pages 1024 \
	--report $d/cycles.json > /dev/null 2>&1 &
wpid=$!
mkdir -p $T/instances/cycles
n=0 out=""
while [ $n -lt $CYCLES ]; do
	out=$(insmod $KO 2>&1) || break
	echo 1 > $T/instances/cycles/events/mmlock_probe/enable
	sleep 0.$((n * 2 + 1))
	out=$(rmmod mmlock_probe 2>&1) || break
	n=$((n + 1))
done
kill $wpid 2>/dev/null
wait $wpid 2>/dev/null
rmdir $T/instances/cycles
if [ $n -eq $CYCLES ]; then
	ok "unload: $CYCLES more load/enable/rmmod cycles while a workload faults"
else
	notok "unload: $CYCLES more load/enable/rmmod cycles while a workload faults (cycle $((n + 1)) failed)" "$out"
fi

# ---------------------------------------------------------------- mmlock run
# On a stock kernel `mmlock run` loads the module itself, records from it and
# unloads it at the end.
if [ $patched = 0 ]; then
	out=$(mmlock run --module $KO -P stock -d 2s -D /mnt/slow/work -o $W/run vma-contention 2>&1)
	rc=$?
	diag "$(echo "$out" | grep -i 'events\|verdict' | head -n 4)"
	if [ $rc -eq 0 ] && echo "$out" | grep -q 'events from mmlock_probe.ko (loaded from'; then
		ok "mmlock run: loads mmlock_probe.ko on a stock kernel and says so"
	else
		notok "mmlock run: loads mmlock_probe.ko on a stock kernel and says so (exit $rc)" "$(echo "$out" | tail -n 10)"
	fi
	check "mmlock run: unloads it at the end" sh -c '! grep -q "^mmlock_probe " /proc/modules'
	s=$W/run/vma-contention/stock/summary.json
	tb=$(jget $s type_b_count)
	if [ -s $s ] && [ -n "$tb" ] && [ "$tb" != null ]; then
		ok "mmlock run: its summary measured Type-B from the module's events ($tb)"
	else
		notok "mmlock run: its summary measured Type-B from the module's events" "type_b_count=$tb"
	fi
fi

if [ -r /proc/lockdep_stats ]; then
	if grep -q 'debug_locks: *1' /proc/lockdep_stats; then
		ok "lockdep: still on after load, recordings and unload (debug_locks: 1)"
	else
		notok "lockdep: still on after load, recordings and unload" "$(grep debug_locks /proc/lockdep_stats)"
	fi
fi
say "# dmesg of the module: $(dmesg | grep -c mmlock_probe) lines"
dmesg | grep mmlock_probe | tail -n 5 | while IFS= read -r l; do say "# $l"; done
exit 0
