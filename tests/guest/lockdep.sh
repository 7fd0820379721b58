# Lockdep coverage on the debug kernel: the swap paths that take the swap
# device, cluster and swap-cache locks, each briefly: page-out and refault
# (allocation, free, swap-in, readahead), fork (swap_duplicate, shared
# entries), shmem, and swapoff with pages out (try_to_unuse).  Any lockdep,
# BUG or WARNING splat on the console fails the check (vm/run watches).
. /lib/swaplab.sh
swaptest pageout -n 4096 -t "$(nproc)" -N lockdep-pageout
swaptest fork -n 4096
swaptest shmem -n 4096
hold_start 4096
if swapoff_all; then pass lockdep-swapoff "swapoff with pages out"; else fail lockdep-swapoff "swapoff failed"; fi
hold_end
# a kernel that turns lockdep off (debug_locks_off()) would pass this check
# and the lock fingerprint unchecked: lockdep must still be validating
if debug_locks_on; then pass lockdep-on "lockdep still validating (debug_locks 1)"; else
	fail lockdep-on "lockdep was turned off (debug_locks 0): nothing it checks can be trusted"; fi
