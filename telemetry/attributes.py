"""The attributes of each span, from judgegraph's own records: no `opentelemetry` import here.

Three vocabularies side by side, so any backend reads what it knows:
- OpenTelemetry's GenAI semantic conventions (`gen_ai.*`) on model calls;
- OpenInference's (`openinference.span.kind`, `llm.*`, `input.value`, `output.value`), which
  Arize Phoenix reads to show LLM spans, token counts and inputs/outputs;
- judgegraph's own (`judgegraph.*`): the item's id, scores, failed claims, each step's outcome.

Every text is cut to a bound (`TEXT_LIMIT`), and lists of claims or errors to a count, so a
10 MB item or reply never becomes a 10 MB span.
"""

from __future__ import annotations

import json
from typing import Any

from ..graph.metrics_view import run_metrics
from ..schemas.trace import Attempt, TraceEvent
from .judged_item import JudgedItem

TEXT_LIMIT = 4000
"""Characters of any text attribute (input, output, a reply, an explanation)."""

LIST_LIMIT = 20
"""Entries of any list attribute or of the failed-claim events of one item."""

SPAN_KIND = "openinference.span.kind"

AttributeValue = str | bool | int | float | list[str]


def bounded(text: str, limit: int = TEXT_LIMIT) -> str:
    """`text` cut to `limit` characters, the cut said at its end."""
    return text if len(text) <= limit else text[: limit - 15] + "… [truncated]"


def as_json(value: Any) -> str:
    """A JSON text of `value`, bounded; what is not JSON is written as its `str`."""
    return bounded(json.dumps(value, ensure_ascii=False, default=str))


def model_parts(model_id: str) -> tuple[str, str]:
    """(provider, model name) of a judge's `model_id` (`openai:gpt-4o-mini`,
    `openai-compatible:demo@http://host/v1`, `local:qwen...`)."""
    provider, _, rest = model_id.partition(":")
    if not rest:
        return "unknown", model_id
    return provider, rest.split("@", 1)[0]


def item_attributes(judged: JudgedItem) -> dict[str, AttributeValue]:
    """The root span's: the item, its rubric, judge, usage, scores and failed metrics."""
    record = judged.record
    provider, model = model_parts(judged.model_id)
    rubric = record.get("rubric")
    rubrics = [str(r) for r in rubric] if isinstance(rubric, list) else [str(rubric)]
    usage = record.get("usage") or {}
    attributes: dict[str, AttributeValue] = {
        SPAN_KIND: "EVALUATOR",
        "judgegraph.item.id": bounded(str(record.get("id"))),
        "judgegraph.rubric": rubrics,
        "judgegraph.model": judged.model_id,
        "gen_ai.request.model": model,
        "gen_ai.provider.name": provider,
        "judgegraph.usage.calls": int(usage.get("calls", 0)),
        "judgegraph.usage.input_tokens": int(usage.get("input_tokens", 0)),
        "judgegraph.usage.output_tokens": int(usage.get("output_tokens", 0)),
        "input.value": as_json(judged.item),
        "input.mime_type": "application/json",
        "output.value": as_json(record.get("result")),
        "output.mime_type": "application/json",
    }
    if isinstance(record.get("line"), int):
        attributes["judgegraph.item.line"] = record["line"]
    if judged.run is not None and judged.run.profile_id:
        attributes["judgegraph.profile"] = judged.run.profile_id
    if "internal_error" in record:
        attributes["judgegraph.internal_error"] = bounded(str(record["internal_error"]))
    failed: list[str] = []
    for name in rubrics:
        result = record.get("result")
        result = result.get(name) if len(rubrics) > 1 and isinstance(result, dict) else result
        scores = judged.run.scores.get(name) if judged.run is not None else None
        for metric in run_metrics(name, result, scores):
            if isinstance(metric.score, int | float) and not isinstance(metric.score, bool):
                attributes[f"judgegraph.score.{metric.key}"] = float(metric.score)
            elif metric.value is not None:
                attributes[f"judgegraph.value.{metric.key}"] = bounded(str(metric.value))
            if metric.status == "failed":
                failed.append(metric.key)
    attributes["judgegraph.metrics.failed"] = failed[:LIST_LIMIT]
    claims = failed_claims(judged)
    attributes["judgegraph.claims.count"] = len(judged.run.verdicts) if judged.run else 0
    attributes["judgegraph.claims.failed"] = len(claims)
    return attributes


def failed_claims(judged: JudgedItem) -> list[dict[str, AttributeValue]]:
    """One entry per claim that does not count as supported (bounded text): the claim, its
    verdict and how it was read, the evidence and why."""
    if judged.run is None:
        return []
    found = []
    for verdict in judged.run.verdicts:
        if verdict.supported:
            continue
        entry: dict[str, AttributeValue] = {
            "judgegraph.claim.index": verdict.index,
            "judgegraph.claim.text": bounded(verdict.claim, 1000),
            "judgegraph.claim.verdict": str(verdict.verdict or "unknown"),
            "judgegraph.claim.reading": bounded(verdict.effective_verdict, 1000),
            "judgegraph.claim.support": verdict.support,
        }
        if verdict.evidence:
            entry["judgegraph.claim.evidence"] = bounded(verdict.evidence, 1000)
        if verdict.conflict:
            entry["judgegraph.claim.conflict"] = bounded(str(verdict.conflict), 1000)
        if verdict.error:
            entry["judgegraph.claim.error"] = bounded(verdict.error, 1000)
        found.append(entry)
    return found


def step_attributes(event: TraceEvent) -> dict[str, AttributeValue]:
    """A step's span: what it did and cost; its recorded detail as the output."""
    attributes: dict[str, AttributeValue] = {
        SPAN_KIND: "CHAIN",
        "judgegraph.step.node": event.node,
        "judgegraph.step.outcome": event.outcome,
        "judgegraph.step.duration_s": event.duration_s,
        "judgegraph.step.calls": event.calls,
        "judgegraph.step.input_tokens": event.input_tokens,
        "judgegraph.step.output_tokens": event.output_tokens,
        "output.value": as_json(event.detail),
        "output.mime_type": "application/json",
    }
    if event.label:
        attributes["judgegraph.step.label"] = event.label
    if event.note:
        attributes["judgegraph.step.note"] = bounded(event.note)
    if event.errors:
        attributes["judgegraph.step.errors"] = [bounded(e, 500) for e in event.errors[:LIST_LIMIT]]
    for key in ("claim", "verdict"):
        if isinstance(event.detail.get(key), str):
            attributes[f"judgegraph.{key}"] = bounded(event.detail[key], 1000)
    return attributes


def llm_attributes(attempt: Attempt, model_id: str, step: str) -> dict[str, AttributeValue]:
    """One model call (an attempt of a step): GenAI and OpenInference names for the model and
    the tokens, the raw reply as the output."""
    provider, model = model_parts(model_id)
    attributes: dict[str, AttributeValue] = {
        SPAN_KIND: "LLM",
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": model,
        "gen_ai.provider.name": provider,
        "gen_ai.system": provider,
        "gen_ai.usage.input_tokens": attempt.input_tokens,
        "gen_ai.usage.output_tokens": attempt.output_tokens,
        "llm.model_name": model,
        "llm.provider": provider,
        "llm.token_count.prompt": attempt.input_tokens,
        "llm.token_count.completion": attempt.output_tokens,
        "llm.token_count.total": attempt.input_tokens + attempt.output_tokens,
        "output.value": bounded(attempt.raw_reply),
        "output.mime_type": "text/plain",
        "judgegraph.step.node": step,
        "judgegraph.attempt.number": attempt.number,
        "judgegraph.attempt.ok": attempt.ok,
        "judgegraph.attempt.repaired_locally": attempt.repaired_locally,
    }
    if attempt.finish_reason:
        attributes["gen_ai.response.finish_reasons"] = [attempt.finish_reason]
    if attempt.errors:
        attributes["judgegraph.attempt.errors"] = [bounded(e, 500) for e in attempt.errors[:LIST_LIMIT]]
    return attributes
