"""A rubric's output turned into LangSmith feedback: one `{key, score, comment, metadata}` per metric.

Why: LangSmith (and openevals) record an evaluator's result as feedback rows. Which metrics a
rubric output holds, and whether each was `judged`, does `not_applicable` (no reference,
nothing checkable) or `failed` (invalid input, a judge step that never validated), and why,
comes typed from the run's scores (`graph.metrics_view.run_metrics`); this module only shapes the rows and adds the
audit trail (the claims with their verdicts, the item's calls and tokens) to `metadata`.
"""

from __future__ import annotations

from dataclasses import replace

from ..graph import rubrics
from ..graph.api import EvaluationRun
from ..graph.metrics_view import run_metrics
from ..schemas.metrics import MetricRecord
from .unread_keys import unread_note


def _claims(run: EvaluationRun) -> list[dict]:
    return [
        {"claim": v.claim, "verdict": v.effective_verdict, "evidence": v.evidence,
         "counts_as_supported": v.counts_as_supported}
        for v in run.verdicts
    ]


def _row(metric: MetricRecord, run: EvaluationRun, prefix: str, unread: dict[str, list[str]]) -> dict:
    metadata = {"rubric": metric.rubric, "status": metric.status, "item_usage": run.usage,
                "calibration_profile": run.profile_id}
    if unread:
        metadata["keys_not_read"] = unread
    if metric.status == "failed":
        metadata["error"] = metric.error or metric.comment
        if unread and metric.comment:
            metric = replace(metric, comment=f"{metric.comment} ({unread_note(unread)})")
    spec = rubrics.get(metric.rubric).metric(metric.key)
    if spec is not None and spec.from_claims:
        metadata["claims"] = _claims(run)
    if metric.scale is not None:
        metadata["scale"] = "{:g}-{:g}".format(*metric.scale)
    row = {"key": prefix + metric.key, "score": metric.score,
           "comment": metric.comment or metric.status.replace("_", " "), "metadata": metadata}
    if metric.value is not None:  # categorical: LangSmith's categorical feedback goes in `value`
        row["value"] = metric.value
    return row


def feedback_rows(rubric: str, run: EvaluationRun, selected: tuple[str, ...] | None, prefix: str,
                  unread: dict[str, list[str]] | None = None) -> list[dict]:
    """One LangSmith feedback row per metric of `rubric` in `run`.

    Args:
        rubric: the rubric whose output the rows report (the run may hold several).
        run: the judged item (`graph.api.EvaluationRun`).
        selected: the metrics the evaluator was asked for, or None for all.
        prefix: prepended to every row's key.
        unread: {dict: its keys no field read} (`evaluators.unread_keys`): in every row's
            metadata, and named in a failed metric's comment.
    """
    result = run.results.get(rubric, run.result)
    metrics = run_metrics(rubric, result, run.scores.get(rubric), selected)
    return [_row(metric, run, prefix, unread or {}) for metric in metrics]
