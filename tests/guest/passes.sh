# Test of the runner: a check that passes.
. /lib/swaplab.sh
pass passes "this one passes"
