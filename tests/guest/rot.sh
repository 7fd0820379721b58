# The device is marked rotational before swapon: no cluster_info, so the
# si->lock fallback paths run.  Pageout/refault, then swapoff.
. /lib/swaplab.sh
r=$(cat /sys/block/pmem0/queue/rotational)
[ "$r" = 1 ] || { fail rotational "pmem0 is not rotational (got $r)"; exit 1; }
swaptest pageout -n 20000 -t "$(nproc)" -N rot-pageout
swapoff_all && pass rot-swapoff "swapoff on a rotational device" || fail rot-swapoff "swapoff failed"
