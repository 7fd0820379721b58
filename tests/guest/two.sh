# Two swap devices of equal priority: both must take pages, every byte back.
. /lib/swaplab.sh
n=$(grep -c '^/dev/pmem' /proc/swaps)
[ "$n" = 2 ] || { fail two-devices "expected 2 swap devices, found $n"; exit 1; }
hold_start 20000
u0=$(awk '$1 == "/dev/pmem0" { print $4 }' /proc/swaps)
u1=$(awk '$1 == "/dev/pmem1" { print $4 }' /proc/swaps)
hold_end
if [ "${u0:-0}" -gt 0 ] && [ "${u1:-0}" -gt 0 ]; then
	pass two-devices "both devices used: pmem0 ${u0} kB, pmem1 ${u1} kB"
else
	fail two-devices "equal-priority devices not both used: pmem0 ${u0:-0} kB, pmem1 ${u1:-0} kB"
fi
swaptest pageout -n 16384 -t "$(nproc)" -N two-pageout
