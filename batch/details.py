"""`--details`: what a batch line carries besides the result, for reports and audits.

Why opt-in: the default line stays small (`{"id", "line", "rubric", "result", "usage"}`), while
`judgegraph report` needs, per item, the input it judged, the claims with their verdicts and
evidence, and the step trace with durations and tokens. With `--details` each judged line gets
one more key, `details`, holding exactly that (the same data `--trace-out` writes for one item).
"""

from __future__ import annotations

from typing import Any


def run_details(item: Any, run: Any) -> dict:
    """`{"item", "rubrics", "usage", "nodes", "claims", "verdicts"}` for one judged item."""
    return {"item": item, **run.trace_json()}
