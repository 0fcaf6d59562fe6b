"""The items of the side-by-side, built once in judgegraph's venv and read by every side.

Which rows: the report part of the fixed split (`benchmarks.split`), taken the way the
agreement benchmarks take them (`benchmarks.datasets.select_rows`, balanced by label, pairs
whole), so the human labels and figures are comparable with the published ones:

- `halueval`: 20 HaluEval QA report rows as full rag items (question, context, answer, and
  the gold answer as reference), judged on all four metrics; only faithfulness has a human
  label (hallucinated or not), similarity is compared with it too (the reference is the gold
  answer, so a hallucinated answer should be less similar to it);
- `wikiqa`: the WikiQA report pairs (`benchmarks.wikiqa_relevance`), answer relevance;
- `msmarco`: the MS MARCO report pairs, context relevance; the rows have no answer, so every
  side gets judgegraph's placeholder answer (`benchmarks.datasets.PLACEHOLDER_ANSWER`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from benchmarks.datasets import DEFAULT_DATA_ROOT, PLACEHOLDER_ANSWER, SETS, BenchSet, load_rows, sample_path, select_rows
from benchmarks.fetched import DEFAULT_MIRROR_ROOT
from benchmarks.peers.records import METRICS, Metric, PeerItem, read_jsonl


@dataclass(frozen=True)
class PeerSet:
    name: str
    bench: str
    """The bench-data set (or WikiQA's) its rows and split come from."""
    metrics: tuple[Metric, ...]
    default_limit: int


PEER_SETS: dict[str, PeerSet] = {
    "halueval": PeerSet("halueval", "halueval_qa", METRICS, 20),
    "wikiqa": PeerSet("wikiqa", "wikiqa_answer_relevance", ("answer_relevance",), 60),
    "msmarco": PeerSet("msmarco", "msmarco_ctxrel", ("context_relevance",), 60),
}


def peer_item(peer_set: PeerSet, row: dict) -> PeerItem:
    return {
        "id": row["id"], "set": peer_set.name, "question": row.get("question") or "",
        "context": row.get("context") or "", "answer": row.get("answer") or PLACEHOLDER_ANSWER,
        "reference": row.get("reference"), "metrics": list(peer_set.metrics),
        "human": row.get("human") or {}, "meta": row.get("meta") or {},
    }


def bench_and_rows(peer_set: PeerSet, data_root: Path, mirror_root: Path) -> tuple[BenchSet, list[dict]]:
    if peer_set.bench == "wikiqa_answer_relevance":
        from benchmarks import wikiqa_relevance  # deferred: it reads a fetched snapshot

        return wikiqa_relevance.BENCH, wikiqa_relevance.load_rows(mirror_root)
    return SETS[peer_set.bench], load_rows(sample_path(peer_set.bench, data_root))


def build_items(set_name: str, limit: int | None = None, *, data_root: Path = DEFAULT_DATA_ROOT,
                mirror_root: Path = DEFAULT_MIRROR_ROOT, part: str = "report") -> list[PeerItem]:
    """The set's items: `limit` rows of `part` (default: the set's own default, 0 = all)."""
    peer_set = PEER_SETS[set_name]
    bench, rows = bench_and_rows(peer_set, data_root, mirror_root)
    chosen = peer_set.default_limit if limit is None else (limit or None)
    return [peer_item(peer_set, row) for row in select_rows(rows, bench, chosen, part)]


def write_items(items: list[PeerItem], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items), encoding="utf-8")


class ItemsMismatch(ValueError):
    """An existing items file is not the start of the items a run asks for."""


def items_for_run(path: Path, wanted: list[PeerItem] | None) -> str:
    """Make `path` hold the items a run judges, and say what was done.

    `wanted` is None when the run names no `--limit`: an existing file is the run being resumed
    and is kept as it is. Otherwise the file must hold the first of the wanted items: equal, it is
    kept; shorter (the same run asked for more rows), it is extended and the scores already
    written stay valid. Anything else (fewer rows asked for, other rows) raises ItemsMismatch:
    resuming it would mix two runs' items in one summary, silently."""
    if not path.exists():
        if wanted is None:
            raise ItemsMismatch(f"{path} does not exist")
        write_items(wanted, path)
        return f"wrote {len(wanted)} items to {path}"
    if wanted is None:
        return f"resuming the {len(read_jsonl(path))} items of {path}"
    have = [item["id"] for item in read_jsonl(path)]
    want = [item["id"] for item in wanted]
    if have == want:
        return f"resuming the {len(have)} items of {path}"
    if want[:len(have)] == have:
        write_items(wanted, path)
        return f"extended {path} from {len(have)} to {len(want)} items (scores already written are kept)"
    raise ItemsMismatch(f"{path} holds {len(have)} items that are not the first of the {len(want)} asked for; "
                        "use another --out-dir, or delete the folder's files of this set to start again")
