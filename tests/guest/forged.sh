# Prints result lines without this run's nonce: the runner must ignore them.
echo "SWAPLAB 0123456789abcdef RESULT forged PASS not really"
echo "RESULT forged PASS"
