# shellcheck shell=bash
# Tiny test harness: t_ok NAME / t_bad NAME WHY, then t_summary.
# The closing line is "N passed, N failed".
T_PASS=0 T_FAIL=0 T_SKIP=0 T_FAILED=""
# the tests commit in toy repositories: an identity where git has none (a
# fresh host, make shell's container), never in place of one it has
if ! git config user.email >/dev/null 2>&1; then
	export GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-swaplab tests} GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-swaplab-tests@localhost}
	export GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-swaplab tests} GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-swaplab-tests@localhost}
fi
t_ok() { T_PASS=$((T_PASS + 1)); printf '  ok    %s\n' "$1"; }
t_bad() {
	T_FAIL=$((T_FAIL + 1)); T_FAILED="$T_FAILED $1"
	printf '  FAIL  %s: %s\n' "$1" "$2"
}
# t_expect_rc NAME WANT CMD...: run CMD, compare its exit status
t_expect_rc() {
	local name=$1 want=$2 got out
	shift 2
	set +e
	out=$("$@" 2>&1)
	got=$?
	set -e
	if [ "$got" = "$want" ]; then
		t_ok "$name"
	else
		t_bad "$name" "exit $got, wanted $want; output: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
	fi
}
# t_output_has NAME PATTERN CMD...: CMD's output (any exit) matches PATTERN
t_output_has() {
	local name=$1 pat=$2 out
	shift 2
	set +e
	out=$("$@" 2>&1)
	set -e
	if printf '%s' "$out" | grep -qE -- "$pat"; then
		t_ok "$name"
	else
		t_bad "$name" "output lacks /$pat/: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
	fi
}
t_summary() {
	[ -z "$T_FAILED" ] || printf 'failed:%s\n' "$T_FAILED"
	[ "$T_SKIP" = 0 ] || printf '%d left to make test-full (this is the %s tier)\n' "$T_SKIP" "$T_TIER"
	printf '%d passed, %d failed\n' "$T_PASS" "$T_FAIL"
	[ "$T_FAIL" = 0 ]
}

# Tiers.  make test (what CI runs; cold within 45 minutes on 2 cores) boots
# the kernels of stage 01 and lab 01 (lab 01's start, broken variants and
# alternatives; the student edition grades the same start) and runs every
# host-only check of every lab; make test-full
# (SWAPLAB_TEST_FULL=1) grades every stage and every lab.  T_LABS lists
# the labs (and stages) whose kernels this tier builds and boots
# ("all": every one).  SWAPLAB_TEST_LABS="04 06" (developers: the labs a
# change touches, before the full tier) boots those labs and stages only.
if [ -n "${SWAPLAB_TEST_LABS:-}" ]; then
	case "$SWAPLAB_TEST_LABS" in *[!0-9\ ]*) echo "SWAPLAB_TEST_LABS: two-digit labs separated by spaces, got '$SWAPLAB_TEST_LABS'" >&2; exit 2 ;; esac
	T_TIER="labs $SWAPLAB_TEST_LABS"
	T_LABS=$SWAPLAB_TEST_LABS
elif [ "${SWAPLAB_TEST_FULL:-0}" = 1 ]; then
	T_TIER=full
	T_LABS=all
else
	T_TIER=quick
	T_LABS=01
fi
# t_tier_full: this tier runs the "Tier: full" items of the labs it boots
# (make test-full, or SWAPLAB_TEST_LABS)
t_tier_full() { [ "$T_TIER" = full ] || [ "${T_TIER#labs }" != "$T_TIER" ]; }
# t_tier_has NN: this tier boots lab (or stage) NN
t_tier_has() { case " $T_LABS " in *" all "* | *" $1 "*) return 0 ;; esac; return 1; }
# t_tier_skip WHAT: say that this tier leaves WHAT to make test-full
t_tier_skip() { T_SKIP=$((T_SKIP + 1)); printf '  skip  %s (make test-full)\n' "$1"; }
