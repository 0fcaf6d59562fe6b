"""A rubric's output turned into LangSmith feedback: one `{key, score, comment, metadata}` per metric.

Why: LangSmith (and openevals) record an evaluator's result as feedback rows. A rubric's own
output is a seed-shaped dict; here each metric becomes one row whose `metadata.status` says
whether it was `judged`, does `not_applicable` (no reference, nothing checkable), or `failed`
(invalid input, or a judge step that never validated). A metric that was not judged keeps
`score: None` with the reason in `comment`: never a made-up 0 that would drag an average down.
"""

from __future__ import annotations

from typing import Any

from judgegraph.graph.api import EvaluationRun

RAG_METRICS = ("faithfulness", "context_relevance", "answer_relevance", "semantic_similarity")


def _row(key: str, score: Any, comment: str | None, status: str, run: EvaluationRun, rubric: str,
         **metadata: Any) -> dict:
    return {
        "key": key,
        "score": score,
        "comment": comment or status.replace("_", " "),
        "metadata": {"rubric": rubric, "status": status, "item_usage": run.usage, **metadata},
    }


def _claims(run: EvaluationRun) -> list[dict]:
    return [
        {"claim": v.claim, "verdict": v.effective_verdict, "evidence": v.evidence,
         "counts_as_supported": v.counts_as_supported}
        for v in run.verdicts
    ]


def rag_feedback(run: EvaluationRun, metrics: tuple[str, ...] | None, prefix: str) -> list[dict]:
    result = run.results.get("rag", run.result)
    names = metrics or RAG_METRICS
    if result.get("reason"):  # invalid input: nothing was judged
        return [_row(prefix + name, None, result["reason"], "failed", run, "rag") for name in names]
    failed = {part.split(":", 1)[0].strip() for part in (result.get("error") or "").split(";")}
    rows = []
    for name in names:
        score = result.get(name)
        status = "judged" if score is not None else ("failed" if name in failed else "not_applicable")
        extra = {"claims": _claims(run)} if name == "faithfulness" else {}
        rows.append(_row(prefix + name, score, result.get(f"{name}_explanation"), status, run, "rag",
                         error=result.get("error") if status == "failed" else None, **extra))
    return rows


def liverag_feedback(run: EvaluationRun, metrics: tuple[str, ...] | None, prefix: str) -> list[dict]:
    result = run.results.get("liverag", run.result)
    notes = result.get("evaluation_notes")
    rows = []
    for name, key in (("relevance_score", "liverag_relevance"), ("faithfulness_score", "liverag_faithfulness")):
        score = result.get(name)
        status = "judged" if score is not None else "failed"
        extra = {"claims": _claims(run)} if key == "liverag_faithfulness" else {}
        rows.append(_row(prefix + key, score, notes, status, run, "liverag", **extra))
    return rows


def coverage_feedback(run: EvaluationRun, metrics: tuple[str, ...] | None, prefix: str) -> list[dict]:
    result = run.results.get("coverage", run.result)
    score = result.get("score")
    return [_row(prefix + "coverage", score, "\n".join(result.get("rationale") or []),
                 "judged" if score is not None else "failed", run, "coverage", scale="0-5")]


def expected_output_feedback(run: EvaluationRun, metrics: tuple[str, ...] | None, prefix: str) -> list[dict]:
    result = run.results.get("expected_output", run.result)
    if result.get("error"):
        return [_row(prefix + "expected_output", None, result.get("error_message"), "failed", run,
                     "expected_output")]
    evaluation = result["evaluation"]
    judged = evaluation["result"]
    row = _row(prefix + "expected_output", judged.get("score"), evaluation.get("reasoning"), "judged", run,
               "expected_output", evaluation_type=evaluation["evaluation_type"], result=judged,
               confidence=evaluation.get("confidence"))
    if "category" in judged:  # categorical: LangSmith's categorical feedback goes in `value`
        row["value"] = judged["category"]
    return [row]
