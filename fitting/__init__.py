"""Fitting calibration profiles on labelled items: what `judgegraph calibrate` runs.

Why apart from `calibration/`: the profiles and decision rules there are read by the nodes on
every run, so they sit below the nodes; fitting re-scores recorded runs with the nodes' own
rules (`recompute.py` imports `nodes/` and reads batch records), so it sits above the nodes and
the batch, in the layer of their uses (docs/architecture.md). Nothing below imports it.

`fitted_metrics.py` names, per metric, how a judged record is read back, scored and fitted;
`cross_validation.py` serves them all. Modules are imported by name: fitting loads
scikit-learn, which a run that only judges never needs.
"""
