# Guest helpers for test scripts (busybox sh).  Sourced by /init and tests.

# pass NAME WHY / fail NAME WHY: a nonce-tagged result line
pass() { n=$1; shift; echo "SWAPLAB $SWAPLAB_NONCE RESULT $n PASS $*"; }
fail() { n=$1; shift; echo "SWAPLAB $SWAPLAB_NONCE RESULT $n FAIL $*"; }
metric() { echo "SWAPLAB $SWAPLAB_NONCE METRIC $1 $2"; }

meminfo() { sed -n "s/^$1: *\([0-9]*\).*/\1/p" /proc/meminfo; }

# swap_setup MODE: pmem (one pmem device), rot (same, marked rotational so
# the kernel keeps no cluster_info), two (pmem0 + pmem1, equal priority),
# none.
swap_setup() {
	case "$1" in
	none) return 0 ;;
	pmem|rot) devs=/dev/pmem0 ;;
	two) devs="/dev/pmem0 /dev/pmem1" ;;
	*) echo "swap_setup: unknown mode $1"; return 1 ;;
	esac
	for d in $devs; do
		[ -b "$d" ] || { echo "swap_setup: $d missing"; return 1; }
		b=${d#/dev/}
		[ "$1" = rot ] && echo 1 >/sys/block/$b/queue/rotational
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
