# shellcheck shell=bash
# Sourced by check-series and verify-android.
#
# build_progress PID OBJ LABEL: while the kernel build PID runs, a line every
# 20 s ("# LABEL: building, N objects, Ts": objects under OBJ compiled since
# the call), since a build is minutes of otherwise silent make -s; then
# returns PID's exit status.
build_progress() {
	local pid=$1 obj=$2 label=$3 stamp begin=$SECONDS next=$((SECONDS + 20)) rc

	stamp=$(mktemp "${TMPDIR:-/tmp}/mmlock-build.XXXXXX")
	while kill -0 "$pid" 2>/dev/null; do
		sleep 2
		[ $SECONDS -ge $next ] || continue
		next=$((SECONDS + 20))
		echo "# $label: building, $(find "$obj" -name '*.o' -newer "$stamp" 2>/dev/null | wc -l) objects, $((SECONDS - begin))s"
	done
	wait "$pid"
	rc=$?
	rm -f "$stamp"
	return $rc
}

# work_lock LOCKFILE LABEL: one run at a time on a work tree (check-series and
# verify-android reset and re-apply their series in it: a second run, a
# --quick one included, would rewrite the tree under a running build).  Takes
# an exclusive flock on LOCKFILE through fd 7, held until the shell exits;
# while another run holds it, a line every 20 s says whose lock it waits for.
work_lock() {
	local lock=$1 label=$2 begin=$SECONDS

	mkdir -p "$(dirname "$lock")" || return 1
	exec 7>>"$lock" || return 1
	until flock -w 20 7; do
		echo "# $label: waiting for $lock (held by pid $(cat "$lock" 2>/dev/null), $((SECONDS - begin))s)"
	done
	echo $$ >"$lock"
}
