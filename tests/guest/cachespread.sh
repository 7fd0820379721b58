# Lab 02's observable, black-box: how the swap cache is spread (fast
# kernel, pmem).  swaptest cachespread swaps N private pages out, forks,
# and reads them all in the child: each shared entry (count 2) is swapped
# in through the swap cache and stays cached while the parent maps it.
# With them cached it prints the grading build's
# /sys/kernel/debug/swaplab/swapcache: per device, its 64 MB trunks, the
# distinct address_spaces serving them, pages cached in all and in the
# fullest.  Split per trunk, the fullest holds at most one trunk's worth
# (N spans several trunks); unsplit, one address_space holds them all and
# its xa_lock serializes every swap-cache insert, lookup and delete.
. /lib/swaplab.sh
N=${1:-32768}
BOUND=${2:-75}
swaptest cachespread -n "$N" | tee /tmp/spread.out
set -- $(awk '$1 == "SWAPCACHE" && $2 == "type" && $9 > 0 { print $5, $7, $9, $11; exit }' /tmp/spread.out)
[ $# = 4 ] || { fail swapcache-spread "no swap-cache reading (is this a lab 02 grading build?)"; exit 1; }
trunks=$1 spaces=$2 cached=$3 fullest=$4
metric swapcache_pages "$N"
metric swapcache_trunks "$trunks"
metric swapcache_cached "$cached"
metric swapcache_spaces "$spaces"
metric swapcache_fullest_pct $((fullest * 100 / cached))
if [ "$cached" -lt $((N / 2)) ]; then
	fail swapcache-spread "only $cached of $N pages were in the swap cache when it was read"
elif [ $((fullest * 100)) -le $((cached * BOUND)) ]; then
	pass swapcache-spread "$cached swap-cache pages over $spaces address_spaces ($trunks trunks): the fullest holds $((fullest * 100 / cached))% (bound $BOUND%)"
else
	fail swapcache-spread "$cached swap-cache pages, $((fullest * 100 / cached))% of them in one address_space ($spaces for $trunks trunks of 64 MB): the swap cache is not split per trunk, so one xa_lock serves every swap-cache operation (bound $BOUND%)"
fi
