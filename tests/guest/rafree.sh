# Lab 03's observable, black-box: readahead over free slots (fast kernel,
# pmem).  swaptest rafree swaps N shmem pages out, frees every other
# one's slot and reads the rest back in order; shmem swap-in goes through
# the swap cache and readahead even on pmem, so each readahead window
# holds free slots.  A kernel that allocates a page before it sees that a
# slot is unused makes about one page allocation per free slot in the
# windows, for nothing; one with lab 03's skip makes about none.  The
# metric is page allocations beyond the pages read from swap, per page
# read (/proc/vmstat pgalloc_* and pswpin).
. /lib/swaplab.sh
N=${1:-4096}
BOUND=${2:-0.25}
# the pages read back (every other one): pswpin cannot count more
# (grader/plausible.tsv)
metric ra_pages_touched $(((N + 1) / 2))
swaptest rafree -n "$N" | tee /tmp/rafree.out
x=$(awk '$3 == "METRIC" && $4 == "ra_extra_allocs_per_page" { print $5 }' /tmp/rafree.out)
[ -n "$x" ] || { fail ra-free-slots "no measurement (see swaptest rafree above)"; exit 1; }
if awk -v x="$x" -v b="$BOUND" 'BEGIN { exit !(x <= b) }'; then
	pass ra-free-slots "readahead over free slots: $x extra page allocations per page read (bound $BOUND)"
else
	fail ra-free-slots "readahead allocated $x extra pages per page read (bound $BOUND): a page is allocated for a slot nobody uses before the slot is checked"
fi
