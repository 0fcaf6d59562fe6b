"""What every rubric shares: the rubric declaration type, input validation, the final assembly, the one-call judgment step, trace events, rounding, text helpers, and reading a run's details."""
