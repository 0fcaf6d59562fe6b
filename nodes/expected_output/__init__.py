"""The `expected_output` rubric (seed 001): config checks, exact match, the judge and the typed result."""
