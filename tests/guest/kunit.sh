# White-box KUnit suites of the grading build (grader/kunit): for each lab
# number given, run its suite through /sys/kernel/debug/swaplab/kunit and
# turn its KTAP output into one result per test case, named
# kunit-NN.CASE, with the first failed expectation's message.  The KTAP
# comes from the kernel log: debugfs keeps only 512 bytes of each case.
. /lib/swaplab.sh
run=/sys/kernel/debug/swaplab/kunit
[ -e "$run" ] || { fail kunit "this kernel has no swaplab test runner (not a grading build)"; exit 1; }
for lab in "$@"; do
	if ! echo "$lab" >"$run"; then
		fail "kunit-$lab" "the kernel has no suite for lab $lab"
		continue
	fi
	dmesg | sed 's/^\[[^]]*\] //' | awk -v s="swaplab-lab$lab" '
	$0 ~ "# Subtest: " s "$" { on = 1 }
	on { print }
	on && $0 ~ "^(not )?ok [0-9]+ " s "$" { exit }' >/tmp/ktap.$lab
	# "    ok 1 case" / "    not ok 2 case" after the case's log lines;
	# a failed expectation's message (they all start "labNN: ") is the why
	awk '
	/^ *lab[0-9]+: / { if (why == "") { why = $0; sub(/^ +/, "", why) } next }
	/^ +(not )?ok [0-9]+ / {
		ok = $1 == "ok"; name = ok ? $3 : $4
		print (ok ? "PASS" : "FAIL"), name, (ok ? "" : (why != "" ? why : "failed (see the KTAP log above)"))
		why = ""
	}' /tmp/ktap.$lab >/tmp/kunit.$lab
	cases=0
	while read -r v name why; do
		cases=$((cases + 1))
		if [ "$v" = PASS ]; then pass "kunit-$lab.${name#lab$lab\_}" ok; else fail "kunit-$lab.${name#lab$lab\_}" "$why"; fi
	done </tmp/kunit.$lab
	[ "$cases" -gt 0 ] || fail "kunit-$lab" "no KTAP results for suite swaplab-lab$lab in the kernel log"
done
