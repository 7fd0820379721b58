# Lab 05's lock fingerprint (debug kernel, grading build, two devices):
# allocate N swap slots, clear /proc/lock_stat, free them all in one
# swapcache_free_entries() call with the devices interleaved
# (/sys/kernel/debug/swaplab/batch), and count the swap device locks'
# acquisitions.  A batched free takes each device's lock once (sorting by
# device first); the bound allows one take per SWAP_BATCH (64) slots, far
# below the one take per slot of an unbatched or unsorted free.
. /lib/swaplab.sh
N=${1:-512}
batch=/sys/kernel/debug/swaplab/batch
[ -r /proc/lock_stat ] || { fail batch-free "no /proc/lock_stat (not a LOCK_STAT kernel)"; exit 1; }
[ -e "$batch" ] || { fail batch-free "no $batch (not a lab 05 grading build)"; exit 1; }
cls=$(si_lock_class) || { fail batch-free "could not identify the swap device lock class in /proc/lockdep"; exit 1; }
used0=$(awk 'NR > 1 { print $1, $4 }' /proc/swaps)
echo "$N" >"$batch" || { fail batch-free "could not allocate $N slots"; exit 1; }
# the devices the batch's slots lie on (their Used grew): each one's lock
# must be taken to free them (grader/plausible.tsv)
devs=$( (echo "$used0"; awk 'NR > 1 { print $1, $4 }' /proc/swaps) |
	awk '$1 in u { if ($2 > u[$1]) n++; next } { u[$1] = $2 } END { print n + 0 }')
echo 0 >/proc/lock_stat
echo free >"$batch" || { fail batch-free "the batch free failed"; exit 1; }
acq=$(lock_acq "$cls")
metric batch_slots "$N"
metric batch_devices "$devs"
metric batch_free_si_lock_acq "$acq"
if [ "$acq" -ge 1 ] && [ $((acq * 64)) -le "$N" ]; then
	pass batch-free "freeing $N slots in one batch took si->lock $acq times"
elif [ "$acq" -ge "$N" ]; then
	# the slots come with the devices interleaved entry by entry: a walk
	# without the sort switches device on every one, as no batching does
	fail batch-free "freeing $N slots in one batch took si->lock $acq times, once per slot: no batching, or a walk that does not sort by device first (the test interleaves the devices entry by entry) (bound: $((N / 64)))"
else
	fail batch-free "freeing $N slots in one batch took si->lock $acq times: take each device's lock once per batch, not once per run of slots (bound: $((N / 64)))"
fi
