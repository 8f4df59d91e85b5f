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
