"""The benchmark's Python (bench/): not part of the grader.

  report -- bench/bench's report (bench/bench-report): the runs' results
            read with the grader core's results parser, as a table
  model  -- the contention model and its chart (bench/bench-model)

It reads the grader core (grader/swaplab), never the other way round.
Standard library only.
"""
