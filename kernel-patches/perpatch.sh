# shellcheck shell=bash
# Sourced by check-series and verify-android: "each patch builds on its own".
#
# perpatch_builds SRC WORK ARCHS PATCH...: from SRC's current HEAD (the
# pristine base, a git tree), git am each PATCH in turn and build the kernel
# after each one, for every architecture in ARCHS ("x86_64 arm64"), with
# allnoconfig + config/perpatch.config (+ EXTRA_FRAGMENT, the series' own
# options, when set) in WORK/obj-pp-ARCH.  Per patch and architecture: ok when
# it builds with no compiler warning and every .c file the patch touches that
# this architecture compiles has an object; not ok with the build's last
# lines otherwise.  The object folders stay, so a later run rebuilds only what
# changed (and ccache keeps every intermediate state).  Needs the caller's ok,
# notok and skip, build_progress (build-progress.sh) and MMLOCK_JOBS; PERPATCH_FROM
# (check-series --from) leaves the builds of the patches before it out.
perpatch_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# perpatch_cc CROSS: the compiler, through ccache when there is one
perpatch_cc() {
	if command -v ccache >/dev/null; then echo "ccache ${1}gcc"; else echo "${1}gcc"; fi
}

# perpatch_build SRC OBJ ARCH FRAGMENT: configure and build; 2 when Kconfig
# dropped a fragment line (the fragment no longer means what it says)
perpatch_build() {
	local src=$1 obj=$2 arch=$3 frag=$4 cross="" target=bzImage l miss=""

	[ "$arch" = arm64 ] && cross=aarch64-linux-gnu- && target=Image
	mkdir -p "$obj"
	make -C "$src" O="$obj" -s ARCH="$arch" CROSS_COMPILE="$cross" CC="$(perpatch_cc "$cross")" \
		HOSTCC=gcc allnoconfig KCONFIG_ALLCONFIG="$frag" >"$obj.log" 2>&1 || return 1
	for l in $(grep -E '^CONFIG_[A-Z0-9_]+=' "$frag"); do
		grep -qx "$l" "$obj/.config" || miss="$miss $l"
	done
	if [ -n "$miss" ]; then
		echo "fragment lines Kconfig dropped:$miss" >>"$obj.log"
		return 2
	fi
	make -C "$src" O="$obj" -s ARCH="$arch" CROSS_COMPILE="$cross" CC="$(perpatch_cc "$cross")" \
		HOSTCC=gcc -j"${MMLOCK_JOBS:-2}" "$target" >>"$obj.log" 2>&1 &
	build_progress $! "$obj" "$PERPATCH_LABEL ($arch)"
}

# perpatch_missing PATCH ARCH OBJ: the .c files PATCH touches that ARCH
# compiles but OBJ has no object for
perpatch_missing() {
	local f

	for f in $(sed -n 's|^+++ b/\(.*\.c\)$|\1|p' "$1"); do
		case "$f" in
		arch/x86/*) [ "$2" = x86_64 ] || continue ;;
		arch/arm64/*) [ "$2" = arm64 ] || continue ;;
		arch/*) continue ;;
		esac
		[ -e "$3/${f%.c}.o" ] || echo "$f"
	done
}

perpatch_builds() {
	local src=$1 work=$2 archs=$3 p arch obj frag t w miss
	shift 3

	for p in "$@"; do
		git -C "$src" -c user.name=mmlock -c user.email=mmlock@localhost -c gc.auto=0 \
			am -q --whitespace=nowarn "$p" >/dev/null 2>&1 ||
			{ notok "$(basename "$p"): git am on its own"; return 1; }
		PERPATCH_LABEL=$(basename "$p")
		# a resumed run: the tree must hold the earlier patches, their builds were done before
		if [[ "$PERPATCH_LABEL" < "${PERPATCH_FROM:-0}" ]]; then
			skip "$PERPATCH_LABEL: builds on its own: not built in this run (--from $PERPATCH_FROM)"
			continue
		fi
		for arch in $archs; do
			obj=$work/obj-pp-$arch frag=$work/perpatch-$arch.fragment
			cat "$perpatch_here/config/perpatch.config" ${EXTRA_FRAGMENT:+"$EXTRA_FRAGMENT"} >"$frag"
			t=$SECONDS
			if ! perpatch_build "$src" "$obj" "$arch" "$frag"; then
				notok "$(basename "$p"): builds on its own ($arch)"
				grep -E 'error|warning|dropped' "$obj.log" | head -n 15 | sed 's/^/# /'
				tail -n 5 "$obj.log" | sed 's/^/# /'
				continue
			fi
			w=$(grep -c 'warning:' "$obj.log")
			miss=$(perpatch_missing "$p" "$arch" "$obj" | tr '\n' ' ')
			if [ "$w" -ne 0 ]; then
				notok "$(basename "$p"): builds on its own ($arch) with no compiler warning ($w)"
				grep -A3 'warning:' "$obj.log" | head -n 15 | sed 's/^/# /'
			elif [ -n "$miss" ]; then
				notok "$(basename "$p"): builds on its own ($arch), but config/perpatch.config compiles none of: $miss"
			else
				ok "$(basename "$p"): builds on its own ($arch, $((SECONDS - t))s)"
			fi
		done
	done
}
