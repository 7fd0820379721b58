# Guest smoke test: 4x the 64 MB swap-cache trunk swapped out with
# MADV_PAGEOUT, faulted back on 2 threads, every byte verified; then swapoff.
. /lib/swaplab.sh
swaptest pageout -n 65536 -t 2 -N smoke-pageout
if swapoff_all; then
	pass swapoff "swapoff succeeded, $(meminfo SwapTotal) kB swap left"
else
	fail swapoff "swapoff failed"
fi
