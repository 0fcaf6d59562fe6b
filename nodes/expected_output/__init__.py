"""The `expected_output` rubric (seed 001): exact match, the judge and the typed result (its config
checks belong to input validation: `schemas/expected_output_config.py`)."""
