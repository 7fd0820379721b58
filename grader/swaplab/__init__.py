"""swaplab grader core.

The parts, kept apart as in the kernel's own kunit.py:
  labs     -- the lab table (labs/NN-*/: the labs, the previous lab, the
              messages), the kit's root and grader/allowlist's one parser;
              bottom layer, as scripts/lib.sh's lab_* functions are for bash
  tsv      -- the one reader of the kit's tables, loud on a bad line; bottom layer
  checks   -- the check table (grader/checks.tsv) and which checks a grade runs
  logs     -- parsers: console logs (nonce-tagged lines, kernel errors, SysRq
              stacks), build logs, KTAP (with the kernel tree's kunit_parser)
  record   -- Record: a check's verdict, reason, excerpt, logs and figures
  verdict  -- the one place where a check's verdict is decided
  report   -- the table, the failure excerpt, JSON / JUnit / Gradescope
  procs    -- the grade's processes: started in sessions, all stopped at
              its end (a child subreaper); its progress lines
  kernels  -- kernel builds: the graded kernel's, the reference stages'
  run      -- guest boots: checks grouped into boots, their time limits, the
              hang rules (the bash/expect plumbing does the work)
  exitcodes -- vm/run's exit codes by name (vm/exit-codes, the one list)
  intake   -- what a grade grades: bounds, hygiene, the commit to grade
              (resolve), and what its score depends on (context)
  pipeline -- one grade: its checks in order, their records, the reports
  grade    -- the command line of grader/grade (nothing imports it)
Standard library only.
"""
