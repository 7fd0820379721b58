# The runner's own test: a process that waits in the kernel forever (a
# vfork child that never execs), a hang the kernel does not report.  The
# check's timeout must name the step and, from SysRq w, the function.
. /lib/swaplab.sh
swaptest stuck
pass stuck "not reached"
