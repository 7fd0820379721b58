# swapoff while pages are out: every byte must come back into memory.
. /lib/swaplab.sh
hold_start 20000
used=$(awk '$1 == "/dev/pmem0" { print $4 }' /proc/swaps)
if swapoff /dev/pmem0; then
	pass swapoff-busy "swapoff with ${used} kB in use succeeded"
else
	fail swapoff-busy "swapoff with ${used} kB in use failed"
fi
hold_end
# repeated swapon/swapoff
ok=1
for i in 1 2 3; do
	swaptest swapon /dev/pmem0 10 || ok=0
	swaptest pageout -n 4096 -t "$(nproc)" -N "cycle-$i" || ok=0
	swapoff /dev/pmem0 || ok=0
done
[ "$ok" = 1 ] && pass swapon-cycles "3 swapon/pageout/swapoff cycles" || fail swapon-cycles "a swapon/swapoff cycle failed"
