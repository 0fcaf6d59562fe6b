"""judgegraph's graph: `build_graph()` (uncompiled, for embedding), `default_graph()`
(compiled once), `evaluate(item, model=...)` and `run_evaluation(...)` for the whole run.

Attributes load lazily so node modules can import `graph.context` and `graph.state`
without importing the builder, which imports the nodes.
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "build_graph": "judgegraph.graph.builder",
    "default_graph": "judgegraph.graph.api",
    "evaluate": "judgegraph.graph.api",
    "run_evaluation": "judgegraph.graph.api",
    "arun_evaluation": "judgegraph.graph.api",
    "EvaluationRun": "judgegraph.graph.api",
    "JudgeContext": "judgegraph.graph.context",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'judgegraph.graph' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_EXPORTS[name]), name)
