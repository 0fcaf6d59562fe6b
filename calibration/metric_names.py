"""The calibrated metrics' names, for the command line.

Why its own module, and not a loop over `calibrated_metrics.CALIBRATED`: the command line lists
them in `calibrate --metric`'s choices, and building the parser (every `judgegraph --help`)
must not load pydantic, which the declarations' section classes are. A test keeps this tuple
equal to the declarations' keys, in order (tests/calibration/test_calibrated_metrics.py).
"""

CALIBRATED_METRICS = ("faithfulness", "context_relevance", "answer_relevance")
