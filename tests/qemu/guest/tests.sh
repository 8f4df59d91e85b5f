#!/bin/sh
# In-guest tests of the mmlock kernel patches (run by /init, busybox sh).
#
# Every result line starts with "MMLOCK-T: " so that tests/qemu/run finds it
# on a serial console that the kernel also writes to.  Tracing happens in our
# own tracefs instance (instances/mmlock-test), never the top-level one.
#
# The data disk /dev/vda (ext4, data.bin = random bytes) is put behind a
# dm-delay device (MMLOCK_DELAY_MS per read) so every page-cache miss of a
# fault sleeps.  The workload is /bin/faulter: reader threads fault a
# MAP_PRIVATE mapping of data.bin while a writer thread mprotects the same VMA
# and forks; at the end it forks and munmaps.  It runs under three policies:
#   stock     vm.filemap_fault_no_retry=0 vm.fault_retry_vma_lock=0
#   no_retry  vm.filemap_fault_no_retry=1
#   retry_vma vm.fault_retry_vma_lock=1
set -u
T=/sys/kernel/tracing
I=$T/instances/mmlock-test
DELAY_MS=50
# mmlock.expect: what tests/qemu/run booted, our series (patched) or its
# unpatched twin (stock).  A patched kernel without our events fails.
EXPECT=patched EXTRA="" VMALOCK=rwsem
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	mmlock.vmalock=*) VMALOCK=${arg#mmlock.vmalock=} ;;
	mmlock.delay_ms=*) DELAY_MS=${arg#mmlock.delay_ms=} ;;
	mmlock.expect=*) EXPECT=${arg#mmlock.expect=} ;;
	mmlock.extra=*) EXTRA=$(echo "${arg#mmlock.extra=}" | tr , ' ') ;;
	esac
done
W=/tmp/mmlock-test
mkdir -p $W

say() { echo "MMLOCK-T: $*"; }
diag() { echo "$*" | while IFS= read -r l; do echo "MMLOCK-T: # $l"; done; }
ok() { say "ok - $1"; }
notok() { say "not ok - $1"; [ $# -gt 1 ] && diag "$2"; return 0; }
skip() { say "skip - $1: $2"; }
# check NAME CMD...: ok when CMD succeeds; its output is the diagnostic
check() {
	name=$1; shift
	if out=$("$@" 2>&1); then ok "$name"; else notok "$name" "$out"; fi
}

CUSTOM_FILEMAP="filemap_fault_begin filemap_fault_wait_start filemap_fault_wait_end filemap_fault_retry filemap_fault_end"
CUSTOM_MMAP_LOCK="vma_start_write_begin vma_start_write_wait_start vma_start_write_wait_end vma_start_write_done vma_start_read_fail fault_mmap_lock_fallback mmap_lock_wait_start mmap_lock_wait_end mmap_lock_hold_start mmap_lock_hold_end"

# ---------------------------------------------------------------- setup
say "# kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs, dm-delay ${DELAY_MS} ms"

check "guest: 4 CPUs online" test "$(grep -c ^processor /proc/cpuinfo)" -ge 4
# build-kernel builds as mmlock@mmlock: this is the kernel the harness built
check "guest: the kernel is the harness's build (mmlock@mmlock in /proc/version)" grep -q 'mmlock@mmlock' /proc/version
check "guest: tracefs mounted" test -d $T/events
if slowdev=$(dmdelay slow /dev/vda "$DELAY_MS" 0 2>&1); then
	ok "guest: dm-delay device over /dev/vda ($slowdev)"
else
	notok "guest: dm-delay device over /dev/vda" "$slowdev"
fi
mkdir -p /mnt/data
if out=$(mount -t ext4 -o ro /dev/mapper/slow /mnt/data 2>&1) && [ -s /mnt/data/data.bin ]; then
	ok "guest: ext4 data disk mounted through dm-delay"
else
	notok "guest: ext4 data disk mounted through dm-delay" "$out"
	say "# cannot continue without the data disk"
	exit 1
fi
DATA=/mnt/data/data.bin

# A cold read of one page must take about the delay: proves the disk is slow.
echo 3 > /proc/sys/vm/drop_caches
uptime_cs() { awk '{ split($1, a, "."); print a[1] * 100 + a[2] }' /proc/uptime; }
t0=$(uptime_cs)
dd if=$DATA of=/dev/null bs=4096 count=1 skip=1000 2>/dev/null
t1=$(uptime_cs)
cold_ms=$(( (t1 - t0) * 10 ))
if [ "$cold_ms" -ge $((DELAY_MS * 8 / 10)) ]; then
	ok "guest: cold read is slow (${cold_ms} ms >= ~${DELAY_MS} ms)"
else
	notok "guest: cold read is slow" "one cold 4 KiB read took ${cold_ms} ms, dm-delay is ${DELAY_MS} ms"
fi

# ---------------------------------------------------------------- tracing helpers
mkdir -p $I 2>/dev/null
if [ ! -d $I ]; then
	notok "guest: tracefs instance instances/mmlock-test" "mkdir $I failed"
	exit 1
fi
echo 16384 > $I/buffer_size_kb

have_event() { [ -d "$T/events/$1/$2" ]; }
patched=1
for e in $CUSTOM_FILEMAP; do have_event filemap "$e" || patched=0; done
for e in $CUSTOM_MMAP_LOCK; do have_event mmap_lock "$e" || patched=0; done
any=0
for e in $CUSTOM_FILEMAP; do have_event filemap "$e" && any=1; done
for e in $CUSTOM_MMAP_LOCK; do have_event mmap_lock "$e" && any=1; done

# mmlock events --check compares tracepoints/ with the format files and
# says which version of the contract the kernel speaks.
out=$(mmlock events --check --tracefs $T 2>&1); rc=$?
CONTRACT=$(echo "$out" | grep -o 'contract v[0-9]*' | head -n 1 | sed 's/^contract //')
if [ $rc -eq 0 ]; then
	ok "mmlock events --check: format files match tracepoints/ ($(echo "$out" | grep -o 'contract v[0-9]*' | head -n 1))"
	diag "$(echo "$out" | grep -v '^ok ')"
elif [ $any -eq 0 ] && [ $rc -eq 5 ] && [ "$EXPECT" = stock ]; then
	skip "mmlock events --check: format files match tracepoints/" "kernel lacks our events (unpatched twin)"
else
	notok "mmlock events --check: format files match tracepoints/ (exit $rc)" "$out"
fi

# trace_run NAME EVENTS...: run the faulter with EVENTS (system:name) enabled
# in our instance; leaves $W/NAME.out (faulter output), $W/NAME.trace (raw),
# $W/NAME.ev ("event key=value..." lines).
trace_start() {
	echo 0 > $I/tracing_on
	echo > $I/set_event
	for e in "$@"; do echo "$e" >> $I/set_event; done
	echo > $I/trace
	sync
	echo 3 > /proc/sys/vm/drop_caches
	echo 1 > $I/tracing_on
}
trace_stop() {
	name=$1
	echo 0 > $I/tracing_on
	echo > $I/set_event
	cat $I/trace > $W/$name.trace
	# "  comm-pid [cpu] flags  123.456789: event: k=v ..." -> "event pid=PID
	# k=v ...": the pid is the record header's (version 1 of the series
	# also printed pid= itself; the later key wins, with the same value)
	awk 'match($0, /-[0-9]+ +\[[0-9]+\] /) {
		h = substr($0, RSTART + 1, RLENGTH); sub(/ .*/, "", h)
		if (match($0, /[0-9]+\.[0-9]+: [a-z_0-9]+: /)) {
			s = substr($0, RSTART, RLENGTH); sub(/^[0-9.]+: /, "", s); sub(/: $/, "", s)
			print s, "pid=" h, substr($0, RSTART + RLENGTH) } }' $W/$name.trace > $W/$name.ev
	eval "$(sed -n 's/^map \(.*\)$/\1/p' $W/$name.out)"	# tgid vm_start vm_end ino dev
	lost=$(grep -c 'LOST.*EVENTS' $W/$name.trace)
}
trace_run() {
	name=$1; shift
	trace_start "$@"
	# a workload that hangs fails its test instead of the whole boot
	timeout 300 faulter -r 2 -s 1024 -m 16 $DATA > $W/$name.out 2> $W/$name.err
	frc=$?
	trace_stop "$name"
	return $frc
}

# evcheck NAME FILE EVENT SELECT COND [MIN]
# Among EVENT lines of FILE whose fields satisfy SELECT (awk expression over
# f["key"], with helpers hex() and mine() = "tgid is the faulter's"), at least
# MIN (default 1) must exist and all must satisfy COND.
EVAWK='
function hex(s,   i, n, c) { n = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); if (!c) return -1; n = n * 16 + c - 1 }
	return n }
function mine() { return f["tgid"] == tgid }
function ours() { return mine() && f["ino"] == ino && f["dev"] == dev }
function inmap(a) { return hex(a) >= hex(vm_start) && hex(a) < hex(vm_end) }
function isptr(p) { return p ~ /^[0-9a-f]+$/ && p !~ /^0+$/ }
function common() { return f["pid"] > 0 && f["tgid"] > 0 && f["prio"] >= 0 && f["prio"] < 140 && isptr(f["mm"]) }
# booleans print true/false (version 1: 1/0); the checks compare with 1/0
function parse(   i, p, v) { split("", f); for (i = 2; i <= NF; i++) { p = index($i, "="); if (p) {
	v = substr($i, p + 1); if (v == "true") v = 1; else if (v == "false") v = 0; f[substr($i, 1, p - 1)] = v } } }
'
evcheck() {
	name=$1 file=$2 ev=$3 sel=$4 cond=$5 min=${6:-1}
	res=$(awk -v ev="$ev" -v tgid="$tgid" -v ino="$ino" -v dev="$dev" \
		-v vm_start="$vm_start" -v vm_end="$vm_end" "$EVAWK"'
		$1 != ev { next }
		{ parse(); if (!('"$sel"')) next; n++
		  if (!('"$cond"')) { bad++; if (bad <= 3) badl = badl "\n  " $0 } }
		END { printf "%d %d%s\n", n, bad, badl }' "$file")
	n=${res%% *}; rest=${res#* }; bad=${rest%%
*}
	if [ "$n" -ge "$min" ] && [ "$bad" -eq 0 ]; then
		ok "$name ($n events)"
	else
		notok "$name" "$ev: $n selected (want >= $min), $bad failing; faulter tgid=$tgid vm_start=$vm_start vm_end=$vm_end ino=$ino dev=$dev; first failing:$(echo "$rest" | sed 1d)"
	fi
}
# evnone NAME FILE EVENT SELECT: no EVENT line satisfies SELECT
evnone() { evcheck "$1" "$2" "$3" "$4" 0 0; }

# Per-thread fault state: prints "E k=v ... inflt=LOCK" where LOCK is the lock
# of the filemap_fault_begin the thread is inside (or -).
annotate() {
	awk "$EVAWK"'{ parse(); p = f["pid"]
		if ($1 == "filemap_fault_begin") cur[p] = f["lock"]
		print $0, "inflt=" ((p in cur) ? cur[p] : "-")
		if ($1 == "filemap_fault_end") delete cur[p] }' "$1"
}

# ---------------------------------------------------------------- unpatched kernel
# the non-GPL module: builds (tests/qemu/run) and loads on every kernel
nongpl_test() {
	ko=/lib/modules/mmlock/mmlock_nongpl.ko
	if [ ! -r $ko ] && [ "$VMALOCK" = refcount ]; then
		skip "nongpl: a non-GPL module calling vm_flags_set()" "GPL-only on the refcount VMA lock upstream (6.15+)"
		return
	fi
	# lockdep's lock_acquire() and friends are EXPORT_SYMBOL_GPL on every
	# kernel: no non-GPL module links against a PROVE_LOCKING build, stock
	# or patched (tests/qemu/run does not build it there)
	if [ ! -r $ko ] && [ -r /proc/lockdep_stats ]; then
		skip "nongpl: a non-GPL module calling vm_flags_set()" "a PROVE_LOCKING kernel links no non-GPL module that takes a lock (lock_acquire is GPL-only)"
		return
	fi
	if [ ! -r $ko ]; then
		notok "nongpl: mmlock_nongpl.ko is in the guest (it did not build for this kernel?)" "$(ls /lib/modules/mmlock 2>&1)"
		return
	fi
	check "nongpl: a non-GPL module calling vm_flags_set() loads" insmod $ko
	check "nongpl: its vm_flags_set() from a mmap_lock write section works (events off)" devmap 3
	if [ $patched -eq 1 ]; then
		trace_start mmap_lock:vma_start_write_begin mmap_lock:vma_start_write_done
		out=$(devmap 3 2>&1); drc=$?
		trace_stop nongpl
		# "caller=nongpl_set_flags+0x../0x.. [mmlock_nongpl]": the module's call site
		n=$(grep -c '^vma_start_write_begin .*caller=nongpl_set_flags+0x[0-9a-f]*/0x[0-9a-f]* \[mmlock_nongpl\]' $W/nongpl.ev)
		nd=$(grep -c '^vma_start_write_done ' $W/nongpl.ev)
		if [ $drc -eq 0 ] && [ "$n" -ge 3 ] && [ "$nd" -ge 3 ]; then
			ok "nongpl: with the events on, its vma_start_write() is traced through the EXPORT_SYMBOL helper ($n begin from the module)"
		else
			notok "nongpl: with the events on, its vma_start_write() is traced through the EXPORT_SYMBOL helper" \
				"devmap: $out; $n begin events from nongpl_set_flags, $nd done; $(head -n 3 $W/nongpl.ev)"
		fi
	fi
	check "nongpl: the module unloads" rmmod mmlock_nongpl
}
# extra guest scripts (tests/qemu/run's MMLOCK_QEMU_GUEST_SCRIPTS), same protocol
extra_tests() {
	for x in $EXTRA; do
		if [ -r /$x ]; then sh /$x; else notok "extra guest script $x is in the guest"; fi
	done
}

if [ $patched -eq 0 ]; then
	LACK="kernel lacks our events"
	if [ "$EXPECT" = patched ]; then
		notok "guest: the patched kernel has our events" \
			"missing: $(for e in $CUSTOM_FILEMAP; do have_event filemap $e || printf '%s ' $e; done; for e in $CUSTOM_MMAP_LOCK; do have_event mmap_lock $e || printf '%s ' $e; done)"
		LACK="the patched kernel lacks our events (failed above)"
	fi
	# The harness itself still has to work: trace stock events in our instance.
	if have_event filemap mm_filemap_fault; then
		if trace_run stock filemap:mm_filemap_fault; then
			ok "workload: faulter runs (mprotect writer, fork, munmap)"
		else
			notok "workload: faulter runs" "$(cat $W/stock.out $W/stock.err)"
		fi
		diag "$(cat $W/stock.out)"
		n=$(grep -c "^mm_filemap_fault pid=[0-9]* dev=$dev ino=$(printf %x "$ino") " $W/stock.ev)
		if [ "$n" -ge 1 ]; then ok "stock event filemap:mm_filemap_fault fires in our instance ($n)"
		else notok "stock event filemap:mm_filemap_fault fires in our instance" "for dev=$dev ino=$ino; $(grep -m 3 "^mm_filemap_fault " $W/stock.ev)"; fi
	else
		skip "stock event filemap:mm_filemap_fault" "not in this kernel"
	fi
	for t in "policy stock: events fire with sane fields" \
		 "policy no_retry: faults keep the VMA lock, no retry" \
		 "policy retry_vma: no mmap_lock fallback after retry" \
		 "sysctls vm.filemap_fault_no_retry and vm.fault_retry_vma_lock exist"; do
		skip "$t" "$LACK"
	done
	nongpl_test
	extra_tests
	exit 0
fi

# ---------------------------------------------------------------- patched kernel
ALL=""
for e in $CUSTOM_FILEMAP; do ALL="$ALL filemap:$e"; done
for e in $CUSTOM_MMAP_LOCK; do ALL="$ALL mmap_lock:$e"; done

if [ -w /proc/sys/vm/filemap_fault_no_retry ] && [ -w /proc/sys/vm/fault_retry_vma_lock ] &&
   [ "$(cat /proc/sys/vm/filemap_fault_no_retry)" = 0 ] && [ "$(cat /proc/sys/vm/fault_retry_vma_lock)" = 0 ]; then
	ok "sysctls vm.filemap_fault_no_retry and vm.fault_retry_vma_lock exist, default 0"
else
	notok "sysctls vm.filemap_fault_no_retry and vm.fault_retry_vma_lock exist, default 0" \
		"$(ls /proc/sys/vm/ 2>&1 | tr '\n' ' ')"
fi
# sysctl_set NO_RETRY RETRY_VMA: write both and read them back; a value
# that did not stick fails (a test must not run under the wrong policy)
sysctl_set() {
	echo "$1" > /proc/sys/vm/filemap_fault_no_retry 2>/dev/null
	echo "$2" > /proc/sys/vm/fault_retry_vma_lock 2>/dev/null
	got="$(cat /proc/sys/vm/filemap_fault_no_retry 2>&1) $(cat /proc/sys/vm/fault_retry_vma_lock 2>&1)"
	if [ "$got" != "$1 $2" ]; then
		notok "sysctls: vm.filemap_fault_no_retry vm.fault_retry_vma_lock set to $1 $2" "read back: $got"
		return 1
	fi
}

# policy NAME NO_RETRY RETRY_VMA: one traced faulter run
policy() {
	sysctl_set "$2" "$3"
	if trace_run "$1" $ALL; then
		ok "$1: faulter runs (no_retry=$2 retry_vma=$3)"
	else
		notok "$1: faulter runs (no_retry=$2 retry_vma=$3)" "$(cat $W/$1.out $W/$1.err)"
	fi
	sysctl_set 0 0
	diag "$(cat $W/$1.out)"
	diag "$1: $(wc -l < $W/$1.ev) events; per event: $(awk '{print $1}' $W/$1.ev | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}')"
	diag "$1: vma_start_write_begin callers of the faulter: $(awk -v t="$tgid" '$1 == "vma_start_write_begin" && index($0, " tgid=" t " ") { for (i = 2; i <= NF; i++) if ($i ~ /^caller=/) { c = substr($i, 8); sub(/\+.*/, "", c); n[c]++ } } END { for (c in n) printf "%s=%d ", c, n[c] }' $W/$1.ev)"
	if [ "$lost" -ne 0 ]; then notok "$1: trace lost no events" "$(grep 'LOST' $W/$1.trace | head -3)"; fi
	annotate $W/$1.ev > $W/$1.ann
}

# The VMA lock design (build-kernel finds it in the source and the harness
# passes it as mmlock.vmalock=): an rwsem writer cannot count its readers and
# reports -1; a refcount writer reports vm_refcnt's reader count, and its
# killable form may end with -EINTR.
if [ "$VMALOCK" = refcount ]; then
	READERS_OK='f["readers"] >= 0' READERS_WHAT='readers>=0 on refcount'
	ERR_OK='(f["err"] == 0 || f["err"] == -4)' ERR_WHAT='err 0 or -EINTR'
else
	READERS_OK='f["readers"] == -1' READERS_WHAT='readers=-1 on rwsem'
	ERR_OK='f["err"] == 0' ERR_WHAT='err=0'
fi
say "# VMA lock design: $VMALOCK"

ENUM_LOCK='(f["lock"] == "vma" || f["lock"] == "mmap" || f["lock"] == "none")'
ENUM_WAIT='(f["reason"] == "folio_lock" || f["reason"] == "read_folio" || f["reason"] == "readahead")'
ENUM_RETRY='f["reason"] ~ /^(drop_async_ra|drop_sync_ra|drop_folio_lock|drop_read_folio|killed|nowait|oom)$/'
ENUM_FAIL='f["reason"] ~ /^(write_locked|contended|detached|seq_recheck|wrong_mm|out_of_range|not_found|anon_no_anon_vma)$/'
ENUM_FB='f["reason"] ~ /^(retry|vma_lock_failed|kernel_mode|access_error)$/'
# GCC clone suffixes a caller symbol may carry (.isra.0, .constprop.0, .part.0)
CLONE='(\.[a-z]+(\.[0-9]+)?)*'
BOOL() { echo "(f[\"$1\"] == 0 || f[\"$1\"] == 1)"; }
SYM() { echo "(f[\"$1\"] ~ /^[A-Za-z_][A-Za-z0-9_.]*\\+0x[0-9a-f]+\\/0x[0-9a-f]+\$/)"; }

# ---- stock policy: every event of the contract, with field checks
policy stock 0 0
E=$W/stock.ev
evcheck "stock: filemap_fault_begin fields (vma range, address, pgoff, dev, ino, lock, user_pc)" $E filemap_fault_begin \
	'ours()' 'common() && f["prio"] == 120 && f["pid"] != f["tgid"] && isptr(f["vma"]) &&
	f["vm_start"] == vm_start && f["vm_end"] == vm_end && inmap(f["address"]) && hex(f["address"]) % 4096 == 0 &&
	hex(f["pgoff"]) == (hex(f["address"]) - hex(vm_start)) / 4096 && '"$ENUM_LOCK"' && f["lock"] != "none" &&
	hex(f["user_pc"]) > 0' 8
evcheck "stock: faults of the reader threads start under the per-VMA lock" $E filemap_fault_begin \
	'ours() && f["lock"] == "vma"' 1 4
evcheck "stock: filemap_fault_wait_start fields; sleeps with the lock dropped (lock=none)" $W/stock.ann filemap_fault_wait_start \
	'mine() && inmap(f["address"]) && f["inflt"] == "vma"' \
	'common() && isptr(f["vma"]) && hex(f["address"]) % 4096 == 0 && '"$ENUM_WAIT"' && f["lock"] == "none"' 1
evcheck "stock: filemap_fault_wait_end fields (waited_ns > 0, err=0)" $W/stock.ann filemap_fault_wait_end \
	'mine() && inmap(f["address"]) && f["inflt"] == "vma"' \
	'common() && '"$ENUM_WAIT"' && '"$ENUM_LOCK"' && f["err"] == 0 && f["waited_ns"] > 0' 1
evcheck "stock: some filemap_fault_wait_end waited at least half the disk delay" $E filemap_fault_wait_end \
	'mine() && inmap(f["address"]) && f["waited_ns"] >= '"$((DELAY_MS * 500000))" 1 1
evcheck "stock: filemap_fault_retry fields (reason drop_*, ret has RETRY)" $E filemap_fault_retry \
	'mine() && inmap(f["address"])' \
	'common() && isptr(f["vma"]) && '"$ENUM_RETRY"' && f["reason"] ~ /^drop_/ && f["ret"] ~ /RETRY/' 1
evcheck "stock: filemap_fault_end fields (major, lock_dropped, ret)" $E filemap_fault_end \
	'mine() && inmap(f["address"])' \
	'common() && isptr(f["vma"]) && '"$(BOOL major)"' && '"$(BOOL lock_dropped)"' && (f["lock_dropped"] == 0 || f["ret"] ~ /RETRY/)' 8
evcheck "stock: page-cache misses end major=1 lock_dropped=1" $E filemap_fault_end \
	'mine() && inmap(f["address"]) && f["lock_dropped"] == 1 && f["major"] == 1' 1 1
evcheck "stock: fault_mmap_lock_fallback reason=retry after the per-VMA fault dropped the lock" $E fault_mmap_lock_fallback \
	'mine() && inmap(f["address"]) && f["reason"] == "retry"' 'common() && f["fault"] ~ /RETRY/' 1
evcheck "stock: fault_mmap_lock_fallback fields" $E fault_mmap_lock_fallback \
	'mine()' 'common() && '"$ENUM_FB" 1
nb=$(grep -c "^filemap_fault_begin .*tgid=$tgid " $E); ne=$(grep -c "^filemap_fault_end .*tgid=$tgid " $E)
if [ "$nb" -eq "$ne" ] && [ "$nb" -gt 0 ]; then ok "stock: one filemap_fault_end per filemap_fault_begin ($nb)"
else notok "stock: one filemap_fault_end per filemap_fault_begin" "begin=$nb end=$ne"; fi
# 6.1's mprotect_fixup() write-locks through vma_merge() first
evcheck "stock: vma_start_write_begin fields (mprotect on the faulted VMA)" $E vma_start_write_begin \
	'mine() && f["vm_start"] == vm_start && f["caller"] ~ /mprotect|^vma_merge'"$CLONE"'\+/' \
	'common() && isptr(f["vma"]) && f["vm_end"] == vm_end && hex(f["flags"]) > 0 && f["anon"] == 0 &&
	f["dev"] == dev && f["ino"] == ino && '"$(SYM caller)"' && hex(f["user_pc"]) > 0' 2
# dup_mmap() is static and inlined into copy_process() in this config.
# anon is vma_is_anonymous(): never true for a file VMA (ino > 0); special
# mappings (vdso, vvar) are neither (version 1 printed !vm_file instead).
evcheck "stock: vma_start_write_begin from fork (dup_mmap, anon and file VMAs)" $E vma_start_write_begin \
	'mine() && f["caller"] ~ /^(dup_mmap|dup_mm|copy_mm|copy_process)'"$CLONE"'\+/' \
	'common() && '"$(BOOL anon)"' && '"$(SYM caller)"' && !(f["anon"] == 1 && f["ino"] > 0)' 4
evcheck "stock: fork write-locks the faulted VMA" $E vma_start_write_begin \
	'ours() && f["caller"] ~ /^(dup_mmap|dup_mm|copy_mm|copy_process)'"$CLONE"'\+/' \
	'f["vm_start"] == vm_start && f["vm_end"] == vm_end && f["anon"] == 0' 1
# (6.1's __split_vma() also write-locks the new upper VMA)
evcheck "stock: munmap of the upper half splits the faulted VMA (__split_vma)" $E vma_start_write_begin \
	'ours() && f["caller"] ~ /^(__split_vma|split_vma|vma_prepare)'"$CLONE"'\+/ && f["vm_end"] == vm_end && f["vm_start"] == vm_start' \
	'f["anon"] == 0' 1
evcheck "stock: munmap of the rest write-locks it (vms_gather_munmap_vmas; 6.1: do_mas_align_munmap)" $E vma_start_write_begin \
	'ours() && f["caller"] ~ /^(vms_gather_munmap_vmas|do_vmi_align_munmap|do_vmi_munmap|do_mas_align_munmap|do_mas_munmap)'"$CLONE"'\+/' \
	'f["vm_start"] == vm_start && hex(f["vm_end"]) < hex(vm_end)' 1
evcheck "stock: vma_start_write_done fields" $E vma_start_write_done \
	'mine()' 'common() && isptr(f["vma"]) && hex(f["vm_end"]) > hex(f["vm_start"])' 2
nb=$(grep -c "^vma_start_write_begin .*tgid=$tgid " $E); nd=$(grep -c "^vma_start_write_done .*tgid=$tgid " $E)
if [ "$nb" -eq "$nd" ]; then ok "stock: one vma_start_write_done per vma_start_write_begin ($nb)"
else notok "stock: one vma_start_write_done per vma_start_write_begin" "begin=$nb done=$nd"; fi
evcheck "stock: mmap_lock_hold_start fields, write=1 (mprotect)" $E mmap_lock_hold_start \
	'mine() && f["write"] == 1' 'common()' 2
evcheck "stock: mmap_lock_hold_start write=0 (fallback faults)" $E mmap_lock_hold_start \
	'mine() && f["write"] == 0' 'common()' 1
evcheck "stock: mmap_lock_hold_end fields" $E mmap_lock_hold_end \
	'mine()' 'common() && '"$(BOOL write)" 2

# Waits depend on timing: count them over all three runs below.
policy no_retry 1 0
E=$W/no_retry.ev
evcheck "no_retry: faults sleep holding the per-VMA lock (filemap_fault_wait_start lock=vma)" $W/no_retry.ann filemap_fault_wait_start \
	'mine() && inmap(f["address"]) && f["inflt"] == "vma"' 'f["lock"] == "vma" && '"$ENUM_WAIT" 1
evnone "no_retry: no filemap_fault_retry inside a per-VMA-locked fault" $W/no_retry.ann filemap_fault_retry \
	'mine() && f["inflt"] == "vma"'
evnone "no_retry: no fault_mmap_lock_fallback reason=retry for the faulted VMA" $E fault_mmap_lock_fallback \
	'mine() && inmap(f["address"]) && f["reason"] == "retry"'
evcheck "no_retry: per-VMA-locked faults end with lock_dropped=0" $W/no_retry.ann filemap_fault_end \
	'mine() && inmap(f["address"]) && f["inflt"] == "vma"' 'f["lock_dropped"] == 0' 4

policy retry_vma 0 1
E=$W/retry_vma.ev
evcheck "retry_vma: per-VMA faults still drop the lock for I/O (filemap_fault_retry)" $E filemap_fault_retry \
	'mine() && inmap(f["address"])' "$ENUM_RETRY" 1
evnone "retry_vma: no fault_mmap_lock_fallback reason=retry for the faulted VMA" $E fault_mmap_lock_fallback \
	'mine() && inmap(f["address"]) && f["reason"] == "retry"'

# one raw line per event, for the documentation (the lock=vma waits and the
# MAJOR|LOCKED end come from the no_retry run)
for e in $CUSTOM_FILEMAP $CUSTOM_MMAP_LOCK; do
	l=$(grep -m1 -h ": $e: .*lock=vma" $W/no_retry.trace 2>/dev/null)
	[ -n "$l" ] || l=$(grep -m1 -h ": $e: " $W/stock.trace $W/no_retry.trace $W/retry_vma.trace 2>/dev/null | head -n 1)
	[ -n "$l" ] && diag "sample $(echo "$l" | sed 's/^ *//')"
done

# ---- contention events, over the three runs (timing-dependent each)
cat $W/stock.ev $W/no_retry.ev $W/retry_vma.ev > $W/all.ev
for p in stock no_retry retry_vma; do
	# re-read each run's map so mine() is right for its lines
	eval "$(sed -n 's/^map \(.*\)$/\1/p' $W/$p.out)"
	evcheck "$p: mmap_lock_wait_end fields" $W/$p.ev mmap_lock_wait_end \
		'mine()' 'common() && '"$(BOOL write)"' && '"$(BOOL success)"' && f["waited_ns"] > 0' 0
	evcheck "$p: mmap_lock_wait_start fields" $W/$p.ev mmap_lock_wait_start \
		'mine()' 'common() && '"$(BOOL write)"' && '"$(SYM caller)" 0
	evcheck "$p: vma_start_read_fail fields" $W/$p.ev vma_start_read_fail \
		'mine()' 'common() && '"$ENUM_FAIL"' && '"$(SYM caller)" 0
	evcheck "$p: vma_start_write_wait_start fields ($READERS_WHAT, detach=0)" $W/$p.ev vma_start_write_wait_start \
		'mine()' 'common() && isptr(f["vma"]) && '"$READERS_OK"' && f["detach"] == 0' 0
	evcheck "$p: vma_start_write_wait_end fields ($ERR_WHAT)" $W/$p.ev vma_start_write_wait_end \
		'mine()' 'common() && isptr(f["vma"]) && f["waited_ns"] > 0 && '"$ERR_OK" 0
done
if [ "$VMALOCK" = refcount ]; then
	evcheck "refcount: a waiting writer counts the readers it waits for (readers >= 1)" $W/all.ev vma_start_write_wait_start \
		'f["readers"] >= 1' 'f["detach"] == 0' 1
	# fork write-locks with vma_start_write_killable(): SIGKILL the faulter
	# while fork waits for readers that hold the VMA lock across I/O.
	# storm_start NAME STRIDE_KB / storm_stop NAME: a traced fork storm
	# (faulter -F) whose readers hold the VMA lock across I/O, SIGKILLed
	storm_start() {
		trace_start $ALL
		faulter -F -r 3 -s "$2" -m 100000 $DATA > $W/$1.out 2> $W/$1.err &
		fpid=$!
	}
	storm_stop() {
		kill -9 $fpid
		wait $fpid 2>/dev/null
		trace_stop "$1"
	}
	sysctl_set 1 0
	for try in 1 2 3 4 5; do
		storm_start killed 256
		# kill when the forking thread sleeps in the VMA write wait
		# (wchan names the function), else after about 3 s
		i=0 wtid=""
		while [ $i -lt 300 ]; do
			[ -n "$wtid" ] || wtid=$(sed -n 's/^storm writer tid=//p' $W/killed.out)
			wch=$( [ -n "$wtid" ] && cat /proc/$fpid/task/$wtid/wchan 2>/dev/null)
			case "$wch" in *vma*) break ;; esac
			sleep 0.01
			i=$((i + 1))
		done
		storm_stop killed
		grep -q "^vma_start_write_wait_end .*tgid=$tgid .*err=-4" $W/killed.ev && break
	done
	sysctl_set 0 0
	diag "killed ($try tries, writer wchan '${wch:-?}' after $i polls): $(grep -c "^vma_start_write_wait_end .*tgid=$tgid " $W/killed.ev) writer waits, $(grep -c "^vma_start_write_wait_end .*tgid=$tgid .*err=-4" $W/killed.ev) with err=-4"
	evcheck "refcount: SIGKILL ends fork's killable VMA write wait with err=-EINTR (-4)" $W/killed.ev vma_start_write_wait_end \
		'mine() && f["err"] != 0' 'f["err"] == -4 && f["vm_start"] == vm_start && f["waited_ns"] > 0' 1
	# /proc/PID/maps walks VMAs with lock_next_vma() under the per-VMA
	# lock (6.17+): while fork holds them write-locked, it fails and falls
	# back to mmap_lock; the failure names the maps code as its caller.
	sysctl_set 1 0
	storm_start maps 128
	i=0
	while [ $i -lt 300 ] && [ -e /proc/$fpid/maps ]; do
		cat /proc/$fpid/maps > /dev/null 2>&1
		i=$((i + 1))
	done
	storm_stop maps
	sysctl_set 0 0
	diag "maps: $i reads; vma_start_read_fail callers: $(awk '$1 == "vma_start_read_fail" { for (i = 2; i <= NF; i++) if ($i ~ /^caller=/) { c = substr($i, 8); sub(/\+.*/, "", c); n[c]++ } } END { for (c in n) printf "%s=%d ", c, n[c] }' $W/maps.ev); events: $(awk '{print $1}' $W/maps.ev | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}')"
	evcheck "refcount: reading /proc/PID/maps during fork fails lock_next_vma() (vma_start_read_fail, maps caller, $i reads)" \
		$W/maps.ev vma_start_read_fail 'f["caller"] ~ /^(get_next_vma|proc_get_vma|m_start|m_next|show_map|query_vma_find_by_addr|query_matching_vma|do_procmap_query)'"$CLONE"'\+/' \
		'common() && '"$ENUM_FAIL"' && isptr(f["vma"])' 1
fi
for e in mmap_lock_wait_start mmap_lock_wait_end vma_start_read_fail vma_start_write_wait_start vma_start_write_wait_end; do
	# (6.1 refuses every first anonymous fault: not contention)
	n=$(grep "^$e " $W/all.ev | grep -vc 'reason=anon_no_anon_vma')
	if [ "$n" -ge 1 ]; then ok "contention: $e fired ($n over the three runs)"
	else notok "contention: $e fired over the three runs" "0 events: the workload made no such contention"; fi
done
eval "$(sed -n 's/^map \(.*\)$/\1/p' $W/no_retry.out)"
evcheck "no_retry: a writer waits for a fault holding the VMA lock (vma_start_write_wait_end on the faulted VMA)" $W/no_retry.ev vma_start_write_wait_end \
	'mine() && f["vm_start"] == vm_start' 'f["waited_ns"] > 0' 1
# ---- a refused write and a first anonymous fault (accerr)
trace_start $ALL
accerr > $W/accerr.out 2> $W/accerr.err
arc=$?
trace_stop accerr
if [ $arc -eq 0 ]; then ok "accerr: a write to a read-only anonymous page is refused (SIGSEGV)"
else notok "accerr: a write to a read-only anonymous page is refused (SIGSEGV)" "$(cat $W/accerr.out $W/accerr.err)"; fi
case "$(uname -r)" in
6.1.*)
	evcheck "6.1: an access error under the per-VMA lock falls back to mmap_lock (fault_mmap_lock_fallback reason=access_error)" \
		$W/accerr.ev fault_mmap_lock_fallback 'mine() && f["reason"] == "access_error"' 'common() && inmap(f["address"])' 1
	evcheck "6.1: the first fault of an anonymous VMA without anon_vma is refused (vma_start_read_fail reason=anon_no_anon_vma)" \
		$W/accerr.ev vma_start_read_fail 'mine() && f["reason"] == "anon_no_anon_vma" && inmap(f["address"])' 'common() && '"$(SYM caller)" 1 ;;
*)
	evnone "the access error goes to SIGSEGV under the per-VMA lock (no fault_mmap_lock_fallback reason=access_error)" \
		$W/accerr.ev fault_mmap_lock_fallback 'mine() && f["reason"] == "access_error"' ;;
esac

# ---- what lock:contention_begin/end see of the same waits (the cover
# letter's question "why not the existing contention events?").  One
# no_retry run with both sets: each contention_begin of a task is put into
# the wait of ours that the task has open (mmap_lock_wait_* or
# vma_start_write_wait_*), else counted as another lock.  On the rwsem VMA
# lock the writer's wait is an rwsem slow path too, so contention events
# fire inside it, but they name neither the VMA, the mm nor the caller; on
# the refcount design the writer sleeps in an rcuwait that no contention
# event reports.
if have_event lock contention_begin && have_event lock contention_end; then
	sysctl_set 1 0
	trace_run contention $ALL lock:contention_begin lock:contention_end
	sysctl_set 0 0
	awk -v t="$tgid" '
		$1 == "mmap_lock_wait_start" || $1 == "vma_start_write_wait_start" {
			split($2, a, "="); open[a[2]] = ($1 == "mmap_lock_wait_start") ? "mmap" : "vma"; seen[a[2]] = 0
			ours[open[a[2]]]++; next }
		$1 == "mmap_lock_wait_end" || $1 == "vma_start_write_wait_end" {
			split($2, a, "="); p = a[2]; if (p in open) { if (!seen[p]) silent[open[p]]++; delete open[p] } next }
		$1 == "contention_begin" { split($2, a, "="); p = a[2]; total++
			if (p in open) { inside[open[p]]++; seen[p] = 1 } else other++ }
		END { printf "contention_begin=%d inside_mmap_lock_waits=%d inside_vma_write_waits=%d other_locks=%d ", total, inside["mmap"], inside["vma"], other
		      printf "our_mmap_lock_waits=%d without_contention_event=%d our_vma_write_waits=%d without_contention_event=%d\n", ours["mmap"], silent["mmap"], ours["vma"], silent["vma"] }' \
		$W/contention.ev > $W/contention.sum
	diag "contention ($VMALOCK VMA lock, no_retry): $(cat $W/contention.sum)"
	eval "$(tr ' ' '\n' < $W/contention.sum | grep -E '^(our_vma_write_waits|inside_vma_write_waits)=[0-9]+$')"
	if [ "$VMALOCK" = refcount ]; then
		if [ "${our_vma_write_waits:-0}" -ge 1 ] && [ "${inside_vma_write_waits:-0}" -eq 0 ]; then
			ok "contention: the refcount VMA writer's wait is invisible to lock:contention_* ($our_vma_write_waits waits of ours, 0 contention events in them)"
		else
			notok "contention: the refcount VMA writer's wait is invisible to lock:contention_*" "$(cat $W/contention.sum)"
		fi
	else
		if [ "${our_vma_write_waits:-0}" -ge 1 ] && [ "${inside_vma_write_waits:-0}" -ge 1 ]; then
			ok "contention: on the rwsem VMA lock, lock:contention_* fire inside the VMA writer's waits too ($inside_vma_write_waits in $our_vma_write_waits)"
		else
			notok "contention: on the rwsem VMA lock, lock:contention_* fire inside the VMA writer's waits too" "$(cat $W/contention.sum)"
		fi
	fi
else
	skip "contention: what lock:contention_* see" "no lock:contention_begin/end in this kernel"
fi

# ---- fault accounting per policy: a sequential mmap read of a file that
# was cached, then evicted.  Stock counts one major fault per page-cache miss
# (the retry after a major fault has FAULT_FLAG_TRIED); the minor retries
# (async readahead, a folio still under I/O) stay minor.  retry_vma must
# count the same: version 1 set FAULT_FLAG_TRIED on every retry and counted
# each as major.  faults_per_mib compares the policies' fault-around.
SEQ_MIB=4
seq_policy() {	# NAME NO_RETRY RETRY_VMA: median maj/min of 3 runs -> $W/seq.NAME
	sysctl_set "$2" "$3" || return 1
	for r in 1 2 3; do
		sync; echo 3 > /proc/sys/vm/drop_caches
		timeout 120 seqread $DATA $SEQ_MIB
	done > $W/seq.$1.raw 2>&1
	sysctl_set 0 0
	[ "$(grep -c '^seqread ' $W/seq.$1.raw)" -eq 3 ] || return 1
	med() { sed -n "s/^seqread .*$1=\([0-9.]*\).*/\1/p" $W/seq.$2.raw | sort -n | sed -n 2p; }
	echo "maj=$(med maj "$1") min=$(med min "$1") faults_per_mib=$(med faults_per_mib "$1")" > $W/seq.$1
}
seqok=1
for p in "stock 0 0" "retry_vma 0 1" "no_retry 1 0"; do
	set -- $p
	if ! seq_policy "$@" || [ ! -s $W/seq.$1 ]; then
		notok "seqread: $1 runs 3 times" "$(cat $W/seq.$1.raw 2>&1)"; seqok=0
	fi
done
if [ $seqok = 1 ]; then
	diag "seqread ($SEQ_MIB MiB, median of 3): stock $(cat $W/seq.stock); retry_vma $(cat $W/seq.retry_vma); no_retry $(cat $W/seq.no_retry)"
	sm=$(sed 's/^maj=\([0-9]*\).*/\1/' $W/seq.stock); rm=$(sed 's/^maj=\([0-9]*\).*/\1/' $W/seq.retry_vma)
fi
# version 1 of a series (contract v1) has both faults the review found
# (issue 12, bugs 1 and 5): its numbers are printed above, not asserted
if [ $seqok = 1 ] && [ "$CONTRACT" = v1 ]; then
	for t in "seqread: retry_vma counts major faults as stock does" "seqread: no_retry maps around as stock does"; do
		skip "$t" "series version 1 (contract v1) counts every retry under the VMA lock as major and maps one page per no_retry fault; fixed in version 2"
	done
elif [ $seqok = 1 ]; then
	# within 5 %, and at least one fault of slack for small counts
	tol=$(( sm * 5 / 100 )); [ $tol -lt 1 ] && tol=1
	d=$(( rm - sm )); [ $d -lt 0 ] && d=$(( -d ))
	if [ $d -le $tol ]; then
		ok "seqread: retry_vma counts major faults as stock does (maj $rm vs $sm, within 5 %)"
	else
		notok "seqread: retry_vma counts major faults as stock does (maj $rm vs $sm, within 5 %)" \
			"$(cat $W/seq.retry_vma.raw $W/seq.stock.raw)"
	fi
	# no_retry: fault-around redone after the I/O, so about as many
	# faults per MiB as stock (within 25 %: the readahead timing moves).
	# Stock itself is bimodal on one kernel (64 or 96 minor faults per
	# 4 MiB, as the async readahead is done or still in flight when the
	# retry maps around; android14-6.1 gave 16.25 16.50 24.25 in one boot),
	# so no_retry is held to stock's slowest run, not its median.  Without
	# the fault-around (version 1) a fault maps one page: up to 256 per MiB.
	sf=$(sed 's/.*faults_per_mib=\([0-9.]*\).*/\1/' $W/seq.stock); nf=$(sed 's/.*faults_per_mib=\([0-9.]*\).*/\1/' $W/seq.no_retry)
	sfmax=$(sed -n 's/^seqread .*faults_per_mib=\([0-9.]*\).*/\1/p' $W/seq.stock.raw | sort -n | tail -n 1)
	if awk -v s="$sfmax" -v n="$nf" 'BEGIN { exit !(n <= s * 1.25 + 1) }'; then
		ok "seqread: no_retry maps around as stock does ($nf vs $sf faults per MiB, stock's runs up to $sfmax)"
	else
		notok "seqread: no_retry maps around as stock does ($nf vs $sf faults per MiB, stock's runs up to $sfmax)" "$(cat $W/seq.no_retry.raw $W/seq.stock.raw)"
	fi
fi

nongpl_test

# A lockdep report switches lockdep off (debug_locks=0): on the debug kernel
# this proves no splat happened even if the console lost it.
if [ -r /proc/lockdep_stats ]; then
	dl=$(awk '/debug_locks:/ { print $2 }' /proc/lockdep_stats)
	if [ "$dl" = 1 ]; then ok "lockdep: still on after all runs (debug_locks=1, $(awk '/lock-classes:/ { print $2 }' /proc/lockdep_stats) classes)"
	else notok "lockdep: still on after all runs" "$(cat /proc/lockdep_stats)"; fi
fi
extra_tests
exit 0
