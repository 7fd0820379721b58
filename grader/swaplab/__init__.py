"""swaplab grader core.

The parts, kept apart as in the kernel's own kunit.py:
  checks   -- the check table (grader/checks.tsv) and which checks a grade runs
  logs     -- parsers: console logs (nonce-tagged lines, kernel errors, SysRq
              stacks), build logs, KTAP (with the kernel tree's kunit_parser)
  verdict  -- Record, and the one place where a check's verdict is decided
  report   -- the table, the failure excerpt, JSON / JUnit / Gradescope
  run      -- builds and guest boots (the bash/expect plumbing does the work)
  exitcodes -- vm/run's exit codes by name (vm/exit-codes, the one list)
  intake   -- what a grade grades: bounds, hygiene, the commit to grade (resolve)
  pipeline -- one grade: its checks in order, their records, the reports
  grade    -- the command line of grader/grade (nothing imports it)
Standard library only.
"""
