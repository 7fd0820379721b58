# shellcheck shell=bash
# Common definitions for swaplab scripts.  Source it; do not run it.
#
# Paths (each overridable from the environment):
#   SWAPLAB_ROOT   the checkout
#   SWAPLAB_WORK   git-ignored work dir holding the kernel work repository
#   SWAPLAB_CACHE  build caches kept outside the checkout
#   LINUX_REPO     the kernel work repository (pristine + stage tags)

SWAPLAB_ROOT=${SWAPLAB_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
SWAPLAB_WORK=${SWAPLAB_WORK:-$SWAPLAB_ROOT/work}
SWAPLAB_CACHE=${SWAPLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/swaplab}
# the cache by its real path: kernel builds record absolute paths (objtool's
# dependencies, ccache's preprocessed input), so a cache reached through a
# symbolic link must be named the same way every time
if [ -d "$SWAPLAB_CACHE" ]; then SWAPLAB_CACHE=$(cd "$SWAPLAB_CACHE" && pwd -P); fi
LINUX_REPO=${LINUX_REPO:-$SWAPLAB_WORK/linux}
LINUX_TARBALL=${LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
LINUX_PKG=${LINUX_PKG:-linux-source-6.1}
SERIES=${SERIES:-$SWAPLAB_ROOT/solutions/series}
export SWAPLAB_ROOT SWAPLAB_WORK SWAPLAB_CACHE LINUX_REPO
# no byte code beside the kit's modules: a checkout (and the student
# edition made from it) holds only what git holds (found in make shell's
# container, whose environment, unlike the test machine's, did not set it)
export PYTHONDONTWRITEBYTECODE=1

# Fixed identity and dates make every commit in the work repository
# reproducible: the same tree and series give the same stage hashes in
# every clone, so cache keys survive a fresh checkout.
export GIT_AUTHOR_NAME="swaplab" GIT_AUTHOR_EMAIL="swaplab@localhost"
export GIT_COMMITTER_NAME="swaplab" GIT_COMMITTER_EMAIL="swaplab@localhost"
export GIT_AUTHOR_DATE="2016-10-20T16:31:39Z" GIT_COMMITTER_DATE="2016-10-20T16:31:39Z"

if [ -t 2 ]; then
	_c_red=$'\e[31m' _c_grn=$'\e[32m' _c_dim=$'\e[2m' _c_off=$'\e[0m'
else
	_c_red='' _c_grn='' _c_dim='' _c_off=''
fi

info() { printf '%s==>%s %s\n' "$_c_grn" "$_c_off" "$*" >&2; }
note() { printf '%s    %s%s\n' "$_c_dim" "$*" "$_c_off" >&2; }
warn() { printf '%swarning:%s %s\n' "$_c_red" "$_c_off" "$*" >&2; }
die() { printf '%serror:%s %s\n' "$_c_red" "$_c_off" "$*" >&2; exit "${DIE_STATUS:-1}"; }

# now_s: seconds since the epoch with two decimals
now_s() { date +%s.%N | cut -c1-13; }
# elapsed START: seconds since START, one decimal
elapsed() { awk -v a="$1" -v b="$(now_s)" 'BEGIN { printf "%.1f", b - a }'; }

# sandbox_as: the address space of each sandboxed build process, bytes
# (SWAPLAB_SANDBOX_AS; 0: none).  1 GiB: the largest process of a build
# peaks at 234 MiB (VmPeak over cold fast, debug and gdb builds: cc1 206
# MiB on kernel/events/core.c with DWARF, ld of vmlinux 162 MiB, nm of
# vmlinux 234 MiB), and a whole gdb-config build passes under the cap
sandbox_as() { echo "${SWAPLAB_SANDBOX_AS:-1073741824}"; }
# jobs for make: all host cores (SWAPLAB_JOBS=N overrides), and never more
# than SWAPLAB_MEM_SHARE (0.5) of RAM divided by sandbox_as: the build's
# memory ceiling where no cgroup v2 scope holds the grade (memcap.py)
njobs() {
	local n as mem cap
	n=${SWAPLAB_JOBS:-$(nproc 2>/dev/null || echo 2)}
	as=$(sandbox_as)
	mem=$(awk '$1 == "MemTotal:" { print $2 * 1024 }' /proc/meminfo 2>/dev/null || true)
	if [ "$as" -gt 0 ] && [ -n "$mem" ]; then
		# (less 2 GiB: the policy on what the compiler reads runs beside a
		# graded build, its gcc -E under the same cap, then its parse
		# under 2 GiB, scripts/cpp-policy)
		cap=$(awk -v m="$mem" -v s="${SWAPLAB_MEM_SHARE:-0.5}" -v a="$as" \
			'BEGIN { c = int((m * s - 2 * 1024 ^ 3) / a); print (c < 1 ? 1 : c) }')
		[ "$n" -le "$cap" ] || n=$cap
	fi
	echo "$n"
}

# stage_ref NN: the git ref of reference stage NN in the work repository
stage_ref() {
	case "$1" in
	[0-9][0-9]) echo "stage-$1" ;;
	*) die "STAGE must be two digits (00..06), got '$1'" ;;
	esac
}

# series_patches: the patch names in solutions/series, in order (none
# when the file does not exist yet)
series_patches() {
	[ -f "$SERIES" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$SERIES"
}

# allowlist_paths [LAB]: the files a lab submission may change
# (grader/allowlist: LABS, tab, path), for lab LAB or for any lab, one per line
allowlist_paths() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SWAPLAB_ROOT/grader/allowlist" | awk -F'\t' -v lab="${1:-}" '
	function inlabs(l, s,   a, n) {
		if (s == "all" || l == "") return 1
		if (index(s, "-")) { split(s, a, "-"); n = l + 0; return n >= a[1] + 0 && n <= a[2] + 0 }
		return l + 0 == s + 0
	}
	inlabs(lab, $1) && !seen[$2]++ { print $2 }'
}

# exit_codes: vm/run's exit codes as shell variables, RUN_PASS=0,
# RUN_TEST_FAILED=1, RUN_KERNEL_ERROR=2, RUN_TIMEOUT=3, RUN_SETUP_FAILED=4,
# ... from vm/exit-codes, the one list.  Not read when this file is
# sourced (the container's build copies scripts/lib.sh without vm/): the
# scripts that compare vm/run's exit status call it
exit_codes() { read_exit_codes "$SWAPLAB_ROOT/vm/exit-codes"; }
# read_exit_codes FILE: a variable for each "NAME NUMBER" line of FILE (#
# starts a comment); dies naming a malformed or repeated line
read_exit_codes() {
	local f=$1 line name num rest n=0 seen=" "
	[ -f "$f" ] || die "no exit codes at $f"
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		read -r name num rest <<<"${line%%#*}"
		[ -n "$name" ] || continue
		if ! [[ $name =~ ^RUN_[A-Z0-9_]+$ && $num =~ ^(0|[1-9][0-9]{0,2})$ && -z $rest ]] ||
			[ "$num" -gt 255 ] || [ "${seen#* "$name" }" != "$seen" ]; then
			die "$f:$n: want \"RUN_NAME NUMBER  # meaning\" (0..255, each name once), got '$line'"
		fi
		seen="$seen$name "
		printf -v "$name" '%s' "$num"
	done <"$f"
}

require_repo() {
	[ -d "$LINUX_REPO/.git" ] ||
		die "no kernel work repository at $LINUX_REPO; run 'make setup' first"
}
