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

# env_defaults: NAME=VALUE, each ended by a NUL, of what the kit's
# plumbing expects in its environment (the exports above): the one
# definition of these defaults, which grader/swaplab/envdefaults.py sets
# for the Python entry points too (this file must not need Python:
# scripts/deps, which installs it, sources it)
env_defaults() {
	local v
	for v in SWAPLAB_ROOT SWAPLAB_WORK SWAPLAB_CACHE LINUX_REPO PYTHONDONTWRITEBYTECODE \
		GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE; do
		printf '%s=%s\0' "$v" "${!v}"
	done
}

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

# The lab table.  The labs are the folders labs/NN-*/ of the kit, 01 ..
# NN (a student edition holds fewer: scripts/author/student-kit cuts labs/ at
# its last lab); stage NN is lab NN's solution, stage 00 the baseline
# below lab 01, and lab NN starts from stage NN-1.  Every script asks
# these functions, never a range or an NN-1 of its own; the Python side
# asks grader/swaplab/labs.py, the same table with the same messages
# (tests/unit/test_labs.py compares the two).
# lab_numbers: the labs, two digits each, one a line, in order
lab_numbers() {
	local d n prev=""
	for d in "$SWAPLAB_ROOT"/labs/[0-9][0-9]-*/; do
		[ -d "$d" ] || continue
		d=${d%/}
		n=${d##*/}
		n=${n:0:2}
		[ "$n" = "$prev" ] || printf '%s\n' "$n"
		prev=$n
	done
}
# _span NUMBERS: NUMBERS (one a line) as a message names them: "01..06",
# "01" for one
_span() {
	local first=${1%%$'\n'*} last=${1##*$'\n'}
	if [ -z "$1" ]; then
		printf 'a lab of labs/NN-*/ (this kit has none)\n'
	elif [ "$first" = "$last" ]; then
		printf '%s\n' "$first"
	else
		printf '%s..%s\n' "$first" "$last"
	fi
}
# lab_span, stage_span: the labs ("01..06"), the stages ("00..06")
lab_span() { _span "$(lab_numbers)"; }
stage_span() { _span "$(printf '00\n'; lab_numbers)"; }
# lab_last: the last lab, whose stage is the whole series
lab_last() {
	local l
	l=$(lab_numbers)
	[ -n "$l" ] || die "no lab in $SWAPLAB_ROOT/labs (labs/NN-*/)"
	printf '%s\n' "${l##*$'\n'}"
}
# is_lab NN, is_stage NN: NN is a lab; a stage (00 or a lab's)
is_lab() {
	[[ ${1:-} =~ ^[0-9][0-9]$ ]] || return 1
	case $'\n'"$(lab_numbers)"$'\n' in *$'\n'"$1"$'\n'*) return 0 ;; esac
	return 1
}
is_stage() { [ "${1:-}" = 00 ] || is_lab "${1:-}"; }
# lab_check NN [NAME], stage_check NN [NAME]: die unless NN is a lab (a
# stage): "NAME must be 01..06, got 'NN'" (NAME: LAB, STAGE)
lab_check() { is_lab "${1:-}" || die "${2:-LAB} must be $(lab_span), got '${1:-nothing}'"; }
stage_check() { is_stage "${1:-}" || die "${2:-STAGE} must be $(stage_span), got '${1:-nothing}'"; }
# prev_lab NN [NAME]: the lab before lab NN, NN-1 as two digits: the
# stage lab NN starts from (lab_check NN NAME first)
prev_lab() {
	lab_check "${1:-}" "${2:-LAB}"
	printf '%02d\n' "$((10#$1 - 1))"
}

# stage_ref NN: the git ref of reference stage NN in the work repository
stage_ref() {
	stage_check "${1:-}" STAGE
	echo "stage-$1"
}

# series_patches: the patch names in solutions/series, in order (none
# when the file does not exist yet)
series_patches() {
	[ -f "$SERIES" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$SERIES"
}

# allowlist_paths [LAB]: the files a lab submission may change
# (grader/allowlist), for lab LAB or for any lab, one per line, in the
# order the file first names them: its one parser is Python's
# (grader/swaplab/labs.py), run from grader/ so that no folder of the
# caller's (a submission's checkout) can stand in for its modules
allowlist_paths() {
	(cd "$SWAPLAB_ROOT/grader" && python3 -m swaplab.labs allowlist ${1:+"$1"})
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
