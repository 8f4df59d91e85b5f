# mmlock device agent: the device half of `mmlock device`, pushed to
# BASE/agent.sh and run as root through the transport (adb or ssh):
#   sh BASE/agent.sh BASE ACTION [ARGS...]
# POSIX sh as found on a phone (mksh, toybox) and a Linux board (busybox,
# dash).  Everything it changes is written down under BASE/state first, so
# `restore` (run by the host on every exit, and before every new run) puts
# the sysctls and the tracing state back even after a disconnect or a kill.
# It never writes the top-level tracing instance.
#
# Actions:
#   probe                      key=value lines for `mmlock device check`
#   policy NO_RETRY RETRY_VMA  set the two sysctls (saving the first values)
#   stream BUFKB EVENTS -- CMD...
#                              host-side capture: a private instance with
#                              EVENTS (sys:name,...), CMD held at a gate until
#                              set_event_pid has its pid, trace_pipe on
#                              stdout, per-CPU stats on stderr; after CMD
#                              ends, a trace_marker line ends the stream and
#                              the agent waits for the host to close stdin
#   stream BUFKB EVENTS --all CMD...
#                              the same, every process traced (a workload
#                              whose load is other processes: app-rotation)
#   bstream BUFKB EVENTS -- CMD...
#                              host-side binary capture: the same instance
#                              and gate; one "mmlock-ready" line on stderr,
#                              then it waits for "go" on stdin (the host has
#                              a reader per CPU by then); after CMD ends,
#                              the readers drained, the formats the decoder
#                              needs on stdout as "mmlock-file NAME SIZE"
#                              and SIZE bytes each
#   reader INSTANCE CPU        one CPU's trace_pipe_raw on stdout (mmlock
#                              device pages), until bstream's SIGUSR1 and
#                              nothing is left
#   record ARGS...             device-side capture: mmlock record ARGS with
#                              oom_score_adj -1000
#   restore                    undo everything listed under BASE/state
B=$1
shift
S=$B/state
SYSCTLS="filemap_fault_no_retry fault_retry_vma_lock"

say() { echo "mmlock-agent: $*" >&2; }

tracefs() {
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		if [ -e "$d/available_events" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

# signal the pids listed in a state file (not ourselves); 0 when none is left
kill_listed() {	# FILE SIGNAL
	left=1
	[ -f "$1" ] || return 0
	while read -r p; do
		[ -n "$p" ] && [ "$p" != $$ ] && kill "-$2" "$p" 2>/dev/null && left=0
	done < "$1"
	return $left
}

remove_instance() {
	i=$1
	n=0
	# rmdir fails while a reader still has trace_pipe open: give it time to
	# go; another restore (the agent's own trap) may remove it first
	while [ -d "$i" ]; do
		{ echo 0 > "$i/tracing_on"; echo 0 > "$i/events/enable"; } 2>/dev/null
		if rmdir "$i" 2>/dev/null; then
			say "removed $i"
			return 0
		fi
		n=$((n + 1))
		if [ $n -gt 50 ]; then
			say "cannot remove $i"
			return 1
		fi
		sleep 0.1
	done
	return 0
}

restore() {
	[ -d "$S" ] || return 0
	# TERM first (mmlock record and the workload stop cleanly on it), then
	# wait up to 5 s for them to go, then KILL
	n=0
	while kill_listed "$S/pids" TERM && [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	kill_listed "$S/pids" KILL
	if [ -f "$S/instances" ]; then
		while read -r i; do remove_instance "$i"; done < "$S/instances"
	fi
	# device-side captures: mmlock record removes its own instance on
	# SIGTERM; reset removes what a killed one left
	[ -x "$B/mmlock" ] && [ -f "$S/recorded" ] && "$B/mmlock" reset >/dev/null 2>&1
	for name in $SYSCTLS; do
		[ -f "$S/sysctl.$name" ] || continue
		v=$(cat "$S/sysctl.$name")
		if echo "$v" > "/proc/sys/vm/$name"; then
			say "vm.$name restored to $v"
		else
			say "cannot restore vm.$name to $v"
		fi
	done
	rm -rf "$S"
}

probe() {
	echo "uid=$(id -u)"
	echo "release=$(uname -r)"
	echo "machine=$(uname -m)"
	echo "product=$(getprop ro.product.device 2>/dev/null)"
	[ -d "$S" ] && echo "leftover=1"
	t=$(tracefs)
	if [ -z "$t" ]; then
		if [ "$(id -u)" != 0 ]; then
			echo "tracefs_noroot=1"
		elif [ -d /sys/kernel/tracing ]; then
			echo "tracefs_unmounted=/sys/kernel/tracing"
		fi
	else
		echo "tracefs=$t"
		echo "nr_cpus=$(ls -d "$t"/per_cpu/cpu* 2>/dev/null | wc -l)"
		g=$(page_geometry "$t/events/header_page") && echo "ring_page=${g% *}" && echo "ring_word=${g#* }"
		grep -E '^(mmap_lock|filemap|sched):' "$t/available_events" 2>/dev/null |
			sed 's/^/event=/'
		i=$t/instances/mmlock-check-$$
		if mkdir "$i" 2>/dev/null; then
			if echo 4096 > "$i/buffer_size_kb" 2>/dev/null; then
				echo "buffer_kb=$(cat "$i/buffer_size_kb")"
			else
				echo "buffer_error=cannot set 4096 KiB per CPU"
			fi
			rmdir "$i"
		else
			echo "buffer_error=cannot create an instance under $t/instances"
		fi
	fi
	for name in $SYSCTLS; do
		if [ -e "/proc/sys/vm/$name" ]; then
			echo "sysctl_$name=$(cat "/proc/sys/vm/$name")"
		else
			echo "sysctl_$name=absent"
		fi
	done
	if grep -qE ' (__vma_start_exclude_readers|__vma_exclude_readers_for_detach|__vma_enter_locked|vma_mark_detached)$' /proc/kallsyms 2>/dev/null; then
		echo "vmalock=refcount"
	elif grep -q ' lock_vma_under_rcu$' /proc/kallsyms 2>/dev/null; then
		echo "vmalock=rwsem"
	elif [ -r /proc/kallsyms ]; then
		echo "vmalock=none"
	fi
	mkdir -p "$B" 2>/dev/null
	echo "free_kb=$(df -k "$B" 2>/dev/null | tail -n 1 | awk '{ print $4 }')"
	if command -v getenforce >/dev/null 2>&1; then
		echo "selinux=$(getenforce)"
	elif [ -r /sys/fs/selinux/enforce ]; then
		if [ "$(cat /sys/fs/selinux/enforce)" = 1 ]; then echo selinux=Enforcing; else echo selinux=Permissive; fi
	else
		echo "selinux=absent"
	fi
}

policy() {
	mkdir -p "$S" || return 1
	set -- "$1" "$2"
	for name in $SYSCTLS; do
		want=$1
		shift
		f=/proc/sys/vm/$name
		if [ ! -e "$f" ]; then
			[ "$want" = 0 ] && continue
			say "the kernel has no vm.$name (not patched)"
			return 5
		fi
		[ -f "$S/sysctl.$name" ] || cat "$f" > "$S/sysctl.$name" || return 1
		if ! echo "$want" > "$f"; then
			say "cannot write vm.$name"
			return 1
		fi
	done
	return 0
}

stats() {	# PHASE INSTANCE
	for c in "$2"/per_cpu/cpu*; do
		echo "mmlock-stats $1 ${c##*/cpu} $(tr '\n' ' ' < "$c/stats")" >&2
	done
}

# the ring buffer's page (sub-buffer) and word size, from a header_page:
# "field: char data; offset:16; size:4080;" and "field: local_t commit; ... size:8;"
page_geometry() {	# HEADER_PAGE
	d=$(sed -n 's/.*char data;.*offset:\([0-9]*\);.*size:\([0-9]*\);.*/\1 \2/p' "$1")
	w=$(sed -n 's/.*commit;.*size:\([0-9]*\);.*/\1/p' "$1" | head -n 1)
	set -- $d
	[ -n "$1" ] && [ -n "$2" ] && [ -n "$w" ] && echo "$(($1 + $2)) $w"
}

# What both host-side captures share: the instance, its events and the
# workload held at the gate; sets i (the instance), w (the workload's pid)
# and gate.  The caller turns tracing on and opens the gate.
setup() {	# BUFKB EVENTS --|--all CMD...
	bufkb=$1 events=$2 scope=$3
	shift 3		# BUFKB EVENTS --
	t=$(tracefs) || { say "no tracefs"; return 5; }
	mkdir -p "$S" || return 1
	i=$t/instances/mmlock-dev-$$
	echo "$i" >> "$S/instances"
	echo $$ >> "$S/pids"
	mkdir "$i" || { say "cannot create $i"; return 5; }
	echo 0 > "$i/tracing_on"
	echo "$bufkb" > "$i/buffer_size_kb" || { say "cannot set buffer_size_kb $bufkb"; return 6; }
	echo mono > "$i/trace_clock" 2>/dev/null || say "trace_clock mono refused; using $(cat "$i/trace_clock")"
	echo 1 > "$i/options/record-tgid"
	echo 1 > "$i/options/event-fork"
	for e in $(echo "$events" | tr ',' ' '); do
		if ! echo 1 > "$i/events/${e%%:*}/${e#*:}/enable"; then
			say "cannot enable $e"
			return 6
		fi
	done
	gate=$S/gate.$$
	rm -f "$gate"
	mkfifo "$gate" || return 1
	# the workload waits on the fifo until the filter has its pid
	( read -r go < "$gate"; exec "$@" ) &
	w=$!
	echo "$w" >> "$S/pids"
	if [ "$scope" != --all ]; then
		echo "$w" > "$i/set_event_pid" || { say "cannot write set_event_pid"; return 6; }
		# what the kernel holds, for the summary: record --stdin cannot know it
		echo "mmlock-filter set_event_pid $(tr '\n' ' ' < "$i/set_event_pid")(+event-fork)" >&2
	fi
	return 0
}

stream() {
	setup "$@" || return
	stats start "$i"
	echo 1 > "$i/tracing_on"
	# dd reads with read(2): cat may splice/sendfile, which on 6.x kernels
	# loses and cuts trace_pipe lines
	dd if="$i/trace_pipe" bs=65536 2>/dev/null &
	c=$!
	echo "$c" >> "$S/pids"
	echo go > "$gate"
	wait "$w"
	rc=$?
	rm -f "$gate"
	echo 0 > "$i/events/enable"
	echo "mmlock-device-end $$ rc=$rc" > "$i/trace_marker"
	# the host closes our stdin once it has read the marker (or, if it never
	# comes, a while after this line)
	echo "mmlock-marker $$" >&2
	read -r ack || :
	echo 0 > "$i/tracing_on"
	kill "$c" 2>/dev/null
	wait "$c" 2>/dev/null
	stats end "$i"
	remove_instance "$i" >/dev/null 2>&1
	return $rc
}

# one CPU's raw pages on stdout: `mmlock device pages` (device/pages.c; dd
# would stop at the first empty read(2), which trace_pipe_raw returns each
# time the reader catches up with the writer)
reader() {	# INSTANCE CPU
	case "$1" in
	*/instances/mmlock-dev-*) ;;
	*) say "reader: $1 is not an instance of ours"; return 2 ;;
	esac
	[ -r "$1/per_cpu/cpu$2/trace_pipe_raw" ] || { say "reader: no $1/per_cpu/cpu$2"; return 5; }
	mkdir -p "$S" || return 1
	echo $$ >> "$S/pids"
	echo $$ > "$S/reader.${1##*-}.$2"
	echo -1000 > /proc/self/oom_score_adj 2>/dev/null
	echo "mmlock-reader $2" >&2
	# exec keeps our pid: the pid listed above is the reader's
	exec "$B/mmlock" device pages "$1" "$2"
}

# Tracing is off: ask each reader to read what is left and exit, and wait
# until they are gone (60 s without progress: give up, restore kills them).
drain() {	# INSTANCE
	di=$1 n=0 last=
	for f in "$S"/reader.$$.*; do
		[ -f "$f" ] && kill -USR1 "$(cat "$f")" 2>/dev/null
	done
	while :; do
		busy=
		for f in "$S"/reader.$$.*; do
			[ -f "$f" ] || continue
			read -r p < "$f"
			if kill -0 "$p" 2>/dev/null; then
				busy="$busy $p"
			else
				rm -f "$f"
			fi
		done
		[ -z "$busy" ] && return 0
		for c in "$di"/per_cpu/cpu*; do
			busy="$busy cpu${c##*/cpu}:$(sed -n 's/^entries: *//p' "$c/stats")"
		done
		if [ "$busy" = "$last" ]; then n=$((n + 1)); else n=0; fi
		last=$busy
		if [ $n -ge 600 ]; then
			say "the readers made no progress for 60 s:$busy"
			return 1
		fi
		sleep 0.1
	done
}

# FILE on stdout as "mmlock-file NAME SIZE", then its bytes.  tracefs and
# proc files have no size: a copy tells it.
send() {	# NAME FILE
	c=$S/send.$$
	if cat "$2" > "$c" 2>/dev/null; then
		echo "mmlock-file $1 $(wc -c < "$c")"
		cat "$c"
	fi
	rm -f "$c"
}

bstream() {
	events=$2
	setup "$@" || return
	g=$(page_geometry "$i/events/header_page") || { say "cannot read $i/events/header_page"; return 5; }
	set -- $g
	cpus=
	for c in "$i"/per_cpu/cpu*; do cpus="$cpus${cpus:+,}${c##*/cpu}"; done
	echo "mmlock-ready instance=$i page=$1 word=$2 pid=$w cpus=$cpus" \
		"clock=$(sed 's/.*\[\(.*\)\].*/\1/' "$i/trace_clock")" \
		"buffer_kb=$(cat "$i/buffer_size_kb")" >&2
	# the host starts a reader per CPU, then says go (EOF: it gave up)
	read -r go || go=
	if [ "$go" != go ]; then
		say "the host ended the capture before it started"
		return 1
	fi
	stats start "$i"
	echo 1 > "$i/tracing_on"
	echo go > "$gate"
	wait "$w"
	rc=$?
	rm -f "$gate"
	echo 0 > "$i/tracing_on"
	echo 0 > "$i/events/enable"
	echo "mmlock-drain $$ rc=$rc" >&2
	drain "$i"
	stats end "$i"
	for f in "$S"/reader.$$.*; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
		rm -f "$f"
	done
	send tracefs/events/header_page "$i/events/header_page"
	send tracefs/events/header_event "$i/events/header_event"
	for e in $(echo "$events" | tr ',' ' '); do
		send "tracefs/events/${e%%:*}/${e#*:}/format" "$t/events/${e%%:*}/${e#*:}/format"
	done
	# ftrace's own records (print, kernel_stack) as the decoder knows them
	for d in "$t"/events/ftrace/*; do
		[ -f "$d/format" ] && send "tracefs/events/ftrace/${d##*/}/format" "$d/format"
	done
	for f in printk_formats saved_cmdlines saved_tgids; do
		send "tracefs/$f" "$t/$f"
	done
	send kallsyms /proc/kallsyms
	echo "mmlock-files-end"
	remove_instance "$i" >/dev/null 2>&1
	echo "mmlock-end $$ rc=$rc" >&2
	return $rc
}

record() {
	mkdir -p "$S" || return 1
	echo $$ >> "$S/pids"
	: > "$S/recorded"
	echo -1000 > /proc/self/oom_score_adj 2>/dev/null
	# exec keeps our pid: the pid listed above is mmlock record's
	exec "$B/mmlock" record "$@"
}

action=$1
shift
case "$action" in
probe) probe ;;
policy) policy "$@" ;;
stream)
	# the host is gone (SIGPIPE on stderr) or asked us to stop: undo it all
	trap 'trap "" PIPE HUP INT TERM; restore >/dev/null 2>&1; exit 130' PIPE HUP INT TERM
	stream "$@" ;;
bstream)
	trap 'trap "" PIPE HUP INT TERM; restore >/dev/null 2>&1; exit 130' PIPE HUP INT TERM
	bstream "$@" ;;
reader) reader "$@" ;;
record) record "$@" ;;
restore) restore ;;
*) say "unknown action $action"; exit 2 ;;
esac
