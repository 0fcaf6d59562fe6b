"""judgegraph: an LLM-as-a-judge for QA and RAG, built as a LangGraph state graph.

The repository's root is this package: every package folder at the root (`graph/`, `nodes/`,
`prompts/`, `schemas/`, `llm/`, `batch/`, `evaluators/`, `report/`, ...) is the subpackage
`judgegraph.<folder>` (pyproject's `package-dir` says so once), so the files a reader sees are the
modules that run, and imports inside the package are relative. Everything installs under this
one name, so nothing generic (`graph`, `schemas`, ...) lands at the top of site-packages, where an
app's own module of the same name would shadow it or be shadowed by it:

    from judgegraph.graph import build_graph, evaluate
    from judgegraph.evaluators import create_rag_evaluator
    judgegraph.evaluate_batch(frame, base_url=...)        # a DataFrame (or a list, a file) of items
    judgegraph.estimate("results.jsonl", "labels.jsonl")   # label-corrected means (docs/estimates.md)
"""

from __future__ import annotations

from typing import Any

_GRAPH_EXPORTS = ("build_graph", "default_graph", "evaluate", "run_evaluation", "arun_evaluation", "JudgeContext")
"""`judgegraph.evaluate` is `judgegraph.graph.evaluate`, and so on. Loaded lazily: `import
judgegraph` alone imports neither langgraph nor any model client."""

_BATCH_EXPORTS = ("evaluate_batch", "aevaluate_batch", "BatchResult")
"""`judgegraph.evaluate_batch` is `judgegraph.batch.api.evaluate_batch`: the CLI's batch from
Python (docs/python-api.md). pandas is never imported unless it is handed a DataFrame."""

__all__ = ["__version__", *_GRAPH_EXPORTS, *_BATCH_EXPORTS, "estimate"]


def __getattr__(name: str) -> Any:
    # Every name is looked up lazily, `__version__` too: pytest imports a checkout's root
    # `__init__.py` as a lone module when the folder's name is not a Python name
    # (`git clone ... ci-check`), and a relative import at module level would fail there.
    if name == "__version__":
        from .schemas.version import __version__

        return __version__
    if name == "estimate":  # `judgegraph.estimate(results, labels)`: numpy only, no judging stack
        from .estimates.api import estimate

        return estimate
    if name in _BATCH_EXPORTS:
        from .batch import api

        return getattr(api, name)
    if name not in _GRAPH_EXPORTS:
        raise AttributeError(f"module 'judgegraph' has no attribute {name!r}")
    from . import graph

    return getattr(graph, name)
