"""`judgegraph compare BEFORE.jsonl AFTER.jsonl`: did a change help, on the same questions?

Two batch results files are paired by item id; each metric gets paired statistics fit for its
scale (scores: mean difference with a paired bootstrap interval and a sign test; ordinal steps:
up/down/same and Wilcoxon; labels: a transition matrix and McNemar), items whose status changed
are counted apart, the items that moved most are shown with both runs' explanations, and the
two runs' judges are compared (`batch.provenance`). `gate` turns the intervals into a CI exit
code. Rendering lives elsewhere: the console table in `console/`, the HTML page in `report/`.
"""

from .compare_runs import Comparison, MetricComparison, compare_runs
from .gate import GateRule, GateVerdict, apply_gate, parse_gate
from .json_view import comparison_json
from .run_file import ComparisonError

__all__ = ["Comparison", "ComparisonError", "GateRule", "GateVerdict", "MetricComparison", "apply_gate",
           "compare_runs", "comparison_json", "parse_gate"]
