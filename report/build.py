"""The report's content from a results JSONL: run summary, per-metric counts and distributions,
and one entry per item with its metrics, claims, highlighted evidence and step trace.

Why a separate step from rendering: everything the page shows is computed here as plain data
(numbers and user strings), so the template has no logic beyond loops, and tests can check
the numbers without a browser.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..batch.conversations import ConversationSummary, conversation_summaries
from ..batch.escalation_usage import EscalationTotals
from ..batch.records import input_position
from ..batch.results_file import ResultsFileError, read_results
from ..batch.summary import record_failure
from ..graph import rubrics
from ..graph.metrics_view import record_metrics
from ..schemas.claims import counts_as_supported
from ..schemas.field_aliases import CONTEXT_NAMES, passage_text
from ..schemas.metrics import MetricRecord
from .charts import Bin, histogram
from .citation_view import SentenceView, citation_views
from .highlight import Segment, segments


class ReportError(Exception):
    """The results file cannot be read; one line that says why."""


@dataclass
class MetricSummary:
    key: str
    rubric: str
    judged: int = 0
    not_applicable: int = 0
    failed: int = 0
    values: list[float] = field(default_factory=list)
    scale: tuple[float, float] | None = None
    bins: list[Bin] = field(default_factory=list)

    @property
    def mean(self) -> float | None:
        return sum(self.values) / len(self.values) if self.values else None

    @property
    def peak(self) -> int:
        return max((b.count for b in self.bins), default=0)


@dataclass
class ClaimView:
    claim: str
    verdict: str
    evidence: str
    counts: bool
    critical: bool
    reasoning: str


@dataclass
class ItemView:
    number: int
    id: str
    line: int | None
    rubric: str
    failed: str | None
    metrics: list[MetricRecord]
    usage: dict
    result: str
    fields: list[tuple[str, str]] = field(default_factory=list)
    """The judged item's short text fields (question, answer, reference...), in item order."""
    passages: list[list[Segment]] = field(default_factory=list)
    claims: list[ClaimView] = field(default_factory=list)
    citations: list[SentenceView] = field(default_factory=list)
    """A cited answer's sentences with their markers and verdicts (its result's `citations`)."""
    nodes: list[dict] = field(default_factory=list)
    has_details: bool = False
    profile: str | None = None
    """The calibration profile that decided the item's scores (from its details)."""

    def score(self, key: str) -> Any:
        return next((m.score for m in self.metrics if m.key == key), None)


@dataclass
class Report:
    title: str
    source: str
    items: list[ItemView]
    metrics: list[MetricSummary]
    rubrics: list[str]
    totals: dict[str, float]
    unreadable_lines: int = 0
    conversations: list[ConversationSummary] = field(default_factory=list)
    """Per conversation of a conversation file (`batch.conversations`): turns, failed turns,
    mean and worst turn per metric; empty for an item file."""
    estimates: list[Any] = field(default_factory=list)
    """With `--labels`: `estimates.estimate.MetricEstimate` rows, the very ones `judgegraph
    estimate` prints (the judge's mean, labels only, label-corrected, each with its interval)."""
    estimate_notes: list[str] = field(default_factory=list)
    """What the estimate left out or assumed (labelled ids the results lack, no design...)."""
    labels_source: str | None = None
    escalation: list[str] = field(default_factory=list)
    """With `--escalate-to`: the share escalated, calls and tokens per judge, the estimated
    agreement with the second judge alone (`batch.escalation_usage`, as the batch summary says)."""

    @property
    def conversation_metrics(self) -> list[str]:
        return list(dict.fromkeys(metric for c in self.conversations for metric in c.values))

    @property
    def failed(self) -> int:
        return sum(1 for item in self.items if item.failed)

    @property
    def with_details(self) -> int:
        return sum(1 for item in self.items if item.has_details)


CONTEXT_KEYS = tuple(dict.fromkeys(
    ("context", "documents", "passages", *(key for spec in rubrics.RUBRICS for key in spec.context_fields),
     *CONTEXT_NAMES)))
"""Item keys whose text is shown as context with the evidence highlighted, first found wins:
the usual names, whatever other key a rubric declares as its context, then the other tools'
names the rubrics read (`schemas.field_aliases`: `retrieved_contexts`, `source_documents`...)."""


def read_records(path: Path) -> tuple[list[dict], int]:
    """The records of a results JSONL in input order (the file is in completion order:
    `batch.records.input_position`), and how many lines were not records; `ReportError` for a
    file that cannot be read or a record holding what no score may be (`batch.results_file`)."""
    try:
        results = read_results(path, with_signals=True)
    except ResultsFileError as error:
        raise ReportError(str(error)) from error
    records = sorted((record for _, record in results.records), key=input_position)
    return records, len(results.unreadable_lines) + int(results.truncated_tail)


def _passages(item: dict) -> list[str]:
    for key in CONTEXT_KEYS:
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return [value]
        if isinstance(value, list):
            return [text for text in map(passage_text, value) if isinstance(text, str)]  # serialized Documents too
    return []


def _fields(item: dict) -> list[tuple[str, str]]:
    shown = []
    for key, value in item.items():
        if key in CONTEXT_KEYS or key == "metrics":
            continue
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        shown.append((key, text))
    return shown


def _claim_note(verdict: dict) -> str:
    """What code found about the claim: its support, grounding and any number conflict."""
    notes = []
    if verdict.get("support") is not None:
        notes.append(f"support {float(verdict['support']):.2f}")
    if verdict.get("grounding") is not None and float(verdict["grounding"]) < 1.0:
        unfound = [str(word) for word in verdict.get("unfound_words") or []]
        notes.append(f"{float(verdict['grounding']):.0%} of its words in the context"
                     + (f" (not found: {', '.join(unfound)})" if unfound else ""))
    if verdict.get("conflict"):
        notes.append(str(verdict["conflict"]))
    return "; ".join(notes)


def _claims(details: dict) -> list[ClaimView]:
    return [
        ClaimView(claim=str(v.get("claim", "")), verdict=str(v.get("effective_verdict") or v.get("verdict")),
                  evidence=str(v.get("evidence") or ""),
                  counts=counts_as_supported(v),
                  critical=bool(v.get("critical")), reasoning=_claim_note(v))
        for v in details.get("verdicts") or []
    ]


def item_view(number: int, record: dict) -> ItemView:
    rubric = record.get("rubric")
    rubric_text = ", ".join(rubric) if isinstance(rubric, list) else str(rubric)
    metrics = record_metrics(record)
    failed = record_failure(record)
    if not failed and any(m.status == "failed" for m in metrics):
        failed = "; ".join(f"{m.key}: {m.error or m.comment}" for m in metrics if m.status == "failed")
    view = ItemView(
        number=number, id=str(record.get("id")), line=record.get("line"), rubric=rubric_text,
        failed=str(failed) if failed else None, metrics=metrics, usage=record.get("usage") or {},
        result=json.dumps(record.get("result"), ensure_ascii=False, indent=2),
        citations=citation_views(record.get("result")),
    )
    details = record.get("details")
    if isinstance(details, dict):
        view.has_details = True
        item = details.get("item") if isinstance(details.get("item"), dict) else {}
        view.fields = _fields(item)
        view.claims = _claims(details)
        quotes = [c.evidence for c in view.claims if c.evidence]
        view.passages = [segments(text, quotes) for text in _passages(item)]
        view.nodes = [n for n in details.get("nodes") or [] if isinstance(n, dict)]
        view.profile = str(details["profile"]) if details.get("profile") else None
    return view


def build_report(path: Path, title: str | None = None) -> Report:
    records, bad = read_records(path)
    if bad and not records:  # items, not results: refused, as `compare` refuses them (exit 2)
        raise ReportError(f"{path} is not a judgegraph results file: none of its {bad:,} line(s) is a record "
                          "with a 'result' (to judge items: judgegraph evaluate ITEMS --out results.jsonl)")
    items = [item_view(number, record) for number, record in enumerate(records, 1)]
    summaries: dict[str, MetricSummary] = {}
    for item in items:
        for metric in item.metrics:
            summary = summaries.setdefault(metric.key, MetricSummary(metric.key, metric.rubric, scale=metric.scale))
            if metric.status == "judged":
                summary.judged += 1
                if isinstance(metric.score, (int, float)) and not isinstance(metric.score, bool):
                    summary.values.append(float(metric.score))
            elif metric.status == "not_applicable":
                summary.not_applicable += 1
            else:
                summary.failed += 1
    for summary in summaries.values():
        summary.bins = histogram(summary.values, summary.scale)
    totals: dict[str, float] = defaultdict(float)
    for item in items:
        for key in ("calls", "input_tokens", "output_tokens", "seconds"):
            value = item.usage.get(key)
            if isinstance(value, (int, float)):
                totals[key] += value
    rubrics = sorted({part.strip() for item in items for part in item.rubric.split(",")})
    escalation = EscalationTotals()
    for record in records:
        escalation.add(record)
    return Report(title=title or path.name, source=str(path), items=items, metrics=list(summaries.values()),
                  rubrics=rubrics, totals=dict(totals), unreadable_lines=bad,
                  conversations=conversation_summaries(records), escalation=escalation.lines())
