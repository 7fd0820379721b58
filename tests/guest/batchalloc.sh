# Lab 04's lock fingerprint (debug kernel, grading build, two devices):
# clear /proc/lock_stat, allocate N swap slots through lab 04's API,
# get_swap_pages(SWAP_BATCH, ...) called until N are taken
# (/sys/kernel/debug/swaplab/batch), and count the swap device locks'
# acquisitions.  A batched allocation takes a device's lock about once
# per call (N / 64 calls); the bound allows four times that, far below
# the one take per slot of a get_swap_pages() that serves one slot per
# call, and below a batch that stops every few slots.
. /lib/swaplab.sh
N=${1:-512}
batch=/sys/kernel/debug/swaplab/batch
[ -r /proc/lock_stat ] || { fail batch-alloc "no /proc/lock_stat (not a LOCK_STAT kernel)"; exit 1; }
[ -e "$batch" ] || { fail batch-alloc "no $batch (not a lab 04 grading build)"; exit 1; }
cls=$(si_lock_class) || { fail batch-alloc "could not identify the swap device lock class in /proc/lockdep"; exit 1; }
echo 0 >/proc/lock_stat
echo "$N" >"$batch" || { fail batch-alloc "could not allocate $N slots"; exit 1; }
acq=$(lock_acq "$cls")
echo free >"$batch" || { fail batch-alloc "could not give the $N slots back"; exit 1; }
metric batch_slots "$N"
metric batch_alloc_si_lock_acq "$acq"
bound=$((N * 4 / 64))
if [ "$acq" -ge 1 ] && [ "$acq" -le "$bound" ]; then
	pass batch-alloc "allocating $N slots in batches of 64 took si->lock $acq times"
elif [ "$acq" -ge $((N / 2)) ]; then
	fail batch-alloc "allocating $N slots in batches of 64 took si->lock $acq times, about once per slot: get_swap_pages() serves one slot per call (bound: $bound)"
else
	fail batch-alloc "allocating $N slots in batches of 64 took si->lock $acq times: batches stop early or drop si->lock mid-batch (bound: $bound)"
fi
