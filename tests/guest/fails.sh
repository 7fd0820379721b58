. /lib/swaplab.sh
pass one "this one passes"
fail two "this one fails"
