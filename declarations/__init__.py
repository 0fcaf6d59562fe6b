"""What a rubric and a metric declare, below the rubrics that fill the declarations in: the
rubric declaration (`rubric_spec.py`: `RubricSpec`, `MetricSpec`, `NodeSpec`), the metric
declaration (`metric_declaration.py`), and the small helpers every rubric's scoring shares:
half-up rounding (`scoring.py`), the reason recorded when code's own checks raise
(`rule_failure.py`), and reading a run's recorded details (`run_details.py`)."""
