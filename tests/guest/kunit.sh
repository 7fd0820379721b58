# White-box KUnit suites of the grading build (grader/kunit): for each lab
# number given, run its suite through /sys/kernel/debug/swaplab/kunit.  The
# kernel prints the suite's KTAP on the console; the grader finds it after
# this script's nonce-tagged "KTAP-BEGIN NN" line and parses it with the
# kernel's own KTAP parser (tools/testing/kunit/kunit_parser.py), so the
# verdict of each case is decided on the host, not here.
. /lib/swaplab.sh
run=/sys/kernel/debug/swaplab/kunit
[ -e "$run" ] || { fail kunit "this kernel has no swaplab test runner (not a grading build)"; exit 1; }
for lab in "$@"; do
	echo "SWAPLAB $SWAPLAB_NONCE KTAP-BEGIN $lab"
	step "KUnit suite swaplab-lab$lab"
	if echo "$lab" >"$run"; then
		pass "kunit-$lab.run" "suite swaplab-lab$lab ran (its verdict is the KTAP's)"
	else
		fail "kunit-$lab" "the kernel has no suite for lab $lab"
	fi
done
