# Multi-threaded MADV_PAGEOUT then refault with per-page checksums, 2 rounds.
. /lib/swaplab.sh
swaptest pageout -n 32768 -t "$(nproc)" -r 2 -N pageout
