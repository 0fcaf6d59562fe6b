"""What every rubric shares: input validation, the final assembly, the one-call judgment step, trace events, rounding, and text helpers."""
