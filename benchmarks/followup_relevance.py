"""Context relevance on follow-up questions against people's labels: TREC CAsT 2021 passages.

    python -m benchmarks.followup_relevance --model local [--part report] [--limit 30]
        [--methods last_turn,graph,rewrite] [--mirror-root ../.mirror]
        [--out-dir bench-out/followup_relevance] [--dry-run]

Why: issue #32 asks that relevance on follow-up questions ("How deadly is it?") be above what
judging the last turn alone gives. This measures it with labels made by people, pairwise.

Data: the TREC CAsT 2021 manual topics, read through `benchmarks.conversation_agreement` (the
same fetched snapshot of `daltonj/treccastweb`, the same rows: every turn after a topic's first,
with its history). In 2021 each turn carries its canonical passage (`passage`): the passage the
organisers chose as the answer to that turn. That choice is the human label:

- label 1: the turn's own canonical passage;
- label 0: the canonical passage of another turn of the same topic: the next turn's when the
  turn has a next turn with a passage, else the previous turn's. Same topic, so the passage is
  on the subject of the conversation and only the resolved question tells the two apart (a hard
  negative; it may hold part of the answer, which pairwise accuracy tolerates better than an
  absolute threshold would);
- a pair whose two passages are identical (the organisers chose one passage for two turns)
  says nothing and is skipped; so is a turn with no other passage. Both are counted.

A pair's two items go into one part (`conversation_agreement.rows_of_part`, split by
conversation under that benchmark's set name), so the tune / report conversations are the
same as for the standalone-question benchmark: a prompt tuned on tune conversations there has
not seen these report conversations either.

Items: `rag`, `metrics: ["context_relevance"]`, context = [the passage], answer =
`benchmarks.datasets.PLACEHOLDER_ANSWER` (context relevance does not read it). Methods, both
items of a pair judged by the same one, the same model and rows:
- `last_turn`: the follow-up as the question, no history: what judging the last turn alone gives;
- `graph`: the follow-up as the question with the turn's history (earlier user turns and their
  canonical passages as assistant messages), so judgegraph writes the standalone question first
  (one more call per item) and judges that;
- `rewrite`: the organisers' manual rewrite as the question, no history: the ceiling a perfect
  standalone question would reach.

Figures per method (`benchmarks.figures`): pairwise accuracy (own passage scored above the
other, ties 1/2) and AUROC with bootstrap 95 % intervals resampling pairs, failed items, calls
and tokens per item; and the paired difference of pairwise accuracy to `last_turn` on the pairs
both methods judged, with its paired bootstrap interval. Per-item outcomes are kept under
`--out-dir` (`items-<set>-<part>-<method>.jsonl`), so the same command resumes; the report is
`agreement-<set>-<part>.json` / `.md`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import TypedDict

from judgegraph import stats
from judgegraph.run.context import JudgeContext

from benchmarks import conversation_agreement as conversations
from benchmarks import report
from benchmarks.agreement import add_snapshot_run_options, command_line, report_of, usage_failure
from benchmarks.datasets import PLACEHOLDER_ANSWER, BenchSet
from benchmarks.fetched import DEFAULT_MIRROR_ROOT
from benchmarks.figures import agreement, cost, query_pairs
from benchmarks.judging import ItemOutcome, run_method
from benchmarks.split import PARTS

SET_NAME = "cast2021_followup_relevance"
SOURCE = "cast2021"
METHODS = ("last_turn", "graph", "rewrite")
DEFAULT_LIMIT = 30
"""Pairs per run when --limit is not given (60 items per method)."""
LABEL_ORIGIN = ("1 = the canonical passage TREC CAsT 2021's organisers chose as the answer to this turn; "
                "0 = the canonical passage of another turn of the same topic (the next turn's, else the previous)")


class Pair(TypedDict):
    """One follow-up turn and its two passages (own: label 1, other: label 0)."""

    id: str
    followup: str
    rewrite: str
    history: list[dict[str, str]]
    own: str
    other: str
    other_turn: str
    meta: dict[str, str]


class PairSet(TypedDict):
    pairs: list[Pair]
    identical: int
    """Turns whose other passage was the same text as their own (skipped)."""
    no_other: int
    """Turns with neither a next nor a previous turn with a passage (skipped)."""


# --- the pairs --------------------------------------------------------------------------------

def _source() -> tuple[str, str, str, str]:
    return next(source for source in conversations.SOURCES if source[0] == SOURCE)


def topic_passages(topics: list[dict], name: str, reply_key: str) -> dict[str, list[tuple[str, str | None]]]:
    """Per conversation (`<name>:<topic>`), its turns in order as (row id, canonical passage)."""
    passages: dict[str, list[tuple[str, str | None]]] = {}
    for topic in topics:
        turns = passages.setdefault(f"{name}:{topic['number']}", [])
        for turn in topic.get("turn") or []:
            passage = turn.get(reply_key)
            turns.append((f"{name}:{topic['number']}:{turn['number']}",
                          passage if isinstance(passage, str) and passage.strip() else None))
    return passages


def _other_passage(turns: list[tuple[str, str | None]], position: int) -> tuple[str, str] | None:
    """The next turn's (row id, passage) when it has a passage, else the previous turn's."""
    for neighbour in (position + 1, position - 1):
        if 0 <= neighbour < len(turns) and turns[neighbour][1] is not None:
            return turns[neighbour]  # type: ignore[return-value]
    return None


def build_pairs(rows: list[dict], passages: dict[str, list[tuple[str, str | None]]]) -> PairSet:
    """A pair per row (a follow-up turn) with its own passage; identical or missing others counted."""
    pairs: list[Pair] = []
    identical = no_other = 0
    for row in rows:
        turns = passages[row["meta"]["conversation"]]
        position = [turn_id for turn_id, _ in turns].index(row["id"])
        own = turns[position][1]
        other = _other_passage(turns, position)
        if own is None or other is None:
            no_other += 1
            continue
        if own.strip() == other[1].strip():
            identical += 1
            continue
        pairs.append(Pair(id=row["id"], followup=row["followup"], rewrite=row["rewrite"], history=row["history"],
                          own=own, other=other[1], other_turn=other[0],
                          meta={"conversation": row["meta"]["conversation"], "pair_id": row["id"]}))
    return PairSet(pairs=pairs, identical=identical, no_other=no_other)


def load_pairs(mirror_root: Path = DEFAULT_MIRROR_ROOT) -> PairSet:
    """Every pair of the 2021 topics, in file order."""
    name, path, question_key, reply_key = _source()
    topics = conversations.read_topics(path, mirror_root)
    rows = conversations.conversation_rows(topics, name, question_key, reply_key)
    return build_pairs(rows, topic_passages(topics, name, reply_key))


def pairs_of_part(pairs: list[Pair], part: str, limit: int | None) -> list[Pair]:
    """The first `limit` pairs of `part`, split by conversation as the standalone-question rows are."""
    return conversations.rows_of_part(pairs, part, limit)  # type: ignore[arg-type, return-value]


# --- the items --------------------------------------------------------------------------------

def item_rows(pair: Pair) -> list[dict]:
    """The pair's two rows, own passage first, labelled as `benchmarks.figures` reads them."""
    return [{"id": f"{pair['id']}:{side}", "pair": pair, "passage": passage,
             "human": {"relevant": label, "label_origin": LABEL_ORIGIN},
             "meta": {**pair["meta"], "side": side}}
            for side, passage, label in (("own", pair["own"], 1), ("other", pair["other"], 0))]


def to_item(method: str) -> Callable[[dict], dict]:
    """The rag item a method judges for a row: only `graph` carries the history."""
    def item(row: dict) -> dict:
        pair: Pair = row["pair"]
        built = {"rubric": "rag", "question": pair["rewrite"] if method == "rewrite" else pair["followup"],
                 "context": [row["passage"]], "answer": PLACEHOLDER_ANSWER, "metrics": ["context_relevance"]}
        if method == "graph":
            built["history"] = pair["history"]
        return built
    return item


BENCH = BenchSet(SET_NAME, "context_relevance", "ranking", DEFAULT_LIMIT, to_item=to_item("last_turn"),
                 balance_key=lambda row: row["meta"]["pair_id"])
"""The set as `benchmarks.figures.agreement` reads it (kind `ranking`); each method's items come
from `to_item(method)`."""


# --- judging and figures ----------------------------------------------------------------------

def judge_method(method: str, rows: list[dict], context: JudgeContext, args: argparse.Namespace) -> tuple[dict, list[ItemOutcome]]:
    """Every row judged by the graph with `method`'s items; its report part and its outcomes."""
    items = [(row["id"], to_item(method)(row)) for row in rows]
    local = context.model_id.startswith("local:")
    items_path = args.out_dir / f"items-{SET_NAME}-{args.part}-{method}.jsonl"
    outcomes, wall = run_method("graph", context, BENCH.metric, items, concurrency=args.concurrency or (1 if local else 4),
                                graph_concurrency=1 if local else 8, label=f"{SET_NAME} {method}", items_path=items_path)
    return {"agreement": agreement(BENCH, rows, outcomes), "cost": cost(outcomes, wall),
            "items_file": items_path.name}, outcomes


def paired_difference(rows: list[dict], baseline: list[ItemOutcome], candidate: list[ItemOutcome]) -> dict:
    """candidate - baseline pairwise accuracy on the pairs whose two items both methods judged,
    with a paired bootstrap interval resampling those pairs."""
    def judged(outcome: ItemOutcome) -> bool:
        return not outcome.failed and outcome.score is not None

    sides: dict[str, int] = {}
    for row, a, b in zip(rows, baseline, candidate):
        sides[row["meta"]["pair_id"]] = sides.get(row["meta"]["pair_id"], 0) + (judged(a) and judged(b))
    kept = [n for n, row in enumerate(rows) if sides[row["meta"]["pair_id"]] == 2]
    chosen = [rows[n] for n in kept]
    before = query_pairs(chosen, [float(baseline[n].score) for n in kept])  # type: ignore[arg-type]
    after = query_pairs(chosen, [float(candidate[n].score) for n in kept])  # type: ignore[arg-type]

    def accuracy(pairs):
        return lambda sample: stats.pairwise_accuracy([pairs[i] for i in sample])

    everything = range(len(before))
    low_high = stats.paired_bootstrap_interval(accuracy(before), accuracy(after), len(before))
    difference = (accuracy(after)(everything) - accuracy(before)(everything)) if before else None
    return {"pairs": len(before), "difference": None if difference is None else round(difference, 3),
            "difference_ci": [round(low_high[0], 3), round(low_high[1], 3)] if low_high else None}


def differences_markdown(entry: dict) -> str:
    lines = ["", "Paired difference of pairwise accuracy to `last_turn` (pairs both methods judged):", "",
             "| method | pairs | difference | 95 % CI |", "|---|---|---|---|"]
    for method, data in entry["methods"].items():
        if "minus_last_turn" in data:
            d = data["minus_last_turn"]
            lines.append(f"| {method} | {d['pairs']} | {d['difference']} | {d['difference_ci']} |")
    return "\n".join(lines) + "\n" if len(lines) > 5 else ""


def ordered(text: str) -> list[str]:
    methods = [m.strip() for m in text.split(",") if m.strip()]
    if not methods or any(m not in METHODS for m in methods):
        raise ValueError(f"--methods takes {', '.join(METHODS)}, got {text!r}")
    return [m for m in METHODS if m in methods]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.followup_relevance", description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=PARTS, default="report")
    parser.add_argument("--limit", type=int, default=DEFAULT_LIMIT,
                        help=f"pairs of the part (two items each; default {DEFAULT_LIMIT}); 0 takes every pair")
    parser.add_argument("--methods", default=",".join(METHODS), help=f"comma-separated: {', '.join(METHODS)}")
    parser.add_argument("--dry-run", action="store_true", help="print the part's pair counts and judge nothing")
    add_snapshot_run_options(parser, Path("bench-out/followup_relevance"))
    return parser


def main(argv: list[str] | None = None, context: JudgeContext | None = None) -> int:
    """`context` replaces the model flags (tests pass a scripted judge)."""
    from judgegraph.commands.cli import UsageError, context_from_flags_or_usage_error

    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    try:
        methods = ordered(args.methods)
    except ValueError as error:
        return usage_failure(error)
    loaded = load_pairs(args.mirror_root)
    pairs = pairs_of_part(loaded["pairs"], args.part, args.limit or None)
    counts = {"pairs": len(pairs), "pairs_in_part": len(pairs_of_part(loaded["pairs"], args.part, None)),
              "pairs_all_parts": len(loaded["pairs"]), "skipped_identical": loaded["identical"],
              "skipped_no_other": loaded["no_other"]}
    if args.dry_run:
        print(json.dumps({"set": SET_NAME, "part": args.part, **counts}, indent=2))
        return 0
    try:
        context = context or context_from_flags_or_usage_error(args)
    except UsageError as error:
        return usage_failure(error)
    rows = [row for pair in pairs for row in item_rows(pair)]
    started = datetime.now(timezone.utc)
    entry: dict = {"set": SET_NAME, "metric": BENCH.metric, "kind": BENCH.kind, "part": args.part,
                   "data": f"{conversations.REPO}@{conversations.COMMIT[:12]}:{_source()[1]}", "limit": len(rows),
                   "label_origin": LABEL_ORIGIN, **counts, "methods": {}}
    outcomes: dict[str, list[ItemOutcome]] = {}
    for method in methods:
        entry["methods"][method], outcomes[method] = judge_method(method, rows, context, args)
    for method in methods:
        if method != "last_turn" and "last_turn" in outcomes:
            entry["methods"][method]["minus_last_turn"] = paired_difference(rows, outcomes["last_turn"], outcomes[method])
    result = report_of([entry], context, command_line("followup_relevance", argv), args.part, started)
    stem = f"agreement-{SET_NAME}-{args.part}"
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / f"{stem}.json").write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    (args.out_dir / f"{stem}.md").write_text(report.markdown(result) + differences_markdown(entry), encoding="utf-8")
    print(json.dumps(summary(entry), indent=2))
    return 0


def summary(entry: dict) -> dict:
    """The figures a reader wants first, per method."""
    keys = ("pairs", "pairwise_accuracy", "pairwise_accuracy_ci", "auroc", "auroc_ci")
    return {"set": entry["set"], "part": entry["part"], "pairs": entry["pairs"],
            "skipped_identical": entry["skipped_identical"], "methods": {
                method: {**{key: data["agreement"].get(key) for key in keys},
                         **{key: data["cost"][key] for key in ("judged", "failed", "calls_per_item",
                                                               "input_tokens_per_item", "output_tokens_per_item")},
                         **({"minus_last_turn": data["minus_last_turn"]} if "minus_last_turn" in data else {})}
                for method, data in entry["methods"].items()}}


if __name__ == "__main__":
    raise SystemExit(main())
