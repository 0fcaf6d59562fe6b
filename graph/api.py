"""The simple way in: `evaluate(item, model=...)` returns the rubric's seed-shaped output.

`run_evaluation` returns the whole run (result, trace, claims, verdicts) for callers that want
to show or store how the score came about.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph.state import CompiledStateGraph

from ..schemas.claims import CheckedClaim, ExtractedClaims
from ..schemas.trace import TraceEvent
from .builder import build_graph
from .context import JudgeContext


def _config(max_concurrency: int | None) -> dict:
    """The run's config: LangGraph's default (unbounded fan-out) unless a limit is given."""
    return {"max_concurrency": max_concurrency} if max_concurrency else {}


@lru_cache(maxsize=1)
def default_graph() -> CompiledStateGraph:
    """The compiled graph, built once per process."""
    return build_graph().compile()


@dataclass
class EvaluationRun:
    """One item's result plus everything that explains it."""

    result: dict
    results: dict[str, dict]
    rubrics: list[str]
    trace: list[TraceEvent] = field(default_factory=list)
    claims: ExtractedClaims | None = None
    verdicts: list[CheckedClaim] = field(default_factory=list)
    profile_id: str | None = None
    """The calibration profile that decided the scores (`calibration.profile_for`)."""

    @property
    def usage(self) -> dict[str, int]:
        return {
            "calls": sum(e.calls for e in self.trace),
            "input_tokens": sum(e.input_tokens for e in self.trace),
            "output_tokens": sum(e.output_tokens for e in self.trace),
        }

    def trace_json(self) -> dict[str, Any]:
        """The trace as written by `--trace-out`: nodes in order, claims with their verdicts."""
        return {
            "rubrics": self.rubrics,
            "profile": self.profile_id,
            "usage": self.usage,
            "nodes": [event.model_dump() for event in self.trace],
            "claims": self.claims.model_dump() if self.claims else None,
            "verdicts": [
                v.model_dump() | {"effective_verdict": v.effective_verdict}
                for v in sorted(self.verdicts, key=lambda v: v.index)
            ],
        }


def make_context(model: BaseChatModel | JudgeContext | None, **settings: Any) -> JudgeContext | None:
    if model is None or isinstance(model, JudgeContext):
        return model
    model_id = settings.pop("model_id", None) or getattr(model, "model_name", None) or type(model).__name__
    return JudgeContext(model=model, model_id=str(model_id), **settings)


def _run(output: dict) -> EvaluationRun:
    return EvaluationRun(
        result=output["result"],
        results=output.get("results", {}),
        rubrics=output.get("rubrics", []),
        trace=output.get("trace", []),
        claims=output.get("claims"),
        verdicts=sorted(output.get("verdicts", []), key=lambda v: v.index),
        profile_id=output.get("profile_id"),
    )


def run_evaluation(
    item: Any,
    *,
    model: BaseChatModel | JudgeContext | None = None,
    rubric: str | list[str] | None = None,
    max_concurrency: int | None = None,
    **settings: Any,
) -> EvaluationRun:
    """Judge one item; `model` is a chat model or a full `JudgeContext`.

    With no model, the default judge is resolved (see `llm.models.default_model`).
    """
    config = _config(max_concurrency)
    output = default_graph().invoke(
        {"item": item, "rubric": rubric}, config=config, context=make_context(model, **settings)
    )
    return _run(output)


async def arun_evaluation(
    item: Any,
    *,
    model: BaseChatModel | JudgeContext | None = None,
    rubric: str | list[str] | None = None,
    max_concurrency: int | None = None,
    **settings: Any,
) -> EvaluationRun:
    """The async twin of `run_evaluation`, for batches."""
    config = _config(max_concurrency)
    output = await default_graph().ainvoke(
        {"item": item, "rubric": rubric}, config=config, context=make_context(model, **settings)
    )
    return _run(output)


def evaluate(item: Any, *, model: BaseChatModel | JudgeContext | None = None, **kwargs: Any) -> dict:
    """Judge one item and return the rubric's seed-shaped output."""
    return run_evaluation(item, model=model, **kwargs).result
