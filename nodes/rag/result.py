"""The `rag` rubric (seed 000): how its 11-key output is assembled from its metrics' scores.

The metrics are computed independently: a step that fails makes only its own metric null
(with the reason in its explanation), marks the evaluation failed and fills `error`, and the
other metrics are kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ...declarations.metric_declaration import MetricDeclaration
from ...declarations.scoring import round_half_up
from ...schemas.metrics import MetricScore
from ...schemas.rag import RagInput, RagResult
from ..claims.earlier_turns import earlier_turn_note
from .metrics import DECLARED, in_output, needs_absent_context, selected

NOT_REQUESTED = MetricScore(None, "Not requested.")


NO_CONTEXT = "no context given"


def no_context_score(rag: RagInput, key: str) -> MetricScore:
    """A context metric of an item that gives no context: null with the reason; a failure when
    the item asked for the metric by name (it cannot have what it asked for)."""
    if rag.metrics is not None and key in rag.metrics:
        return MetricScore(None, "Not judged: no context given (the item has no context field).", NO_CONTEXT)
    if rag.metrics is not None:
        return NOT_REQUESTED
    return MetricScore(None, "Not judged: no context given (the item has no context field).")


def score_rag_metrics(state: Mapping[str, Any], rag: RagInput,
                      metrics: tuple[MetricDeclaration, ...] = DECLARED) -> dict[str, MetricScore]:
    """Each metric's typed score and explanation from the finished state; "Not requested." for
    the seed's metrics the item left out, nothing for a metric that does not apply to it
    (`metrics.in_output`). Decided with the run's calibration profile (`FinishedState.profile`,
    resolved once with the run's context)."""
    profile = state["profile"]
    chosen = selected(rag, metrics)
    standalone = state.get("standalone")
    unjudged = standalone.error if standalone is not None and rag.history else None
    scores: dict[str, MetricScore] = {}
    for metric in in_output(rag, metrics):
        if needs_absent_context(metric, rag):
            scores[metric.key] = no_context_score(rag, metric.key)
        elif metric.key not in chosen:
            scores[metric.key] = NOT_REQUESTED
        elif unjudged is not None and metric.reads_question:
            scores[metric.key] = MetricScore(None, f"Not judged: {unjudged}.", unjudged)
        else:
            scores[metric.key] = metric.score(state, rag, profile)
    faithfulness = scores.get("faithfulness")
    if rag.history and faithfulness is not None and faithfulness.score is not None:
        note = earlier_turn_note(state.get("verdicts", []), rag.question, rag.history, rag.item_language.code)
        if note:
            scores["faithfulness"] = replace(faithfulness, explanation=f"{faithfulness.explanation} {note}")
    return scores


def failure_text(failures: Mapping[str, str]) -> str | None:
    """The seed's `error`: each failed metric as `name: error`, in output order."""
    return "; ".join(f"{name}: {error}" for name, error in failures.items()) or None


def failed_metrics(error: str | None) -> set[str]:
    """The names of the failed metrics in `error` (`failure_text`'s inverse): the seed's output
    has no other place saying which metric failed."""
    return {part.split(":", 1)[0].strip() for part in (error or "").split(";") if part.strip()}


def rag_result(state: Mapping[str, Any], rag: RagInput, metrics: tuple[MetricDeclaration, ...] = DECLARED,
               output: type[RagResult] = RagResult) -> RagResult:
    """The output (`output`: the seed's `RagResult`, or a subclass with a field pair per metric
    a test adds, `rubric.rag_rubric`)."""
    fields: dict = {}
    blocks: dict = {}
    failures: dict[str, str] = {}
    declared = {metric.key: metric for metric in metrics}
    for name, metric in score_rag_metrics(state, rag, metrics).items():
        fields[name] = None if metric.score is None else round_half_up(metric.score, 2)
        fields[f"{name}_explanation"] = metric.explanation
        block = declared[name].output_block
        if block is not None and block[0] in metric.signals:
            blocks.setdefault(block[0], metric.signals[block[0]])
        if metric.error:
            failures[name] = metric.error
    return output(
        **fields,
        **blocks,
        evaluation_status="failed" if failures else "success",
        # a language without agreement figures is judged all the same, and said so here: the
        # seed's `reason` is for "expected/semantic evaluation outcomes"
        reason=rag.item_language.note,
        error=failure_text(failures),
    )


def rag_failure(reason: str) -> RagResult:
    return RagResult(evaluation_status="failed", reason=reason)


def rag_error(error: str) -> RagResult:
    """Judging broke: the seed keeps runtime errors in `error`, input problems in `reason`."""
    return RagResult(evaluation_status="failed", error=error)

