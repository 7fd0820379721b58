# Pure swap-in path: MADV_PAGEOUT a fixed set, refault it on every vCPU.
. /lib/swaplab.sh
N=$(sed -n 's/.*swaplab.pages=\([0-9]*\).*/\1/p' /proc/cmdline)
swaptest pageout -n "${N:-20000}" -t "$(nproc)" -N refault
