"""The single-prompt baseline: one call per item asking for the metric's score directly.

Why it exists: the graph decomposes each judgment into steps (claims, verdicts, precision and
recall) and does the arithmetic in code; the baseline is what one would write instead, a
prompt per metric in the style of the seed rubrics, asking for {"reasoning", "score"}. Both run
on the same model and the same items, so the report shows what the decomposition buys and
what it costs. It goes through `run_structured_step` like every graph step, so an invalid or
failed reply is counted as a failure (with its reason), never a crash or an invented score.
"""

from __future__ import annotations

from judgegraph.llm.structured import StepOutcome, run_structured_step
from judgegraph.run.context import JudgeContext
from judgegraph.schemas.inputs import to_passages
from judgegraph.schemas.text import short_text
from pydantic import BaseModel, Field

from benchmarks.prompts import render_messages

BASELINE_METRICS = ("faithfulness", "context_relevance", "answer_relevance", "semantic_similarity", "citation_recall")


class BaselineJudgment(BaseModel):
    """The baseline's reply: reasoning first (it conditions the score), then the score."""

    reasoning: short_text(200)  # type: ignore[valid-type]
    score: float = Field(ge=0.0, le=1.0)


def baseline_template(metric: str) -> str:
    if metric not in BASELINE_METRICS:
        raise ValueError(f"no baseline prompt for metric {metric!r} (known: {', '.join(BASELINE_METRICS)})")
    return f"baseline_{metric}"


def run_baseline(context: JudgeContext, metric: str, item: dict) -> StepOutcome[BaselineJudgment]:
    """Judge `metric` for a rag-shaped item with one prompt (plus repairs if the reply is invalid)."""
    messages = render_messages(
        baseline_template(metric),
        question=item.get("question") or "",
        passages=to_passages(item.get("context")),
        answer=item.get("answer") or "",
        reference=item.get("reference") or "",
    )
    return run_structured_step(
        context.model, messages, BaselineJudgment,
        max_repairs=context.max_repairs, dialect=context.response_format,
    )
