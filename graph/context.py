"""`from judgegraph.graph.context import JudgeContext`, the import docs/python-api.md gives apps.

The run's context is defined in `run/context.py`, below the rubrics, because every node reads
it; this module keeps the documented import path of the graph's public face working.
"""

from __future__ import annotations

from ..run.context import (
    DEFAULT_CONTEXT_CAP_TOKENS,
    ClaimCheckMode,
    ClaimExtraction,
    JudgeContext,
    resolve_context,
    resolved_context,
    run_profile,
)
from ..run.judge_builder import ModelSpec, build_judge

__all__ = [
    "DEFAULT_CONTEXT_CAP_TOKENS", "ClaimCheckMode", "ClaimExtraction", "JudgeContext",
    "ModelSpec", "build_judge", "resolve_context", "resolved_context", "run_profile",
]
