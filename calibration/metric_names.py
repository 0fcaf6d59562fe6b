"""The metrics a calibration profile holds, and so the ones `judgegraph calibrate` fits.

Why its own module: the command line lists them in `calibrate --metric`'s choices, and
building the parser (every `judgegraph --help`) must not load the profile models.
"""

CALIBRATED_METRICS = ("faithfulness", "context_relevance", "answer_relevance")
