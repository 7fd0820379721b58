# Swap entries with count > 1 (fork, copy-on-write) and shmem pages.
. /lib/swaplab.sh
swaptest fork -n 16384
swaptest shmem -n 16384
