# Fill swap beyond 95 %, read it back, free it: SwapFree must return to
# SwapTotal.  Up to 2 x 64 slots per CPU may sit in the per-CPU slots
# caches (allocation and return caches, SWAP_SLOTS_CACHE_SIZE = SWAP_BATCH),
# so that much slack is allowed; swapoff must then still succeed.
. /lib/swaplab.sh
swaptest fill -f 96 -k $((2 * 64 * $(nproc)))
if swapoff_all; then pass fill-swapoff "swapoff after fill succeeded"; else fail fill-swapoff "swapoff after fill failed"; fi
