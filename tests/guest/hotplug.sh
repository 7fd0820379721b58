# CPU offline/online while swapping: per-CPU swap state (the slots caches
# from lab 06 on) must be drained and rebuilt without losing a slot or a byte.
. /lib/swaplab.sh
cpu=/sys/devices/system/cpu/cpu1/online
[ -w "$cpu" ] || { fail hotplug "cpu1 cannot be offlined (need 2+ vCPUs)"; exit 1; }
swaptest pageout -n 16384 -t 2 -r 3 -N hotplug-pageout >/tmp/po.out &
pid=$!
n=0
while kill -0 "$pid" 2>/dev/null; do
	echo 0 >"$cpu" && echo 1 >"$cpu" || { fail hotplug "cpu1 offline/online failed"; break; }
	n=$((n + 1))
	sleep 1
done
wait "$pid"
cat /tmp/po.out
total=$(meminfo SwapTotal); free=$(meminfo SwapFree)
# pages are unmapped at exit: everything but the per-CPU caches is free
slack=$((2 * 64 * $(nproc) * 4))
if [ $((free + slack)) -ge "$total" ] && [ "$n" -gt 0 ]; then
	pass hotplug "$n offline/online cycles while swapping; SwapFree $free of $total kB"
else
	fail hotplug "after $n hotplug cycles SwapFree is $free kB of $total kB (slots lost?)"
fi
