"""judgegraph's graph: `build_graph()` (uncompiled, for embedding), `default_graph()`
(compiled once), `evaluate(item, model=...)` and `run_evaluation(...)` for the whole run.

Attributes load lazily, so importing one of its modules (the rubric registry `graph.rubrics`,
read by the batch and the report; the metrics view) does not import the builder and LangGraph.
`JudgeContext` is the run's context (`run/context.py`, below the rubrics).
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "build_graph": ".builder",
    "default_graph": ".api",
    "evaluate": ".api",
    "run_evaluation": ".api",
    "arun_evaluation": ".api",
    "EvaluationRun": ".api",
    "JudgeContext": "..run.context",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'judgegraph.graph' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_EXPORTS[name], __name__), name)
