# Sourced by bench/analyze/run and bench/analyze/binary (needs O and work).

measure() {	# prints "wall cpu rss status" of the command; a crash is noted for crashed()
	m=$("$O/bench/measure" "$@" 2>&1 >/dev/null | tail -n 1)
	case ${m##* } in
	12[89]|1[3-9][0-9]|2[0-9][0-9]) echo "$* (status ${m##* }: killed by a signal)" >>"$work/bench.crashed" ;;
	esac
	echo "$m"
}

crashed() {	# stop when a measured command was killed: its time is no result
	[ -s "$work/bench.crashed" ] || return 0
	echo "$(basename "$0"): a measured command crashed; no ratio printed:" >&2
	sed 's/^/  /' "$work/bench.crashed" >&2
	exit 1
}

median() {	# FILE COLUMN
	sort -n -k "$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

rm -f "$work/bench.crashed"
