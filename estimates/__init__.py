"""Label-corrected estimates: the judge's scores on every item and people's labels on a random
few, combined into an estimate of what the labels' mean over all items would be, with a valid
95 % interval (prediction-powered inference, PPI++; docs/estimates.md).

Why a folder of its own: `estimate`, `compare --labels-*` and `report --labels` share the
estimators (`ppi.py`, `difference.py`) and the reading of judge scores from a results file
(`results_scores.py`). The labels file they read is `schemas.labels_file`'s, the one reader
`judgegraph label` resumes with and `calibrate` reads through too. Modules are imported by name, so
that a command that does not estimate loads none of this (numpy included).
"""
