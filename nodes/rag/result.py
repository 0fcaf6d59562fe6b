"""The `rag` rubric (seed 000): how its 11-key output is assembled from its metrics' scores.

The metrics are computed independently: a step that fails makes only its own metric null
(with the reason in its explanation), marks the evaluation failed and fills `error`, and the
other metrics are kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ...declarations.metric_declaration import MetricDeclaration, decided
from ...declarations.scoring import round_half_up
from ...schemas.metrics import Score
from ...schemas.rag import RagInput, RagResult
from ..claims.earlier_turns import earlier_turn_note
from .metrics import DECLARED, in_output, needs_absent_context, selected

NOT_REQUESTED = Score(None, "Not requested.", requested=False)


NO_CONTEXT = "no context given"


def no_context_score(rag: RagInput, key: str) -> Score:
    """A context metric of an item that gives no context: null with the reason; a failure when
    the item asked for the metric by name (it cannot have what it asked for)."""
    if rag.metrics is not None and key in rag.metrics:
        return Score(None, "Not judged: no context given (the item has no context field).", NO_CONTEXT)
    if rag.metrics is not None:
        return NOT_REQUESTED
    return Score(None, "Not judged: no context given (the item has no context field).")


def score_rag_metrics(state: Mapping[str, Any], rag: RagInput,
                      metrics: tuple[MetricDeclaration, ...] = DECLARED) -> dict[str, Score]:
    """Each metric's typed score and explanation from the finished state; "Not requested." for
    the seed's metrics the item left out, nothing for a metric that does not apply to it
    (`metrics.in_output`). Decided with the run's calibration profile (`FinishedState.profile`,
    resolved once with the run's context)."""
    profile = state["profile"]
    chosen = selected(rag, metrics)
    standalone = state.get("standalone")
    unjudged = standalone.error if standalone is not None and rag.history else None
    scores: dict[str, Score] = {}
    for metric in in_output(rag, metrics):
        if needs_absent_context(metric, rag):
            scores[metric.key] = no_context_score(rag, metric.key)
        elif metric.key not in chosen:
            scores[metric.key] = NOT_REQUESTED
        elif unjudged is not None and metric.reads_question:
            scores[metric.key] = Score(None, f"Not judged: {unjudged}.", unjudged)
        else:
            scores[metric.key] = decided(metric, state, rag, profile)
    faithfulness = scores.get("faithfulness")
    if rag.history and faithfulness is not None and faithfulness.score is not None:
        note = earlier_turn_note(state.get("verdicts", []), rag.question, rag.history, rag.item_language.code)
        if note:
            scores["faithfulness"] = replace(faithfulness, explanation=f"{faithfulness.explanation} {note}")
    return scores


def failure_text(scores: Mapping[str, Score]) -> str | None:
    """The seed's `error`, rendered from the typed scores: each failed metric as `name: cause`,
    in output order."""
    return "; ".join(f"{name}: {score.error}" for name, score in scores.items() if score.status == "failed") or None


def rag_result(scores: Mapping[str, Score], rag: RagInput, state: Mapping[str, Any] | None = None,
               metrics: tuple[MetricDeclaration, ...] = DECLARED, output: type[RagResult] = RagResult) -> RagResult:
    """The output rendered from the decided scores (`output`: the seed's `RagResult`, or a
    subclass with a field pair per metric a test adds, `rubric.rag_rubric`)."""
    fields: dict = {}
    blocks: dict = {}
    declared = {metric.key: metric for metric in metrics}
    for name, metric in scores.items():
        fields[name] = None if metric.score is None else round_half_up(metric.score, 2)
        fields[f"{name}_explanation"] = metric.explanation
        block = declared[name].output_block
        if block is not None and metric.breakdown is not None:
            blocks.setdefault(block[0], metric.breakdown)
    failed = failure_text(scores)
    return output(
        **fields,
        **blocks,
        evaluation_status="failed" if failed else "success",
        # a language without agreement figures is judged all the same, and said so here: the
        # seed's `reason` is for "expected/semantic evaluation outcomes"
        reason=rag.item_language.note,
        error=failed,
    )


def rag_failure(reason: str) -> RagResult:
    return RagResult(evaluation_status="failed", reason=reason)


def rag_error(error: str) -> RagResult:
    """Judging broke: the seed keeps runtime errors in `error`, input problems in `reason`."""
    return RagResult(evaluation_status="failed", error=error)

