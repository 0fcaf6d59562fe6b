"""Label-corrected estimates: the judge's scores on every item and people's labels on a random
few, combined into an estimate of what the labels' mean over all items would be, with a valid
95 % interval (prediction-powered inference, PPI++; docs/estimates.md).

Why a folder of its own: `judgegraph label` writes the labels file, `estimate`, `compare` and
`report` read it, and `calibrate` reads the same lines; the file's reader (`labels_file.py`),
the estimators (`ppi.py`) and the reading of judge scores from a results file
(`results_scores.py`) serve them all. Modules are imported by name, so that `calibrate`,
which reads labels files, loads none of the estimators.
"""
