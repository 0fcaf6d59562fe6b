"""The four human-labelled samples: where they live, how a row becomes a judgegraph item.

The data stays outside the project (`../shared/bench-data`, beside the repository) and is
read at run time; nothing here copies it. Each set judges exactly one rag metric, selected
with the item's `metrics` key so the graph makes only that metric's calls, and the same
item goes to the single-prompt baseline.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.split import rows_in_part

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA_ROOT = REPO_ROOT.parent / "shared" / "bench-data"
"""`../shared/bench-data` relative to the project root."""

SUMMARY_QUESTION = "Summarize the source document."
"""FaithBench has no question (its answers are summaries of the context): a neutral stand-in."""
SIMILARITY_QUESTION = "What does the text say?"
"""STS-B pairs have no question or context: a neutral stand-in; the context is left empty."""
PLACEHOLDER_ANSWER = "(no answer given: judge the retrieved context only)"
"""MS MARCO rows have no answer; context relevance does not depend on it."""


@dataclass(frozen=True)
class BenchSet:
    """One folder of bench-data: the metric it tests and how its rows map to items."""

    name: str
    metric: str
    """The rag metric judged (also names the baseline template `benchmarks/prompts/baseline_<metric>.j2`)."""
    kind: str
    """Which agreement figures apply: "binary" (hallucination), "correlation", "ranking"."""
    default_limit: int
    """Items per run when --limit is not given: 60, balanced by label, the smallest sample on
    which a balanced accuracy is known to about ±0.12 (95 % bootstrap). On the embedded judge
    on 2 cores a full report run takes hours; it is resumable (`benchmarks.judging`)."""
    to_item: Callable[[dict], dict]
    balance_key: Callable[[dict], Any]
    """Rows are taken round-robin over these groups, so a small --limit keeps the classes
    (or score bands) balanced instead of taking the file's first rows."""


def _rag(row: dict, metric: str, **overrides: Any) -> dict:
    item = {
        "rubric": "rag",
        "question": row.get("question"),
        "context": row.get("context"),
        "answer": row.get("answer"),
        "metrics": [metric],
    }
    return item | overrides


def _stsb_band(row: dict) -> int:
    return min(int(row["human"]["score_0_5"]), 4)


SETS: dict[str, BenchSet] = {
    "halueval_qa": BenchSet(
        "halueval_qa", "faithfulness", "binary", 60,
        to_item=lambda row: _rag(row, "faithfulness"),
        balance_key=lambda row: row["human"]["hallucination"],
    ),
    "faithbench": BenchSet(
        "faithbench", "faithfulness", "binary", 60,
        to_item=lambda row: _rag(row, "faithfulness", question=SUMMARY_QUESTION),
        balance_key=lambda row: row["human"]["binary_faithful"],
    ),
    "stsb": BenchSet(
        "stsb", "semantic_similarity", "correlation", 60,
        to_item=lambda row: _rag(row, "semantic_similarity", question=SIMILARITY_QUESTION, context="",
                                 reference=row["reference"]),
        balance_key=_stsb_band,
    ),
    "msmarco_ctxrel": BenchSet(
        "msmarco_ctxrel", "context_relevance", "ranking", 60,
        to_item=lambda row: _rag(row, "context_relevance", answer=PLACEHOLDER_ANSWER),
        balance_key=lambda row: row["meta"]["pair_id"],
    ),
}


def hallucinated(row: dict) -> bool:
    """The human label of the binary sets: True when the answer is not faithful."""
    human = row["human"]
    if "hallucination" in human:
        return human["hallucination"] == "yes"
    return human["binary_faithful"] == 0


def set_for_path(path: Path) -> BenchSet:
    """The set a sample file belongs to, from its folder name (`.../stsb/sample.jsonl`)."""
    folder = path.parent.name if path.suffix == ".jsonl" else path.name
    try:
        return SETS[folder]
    except KeyError:
        raise ValueError(f"unknown benchmark set {folder!r} (known: {', '.join(SETS)})") from None


def sample_path(name: str, data_root: Path = DEFAULT_DATA_ROOT) -> Path:
    return data_root / name / "sample.jsonl"


def load_rows(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def select_rows(rows: list[dict], bench: BenchSet, limit: int | None, part: str = "report") -> list[dict]:
    """The first `limit` rows of `part` (`benchmarks.split`), taken round-robin over the
    balance groups in file order, so the classes (or score bands) stay balanced.

    For MS MARCO the groups are the pairs, taken whole: a positive without its negative would
    make pairwise accuracy undefined, so the limit is rounded up to an even number.
    """
    rows = rows_in_part(bench.name, rows, part)
    if limit is None or limit >= len(rows):
        return list(rows)
    groups: dict[Any, list[dict]] = {}
    for row in rows:
        groups.setdefault(bench.balance_key(row), []).append(row)
    if bench.kind == "ranking":
        pairs = [members for members in groups.values() if len(members) == 2]
        return [row for members in pairs[: (limit + 1) // 2] for row in members]
    queues = list(groups.values())
    chosen: list[dict] = []
    depth = 0
    while len(chosen) < limit:
        layer = [queue[depth] for queue in queues if depth < len(queue)]
        if not layer:
            break
        chosen.extend(layer[: limit - len(chosen)])
        depth += 1
    return chosen
