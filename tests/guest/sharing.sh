# Swap entries with count > 1 (fork, copy-on-write), counts past
# SWAP_MAP_MAX (continuation pages: 64 entries shared by 71 processes),
# and shmem pages.
. /lib/swaplab.sh
swaptest fork -n 16384
swaptest manyfork -n 64 -c 70
swaptest shmem -n 16384
