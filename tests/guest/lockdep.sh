# Lockdep coverage on the debug kernel: the swap paths that take the swap
# device, cluster and swap-cache locks, each briefly: page-out and refault
# (allocation, free, swap-in, readahead), fork (swap_duplicate, shared
# entries, counts past SWAP_MAP_MAX in continuation pages), shmem, shmem
# readahead over freed slots, fork-shared pages held in the swap cache,
# and swapoff with pages out (try_to_unuse).  Any lockdep, BUG or WARNING
# splat on the console fails the check (vm/run watches).
. /lib/swaplab.sh
swaptest pageout -n 4096 -t "$(nproc)" -N lockdep-pageout
swaptest fork -n 4096
swaptest manyfork -n 16 -c 70
swaptest shmem -n 4096
# shmem readahead over freed slots (lab 03's skip) and pages held in the
# swap cache across trunks (lab 02's split), on this kernel's locks
swaptest rafree -n 1024
[ -e /sys/kernel/debug/swaplab/swapcache ] && swaptest cachespread -n 4096
# every white-box suite of the grading build, once, under lockdep,
# DEBUG_VM and DEBUG_ATOMIC_SLEEP: before lab 06 nothing else calls lab
# 04's batch allocation (or lab 05's batch free).  Their verdicts are the
# fast kernel's (kunit-NN); here only a splat counts (vm/run watches).
# With swap on: they allocate and free slots on this kernel's device.
run=/sys/kernel/debug/swaplab/kunit
if [ -e "$run" ]; then
	n=0
	for lab in 1 2 3 4 5 6; do
		step "KUnit suite swaplab-lab0$lab under lockdep"
		echo "$lab" >"$run" 2>/dev/null && n=$((n + 1))
	done
	pass lockdep-kunit "$n white-box suites ran under lockdep"
fi
hold_start 4096
if swapoff_all; then pass lockdep-swapoff "swapoff with pages out"; else fail lockdep-swapoff "swapoff failed"; fi
hold_end
# a kernel that turns lockdep off (debug_locks_off()) would pass this check
# and the lock fingerprint unchecked: lockdep must still be validating
if debug_locks_on; then pass lockdep-on "lockdep still validating (debug_locks 1)"; else
	fail lockdep-on "lockdep was turned off (debug_locks 0): nothing it checks can be trusted"; fi
