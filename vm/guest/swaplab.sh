# Guest helpers for test scripts (busybox sh).  Sourced by /init and tests.

# the run's nonce (/init keeps it in a root-only file, not in the
# environment); a shell variable of each script that sources this file
SWAPLAB_NONCE=$(cat /tmp/.swaplab-nonce 2>/dev/null)

# pass NAME WHY / fail NAME WHY: a nonce-tagged result line
pass() { n=$1; shift; echo "SWAPLAB $SWAPLAB_NONCE RESULT $n PASS $*"; }
fail() { n=$1; shift; echo "SWAPLAB $SWAPLAB_NONCE RESULT $n FAIL $*"; }
metric() { echo "SWAPLAB $SWAPLAB_NONCE METRIC $1 $2"; }

# step WHAT: a nonce-tagged note of what the test is doing now, with the
# guest's uptime ("STEP 12.34 WHAT"); after a timeout the grader names the
# last step, and steps the grader knows (swapon, swapoff) have a time limit
# of their own (grader/limits.tsv).  On stderr, so that a helper whose
# stdout goes to a file (hold_start) still reaches the console.
step() { [ -z "$SWAPLAB_NONCE" ] || echo "SWAPLAB $SWAPLAB_NONCE STEP $(cut -d' ' -f1 /proc/uptime) $*" >&2; }
# the workload and swapoff, wrapped: every call is a step, and its return
# ends it (a "done:" step with no limit), so that a step's limit never
# covers the work after it
swaptest() { step "swaptest $*"; command swaptest "$@"; _st=$?; step "done: swaptest $1"; return $_st; }
swapoff() { step "swapoff $*"; command swapoff "$@"; _st=$?; step "done: swapoff $*"; return $_st; }

meminfo() { sed -n "s/^$1: *\([0-9]*\).*/\1/p" /proc/meminfo; }

# swap_setup MODE: pmem (one pmem device), rot (same, marked rotational so
# the kernel keeps no cluster_info), two (pmem0 + pmem1, equal priority),
# mixed (pmem0 + pmem1, pmem1 rotational), none.
swap_setup() {
	case "$1" in
	none) return 0 ;;
	pmem|rot) devs=/dev/pmem0 ;;
	two|mixed) devs="/dev/pmem0 /dev/pmem1" ;;
	*) echo "swap_setup: unknown mode $1"; return 1 ;;
	esac
	for d in $devs; do
		[ -b "$d" ] || { echo "swap_setup: $d missing"; return 1; }
		b=${d#/dev/}
		# set both ways: a grouped run may follow a rot check with a pmem one
		case "$1:$b" in
		rot:*|mixed:pmem1) echo 1 >/sys/block/$b/queue/rotational ;;
		*) echo 0 >/sys/block/$b/queue/rotational ;;
		esac
		mkswap "$d" >/dev/null || return 1
		swaptest swapon "$d" 10 || return 1
	done
	echo "swap_setup: $1: $(grep -c '^/dev' /proc/swaps) device(s), $(meminfo SwapTotal) kB"
}

# swapoff_all: swapoff every active swap device (busybox's -a needs fstab)
swapoff_all() {
	for d in $(awk 'NR > 1 { print $1 }' /proc/swaps); do
		swapoff "$d" || return 1
	done
}

# si_lock_class: the lockdep class name of the swap device lock (si->lock):
# the "&p->lock*" class with a dependency on swap_avail_lock (taken under
# si->lock at swapon in every stage), so no guessing by name.  Lockdep may
# still be filling /proc/lockdep: retried for a few seconds.
# In a grading build the lock itself names its class: the overlay's
# /sys/kernel/debug/swaplab/si_lock_key prints si->lock's lockdep key as
# /proc/lockdep prints keys (so a renamed class is still found).
si_lock_class() {
	_key=$(cat /sys/kernel/debug/swaplab/si_lock_key 2>/dev/null)
	for _try in 1 2 3 4 5; do
		cat /proc/lockdep >/tmp/lockdep
		_cls=""
		if [ -n "$_key" ]; then
			_cls=$(awk -v k="$_key" '$1 == k && / FD: / { sub(/^.*: /, ""); print; exit }' /tmp/lockdep)
		fi
		# by its place in the lock order (si->lock, then swap_avail_lock):
		# where the kit cannot read the key, or (seen once in a full-tier
		# run, 2026-12-07) the key it read is not among the classes
		if [ -z "$_cls" ] && [ "$_try" -ge 3 ]; then
			_cls=$(awk '
			/^[0-9a-f]+ / && / FD: / { cls = $0; sub(/^.*: /, "", cls); next }
			/^ -> / && / swap_avail_lock$/ && cls ~ /^&p->lock/ { print cls; exit }
			' /tmp/lockdep)
			[ -z "$_cls" ] || [ -z "$_key" ] ||
				echo "si_lock_class: key $_key (swaplab/si_lock_key) is not in /proc/lockdep; class $_cls found by the lock order" >&2
		fi
		[ -n "$_cls" ] && { echo "$_cls"; return 0; }
		sleep 1
	done
	echo "si_lock_class: no class for key '${_key:-none}' in /proc/lockdep" >&2
	return 1
}

# debug_locks_on: lockdep is still validating (debug_locks 1): a kernel that
# turned it off would pass every lockdep check without being checked
debug_locks_on() {
	[ "$(awk '$1 == "debug_locks:" { print $2 }' /proc/lockdep_stats 2>/dev/null)" = 1 ]
}

# lock_acq CLASS: acquisitions of lockdep class CLASS in /proc/lock_stat
lock_acq() {
	awk -v c="$1" '{
		i = index($0, ": "); if (!i) next
		name = substr($0, 1, i - 1); sub(/^ +/, "", name)
		n = split(substr($0, i + 2), f, " ")
		if (n >= 12 && f[1] ~ /^[0-9]+$/ && name == c) a += f[8]
	} END { print a + 0 }' /proc/lock_stat
}

# hold_start PAGES: in the background, swap PAGES pages out and keep them
# out (swaptest hold) until hold_end; returns once they are out.
# hold_end: let the holder verify every page and print its result.
hold_start() {
	rm -f /tmp/go /tmp/hold.out
	mkfifo /tmp/go
	swaptest hold -n "$1" </tmp/go >/tmp/hold.out &
	_hold_pid=$!
	exec 3>/tmp/go
	while ! grep -q HOLDING /tmp/hold.out 2>/dev/null; do
		kill -0 "$_hold_pid" 2>/dev/null || break
		sleep 0.1
	done
}
hold_end() {
	echo go >&3
	exec 3>&-
	wait "$_hold_pid"
	cat /tmp/hold.out
}
