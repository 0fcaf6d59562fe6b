"""judgegraph: an LLM-as-a-judge for QA and RAG, built as a LangGraph state graph.

Everything installs under this one name, so nothing generic (`graph`, `schemas`, ...) lands at
the top of site-packages, where another app's own module of the same name would shadow it or
be shadowed by it:

    from judgegraph.graph import build_graph, evaluate
    from judgegraph.evaluators import create_rag_evaluator

The project keeps the folders its design card fixes (`graph/`, `nodes/`, `prompts/`,
`schemas/`, `cli.py`, ...) at the top of the repository; pyproject's `package-dir` maps each of
them to `judgegraph.<folder>` in a wheel and in an editable install, and `judgegraph/cli.py` is
a link to the root `cli.py`. In a source checkout that is not installed (`python cli.py ...`
from the repository root), the lines below make those same folders importable as
`judgegraph.<folder>`: this package's search path gains the checkout's root. An installed
wheel has no such sibling folders, so there it changes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__version__ = "0.1.0"


def _source_checkout_root() -> Path | None:
    """The repository root when this package sits in a judgegraph source checkout, else None."""
    root = Path(__file__).resolve().parent.parent
    markers = (root / "pyproject.toml", root / "cli.py", root / "graph" / "builder.py", root / "nodes" / "rubrics.py")
    return root if all(marker.is_file() for marker in markers) else None


_root = _source_checkout_root()
if _root is not None and str(_root) not in __path__:
    __path__.append(str(_root))  # judgegraph.graph -> <checkout>/graph, etc.
del _root

_GRAPH_EXPORTS = ("build_graph", "default_graph", "evaluate", "run_evaluation", "arun_evaluation", "JudgeContext")
"""`judgegraph.evaluate` is `judgegraph.graph.evaluate`, and so on. Loaded lazily: `import
judgegraph` alone imports neither langgraph nor any model client."""

__all__ = ["__version__", *_GRAPH_EXPORTS]


def __getattr__(name: str) -> Any:
    if name not in _GRAPH_EXPORTS:
        raise AttributeError(f"module 'judgegraph' has no attribute {name!r}")
    from judgegraph import graph

    return getattr(graph, name)
