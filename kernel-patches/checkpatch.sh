# shellcheck shell=sh
# Sourced by check-series, verify-android and tests/series/run.
#
# checkpatch_series SRC PATCH...: scripts/checkpatch.pl --strict of the kernel
# tree SRC on each PATCH.  Prints each complaint (first 20 lines) as "# "
# lines and sets checkpatch_bad to the names of the patches complained about,
# empty when every one is clean.
checkpatch_series() {
	cps_src=$1
	shift
	checkpatch_bad=""
	for cps_p in "$@"; do
		# one line per patch: a series takes tens of seconds on a loaded machine
		echo "# checkpatch --strict $(basename "$cps_p")"
		cps_out=$(cd "$cps_src" && perl scripts/checkpatch.pl --strict --quiet "$cps_p" 2>&1)
		[ -z "$cps_out" ] && continue
		checkpatch_bad="$checkpatch_bad $(basename "$cps_p")"
		echo "$cps_out" | head -20 | sed 's/^/# /'
	done
}
