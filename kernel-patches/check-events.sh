# shellcheck shell=bash
# Sourced by check-series and verify-android.
#
# check_event_text NAME SRC: the patched kernel tree SRC carries the one copy
# of the event definitions (tracepoints/trace-events/<header>.h) verbatim in
# include/trace/events/<header>.h, and those headers parse to the contract
# (mmlock events --check-header).  Prints ok / not ok lines named NAME.
# Environment: MMLOCK_BIN (an mmlock binary; default: built from this tree
# into $MMLOCK_CHECK_DIR/mmlock-build).
check_event_text() {
	local name=$1 src=$2 top h canon bin out rc missing=""
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	for canon in "$top"/tracepoints/trace-events/*.h; do
		h=$(basename "$canon")
		if ! perl -0777 -e 'open(my $c, "<", $ARGV[0]) or exit 2; my $t = <$c>;
			open(my $f, "<", $ARGV[1]) or exit 2; my $s = <$f>;
			exit(index($s, $t) >= 0 ? 0 : 1)' "$canon" "$src/include/trace/events/$h"; then
			missing="$missing $h"
		fi
	done
	if [ -z "$missing" ]; then
		echo "ok - $name: include/trace/events/{$(cd "$top/tracepoints/trace-events" && ls *.h | sed 's/\.h$//' | paste -sd,)}.h carry tracepoints/trace-events/ verbatim"
	else
		echo "not ok - $name: include/trace/events/ carry tracepoints/trace-events/ verbatim: differs:$missing"
		for h in $missing; do
			# the first lines that differ, for the reader
			diff <(cat "$top/tracepoints/trace-events/$h") \
				<(sed -n "/$(head -n 1 "$top/tracepoints/trace-events/$h" | sed 's/[][\/.*^$]/\\&/g')/,\$p" "$src/include/trace/events/$h") |
				head -n 10 | sed "s/^/# $h: /"
		done
	fi
	bin=${MMLOCK_BIN:-}
	if [ -z "$bin" ]; then
		bin=${MMLOCK_CHECK_DIR:-/var/tmp/mmlock-check}/mmlock-build/mmlock
		if ! make -s -C "$top" O="$(dirname "$bin")" "$bin" >/dev/null 2>&1; then
			echo "not ok - $name: build mmlock to parse the trace-event headers (make O=$(dirname "$bin"))"
			return
		fi
	fi
	out=$("$bin" events --check-header "$src/include/trace/events/filemap.h" \
		"$src/include/trace/events/mmap_lock.h" 2>&1); rc=$?
	if [ $rc -eq 0 ]; then
		echo "ok - $name: TRACE_EVENT blocks of the patched headers parse to the contract ($(echo "$out" | tail -n 1))"
	else
		echo "not ok - $name: TRACE_EVENT blocks of the patched headers parse to the contract (exit $rc)"
		echo "$out" | grep -v '^ok ' | head -n 20 | sed 's/^/# /'
	fi
}
