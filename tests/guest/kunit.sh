# White-box KUnit suites of the grading build (grader/kunit): for each lab
# number given, run its suite through /sys/kernel/debug/swaplab/kunit and
# turn its KTAP results into one result per test case, named
# kunit-NN.CASE, with the first failed expectation's message.
. /lib/swaplab.sh
run=/sys/kernel/debug/swaplab/kunit
[ -e "$run" ] || { fail kunit "this kernel has no swaplab test runner (not a grading build)"; exit 1; }
for lab in "$@"; do
	if ! echo "$lab" >"$run"; then
		fail "kunit-$lab" "the kernel has no suite for lab $lab"
		continue
	fi
	res=/sys/kernel/debug/kunit/swaplab-lab$lab/results
	[ -r "$res" ] || { fail "kunit-$lab" "suite swaplab-lab$lab left no results"; continue; }
	cat "$res"
	cases=0
	# "    ok 1 case" / "    not ok 2 case" after the case's log lines;
	# a failed expectation's message (they all start "labNN: ") is the why
	awk '
	/^ +# Subtest:/ { next }
	/^ *lab[0-9]+: / { if (why == "") { why = $0; sub(/^ +/, "", why) } next }
	/^ +(not )?ok [0-9]+ / {
		ok = $1 == "ok"; name = ok ? $3 : $4
		print (ok ? "PASS" : "FAIL"), name, (ok ? "" : (why != "" ? why : "failed (see the KTAP log above)"))
		why = ""
	}' "$res" >/tmp/kunit.$lab
	while read -r v name why; do
		cases=$((cases + 1))
		if [ "$v" = PASS ]; then pass "kunit-$lab.${name#lab$lab\_}" ok; else fail "kunit-$lab.${name#lab$lab\_}" "$why"; fi
	done </tmp/kunit.$lab
	[ "$cases" -gt 0 ] || fail "kunit-$lab" "no test case results in $res"
done
