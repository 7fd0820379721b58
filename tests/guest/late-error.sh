# Test of the runner: a kernel error report (here injected through
# /dev/kmsg) that the check outlives.  The check must still fail: results
# printed after the report do not count.
. /lib/swaplab.sh
echo "WARNING: CPU: 0 PID: 1 at swaplab/late-error.sh (injected by the runner's test)" >/dev/kmsg
pass late-error "printed after the kernel's report"
