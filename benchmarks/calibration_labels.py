"""Write a bench set's rows of one part as a labels file for `judgegraph calibrate`.

    python -m benchmarks.calibration_labels halueval_qa --part tune -o halueval_tune.labels.jsonl

Why: `calibrate` reads user-shaped items (a rag item plus `human`), while the bench samples need
their set's item mapping (FaithBench's stand-in question, the metric selection; see
`benchmarks.datasets`). The `human` object is copied unchanged (its `hallucination`,
`binary_faithful` or `relevant` key is a documented label format). The data stays outside the
project: write the labels file outside the repository too.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from benchmarks.datasets import DEFAULT_DATA_ROOT, SETS, load_rows, sample_path, select_rows
from benchmarks.fetched import DEFAULT_MIRROR_ROOT
from benchmarks.multilingual_faithfulness import LOADERS, chosen_pairs, item_for, pair_id

NLI_SETS = {f"nli-{lang}": lang for lang in LOADERS}
"""The human-labelled NLI pairs of `benchmarks.multilingual_faithfulness`, one set per language
(entailment = faithful, contradiction = not), read from fetched snapshots. Each pair keeps the id
that benchmark gives it (`pair_id`), so the file also labels that benchmark's per-item
outputs (`benchmarks.reliability`)."""


def labelled_items(set_name: str, part: str, limit: int | None, data_root: Path = DEFAULT_DATA_ROOT) -> list[dict]:
    """The set's rows as labelled items; a row of a pair (MS MARCO's relevant and mined
    irrelevant passage of one query) names its pair as its `group`."""
    bench = SETS[set_name]
    rows = select_rows(load_rows(sample_path(set_name, data_root)), bench, limit, part)
    return [_labelled(row, bench.to_item) for row in rows]


def _labelled(row: dict, to_item: Callable[[dict], dict]) -> dict:
    """A bench row as a labelled item: its item mapping, its `human` object, and the row's pair
    (MS MARCO's and WikiQA's query) as its `group`."""
    pair = (row.get("meta") or {}).get("pair_id")
    return {"id": row["id"], **to_item(row), "human": row["human"], **({"group": pair} if pair is not None else {})}


def nli_labelled_items(set_name: str, part: str, limit: int | None,
                       mirror_root: Path = DEFAULT_MIRROR_ROOT) -> list[dict]:
    lang = NLI_SETS[set_name]
    rows = chosen_pairs(lang, mirror_root, part, limit if limit is not None else 10**9)
    return [{"id": pair_id(lang, row), **item_for(lang, row),
             "human": {"faithful": 1 if row["label"] == "entailment" else 0}} for row in rows]


WIKIQA = "wikiqa"
"""WikiQA's answer-relevance pairs (`benchmarks.wikiqa_relevance`), read from its fetched snapshot."""


def wikiqa_labelled_items(part: str, limit: int | None, mirror_root: Path = DEFAULT_MIRROR_ROOT) -> list[dict]:
    """The WikiQA pairs of `part` as labelled answer-relevance items, grouped by question."""
    from benchmarks import wikiqa_relevance

    rows = select_rows(wikiqa_relevance.load_rows(mirror_root), wikiqa_relevance.BENCH, limit, part)
    return [_labelled(row, wikiqa_relevance.to_item) for row in rows]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", choices=sorted(SETS) + sorted(NLI_SETS) + [WIKIQA])
    parser.add_argument("--part", choices=("tune", "report"), default="tune")
    parser.add_argument("--limit", type=int, default=None, help="at most this many rows, balanced by label")
    parser.add_argument("--data-root", type=Path, default=DEFAULT_DATA_ROOT)
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.set == WIKIQA:
        items = wikiqa_labelled_items(args.part, args.limit)
    elif args.set in NLI_SETS:
        items = nli_labelled_items(args.set, args.part, args.limit)
    else:
        items = labelled_items(args.set, args.part, args.limit, args.data_root)
    args.output.write_text("".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items), encoding="utf-8")
    print(f"wrote {len(items)} labelled {args.part} items of {args.set} to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
