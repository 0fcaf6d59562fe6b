"""The two record kinds the side-by-side writes, shared by every side and the summary.

Standard library only: a peer's worker imports this under the peers' venv.

A side writes one `ScoreRecord` per (item, metric) it judged; the counting proxy writes one
`CallRecord` per request it forwarded. They meet on `attempt`, a fresh id per (item, metric)
try, so calls of a try that was killed half-way and retried on resume are never counted
against the try that finished.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Literal, TypedDict

Side = Literal["ragas", "deepeval", "judgegraph"]
SIDES: tuple[Side, ...] = ("ragas", "deepeval", "judgegraph")
Metric = Literal["faithfulness", "answer_relevance", "context_relevance", "semantic_similarity"]
METRICS: tuple[Metric, ...] = ("faithfulness", "answer_relevance", "context_relevance", "semantic_similarity")
"""judgegraph's names; each side maps them to its own metric (`*_side.METRIC_NAMES`)."""
Status = Literal["ok", "nan", "failed", "not_computed"]
"""`nan`: the side returned NaN (or None) without raising; `failed`: it raised; `not_computed`:
the side has no metric of that kind (DeepEval has no similarity). Counted apart, never dropped."""


class PeerItem(TypedDict):
    """One item as every side receives it (built once by `items`, read from items-<set>.jsonl)."""

    id: str
    set: str
    question: str
    context: str
    answer: str
    reference: str | None
    metrics: list[Metric]
    human: dict
    meta: dict


class ScoreRecord(TypedDict):
    side: Side
    set: str
    item: str
    metric: Metric
    attempt: str
    status: Status
    score: float | None
    seconds: float
    """Wall seconds of the side's own call for this (item, metric), client overhead included."""
    error: str | None
    peer_metric: str
    """The side's own name of the metric (e.g. ragas `faithfulness`, deepeval `FaithfulnessMetric`)."""


CallKind = Literal["chat", "embeddings", "other"]


class CallRecord(TypedDict):
    kind: CallKind
    item: str | None
    metric: str | None
    attempt: str | None
    path: str
    http_status: int
    prompt_tokens: int | None
    completion_tokens: int | None
    cached_tokens: int | None
    seconds: float
    texts: int
    """Texts embedded (embeddings calls), else 0."""
    error: str | None


class Session(TypedDict):
    """What the proxy tags the requests it receives with, until the next session is set."""

    item: str | None
    metric: str | None
    attempt: str | None


def status_of(score: object) -> tuple[Status, float | None]:
    """`ok` with the float score, or `nan` for None / NaN / a non-number (a peer's quiet failure)."""
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        return "nan", None
    value = float(score)
    if math.isnan(value) or math.isinf(value):
        return "nan", None
    return "ok", value


def append_jsonl(path: Path, record: dict) -> None:
    """One JSON line, flushed: a killed run leaves at most a partial last line (`read_jsonl`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        handle.flush()


def read_jsonl(path: Path) -> list[dict]:
    """The complete lines of a JSONL file (a partial last line, left by a kill, is skipped)."""
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return records
