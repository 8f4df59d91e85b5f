# shellcheck shell=bash
# No long step may be silent for more than 30 s.  Source this, then
#
#	progress_follow LABEL LOG PATTERN [ESTIMATE_S] &
#	fpid=$!
#	... the long step, writing LOG ...
#	progress_stop "$fpid"
#
# prints each new LOG line matching PATTERN (an extended regex) as
# "LABEL: line" on stderr while the step runs, and "LABEL: still running
# (Ns[ of ~ESTIMATE_Ss])" after 20 s without one: with the 2 s poll no
# output is ever more than about 22 s apart, well inside the 30 s rule.

progress_follow() {
	local label=$1 logf=$2 pat=$3 est=${4:-} seen=0 n start=$SECONDS quiet=$SECONDS
	while sleep 2; do
		n=$(grep -acE -- "$pat" "$logf" 2>/dev/null) || n=0
		if [ "$n" -gt "$seen" ]; then
			grep -aE -- "$pat" "$logf" | sed -n "$((seen + 1)),${n}p" | tr -d '\r' |
				cut -c1-160 | sed "s|^|$label: |" >&2
			seen=$n quiet=$SECONDS
		elif [ $((SECONDS - quiet)) -ge 20 ]; then
			echo "$label: still running ($((SECONDS - start))s${est:+ of ~${est}s})" >&2
			quiet=$SECONDS
		fi
	done
}

progress_stop() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}
