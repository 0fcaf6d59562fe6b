"""The run-time context every node receives: the judge model and the knobs of the run.

Passed as LangGraph's `context_schema`, so one compiled graph serves any model; nothing about
the model lives in the graph's state or in module globals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from langchain_core.language_models import BaseChatModel

from judgegraph.llm.response_format import Dialect

ClaimCheckMode = Literal["per-claim", "batch"]


@dataclass
class JudgeContext:
    """Model and settings for one run (or a whole batch) of the graph."""

    model: BaseChatModel | None = None
    """The judge. None means: resolve the default (see `llm.models.default_model`)."""
    model_id: str = "unconfigured"
    """Identity of the judge, for the trace and cache keys."""
    response_format: Dialect = "json_schema"
    """How each step's JSON schema is sent; local llama.cpp servers need `json_object`."""
    max_repairs: int = 2
    """Re-prompts with the validation errors before a step fails cleanly."""
    claim_check: ClaimCheckMode = "per-claim"
    """`per-claim`: one fanned-out call per claim; `batch`: all claims in one call (cheap models)."""
    extra: dict = field(default_factory=dict)
    """Room for embedding apps; ignored by judgegraph's own nodes."""


def resolve_context(context: JudgeContext | None) -> JudgeContext:
    """The context to use when a caller embedded the graph without one (runtime.context is None)."""
    if context is not None and context.model is not None:
        return context
    from judgegraph.llm.models import default_model  # deferred: only embedding without a model needs it

    resolved = default_model()
    base = context or JudgeContext()
    return JudgeContext(
        model=resolved.model,
        model_id=resolved.model_id,
        response_format=resolved.response_format,  # the resolved server's dialect
        max_repairs=base.max_repairs,
        claim_check=base.claim_check,
        extra=base.extra,
    )
