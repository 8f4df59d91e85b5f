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

stream() {
	bufkb=$1 events=$2
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
	echo "$w" > "$i/set_event_pid"
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
record) record "$@" ;;
restore) restore ;;
*) say "unknown action $action"; exit 2 ;;
esac
