"""Citation recall against people's attribution labels: AttributionBench, graph vs one-prompt baseline.

    python -m benchmarks.citation_agreement --model local [--part tune|report] [--limit 60]
        [--file id|ood] [--distractors 1] [--methods baseline,graph] [--out-dir bench-out/citations]

Data: AttributionBench (Li et al., 2024, "How Hard is Automatic Attribution Evaluation?"), read
from a fetched snapshot (`benchmarks.fetched`) of OSU-NLP-Group/AttributionBench at a pinned
commit, never copied into the project. Each row is one claim of a generative search engine's or
an LLM's answer, the references it cites, and a human label: "attributable" (the cited
references fully support the claim) or "not attributable". The labels are the source data
sets' human annotations, unified: the in-distribution test file (`--file id`, 500 rows sampled by
the authors, balanced per source) holds ExpertQA (experts judged each claim against its
evidence), Stanford-GenSearch (Liu et al., 2023, "Evaluating Verifiability in Generative Search
Engines": annotators judged each cited sentence), AttributedQA and LFQA; the out-of-distribution
file (`--file ood`) holds HAGRID, BEGIN and AttrScore-GenSearch (rows without a reference are
left out, counted in the report). The repository has no licence file; its sources are ExpertQA
(MIT), HAGRID (Apache-2.0) and the others' own terms: read, never redistributed here.

How a row becomes a cited rag item (the claim as the answer, its references as the passages):
the claim's own markers (numbered in the original answer, not here) are removed, and every
sentence of the claim cites every reference (`[1]`, or `[1, 2, ...]`), so the label is the
sentence's citation support. With `--distractors 1` (the default) one reference of another row
is added after them, *uncited*: a claim its check decides on that passage is not supported by
its citations, which is what the citation metric adds to faithfulness. The item asks for
`citation_recall` only (its claim checks are the only calls).

How labels map: "attributable" = 1 (every sentence supported by its citations: citation recall
1.0), "not attributable" = 0. The graph's decision: not attributable when its citation recall is
below 1.0 (a sentence its citations do not support), fixed before any report run; the baseline's:
score < 0.5. Both get AUROC and the fixed-threshold balanced accuracies with bootstrap intervals
(`benchmarks.figures.binary_figures`). Citation *precision* has no per-citation human labels
in any set fetchable here (ALCE's human citation judgments and ExpertQA's per-claim file are over
the snapshot size limit), so it is not measured against people.

The split is `benchmarks.split`'s, by row id (set name `attributionbench_citations`): tune rows
for the two rule settings (`nodes.citations.support.CitationParameters`), report rows for the
figures.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

from judgegraph.run.context import JudgeContext
from judgegraph.text.citation_markers import strip_markers
from judgegraph.text.sentences import split_sentences

from benchmarks.agreement import (
    add_snapshot_run_options,
    command_line,
    entry_summary,
    ordered_methods,
    usage_failure,
    write_entry_report,
)
from benchmarks.datasets import BenchSet, select_rows
from benchmarks.fetched import DEFAULT_MIRROR_ROOT, read_snapshot_file
from benchmarks.figures import binary_figures, cost
from benchmarks.judging import ItemOutcome, run_method
from benchmarks.split import PARTS

SET_NAME = "attributionbench_citations"
REPO = "OSU-NLP-Group/AttributionBench"
COMMIT = "b33329b29946b791649cf66d33e10b5a5bbdc44d"
FILES = {"id": "data/test_all_subset_balanced_sampled500.jsonl", "ood": "data/test_ood_all_subset_balanced.jsonl"}
LABELS = {"attributable": 1, "not attributable": 0}
LABEL_ORIGIN = ("1 = people judged the claim fully supported by the references it cites ('attributable'), "
                "0 = not ('not attributable'): AttributionBench's unified labels from its source sets' annotators")
METRIC = "citation_recall"
END_MARKS = ".!?。！？"


def cite(claim: str, references: int) -> str:
    """The claim with its own markers removed and each sentence citing passages 1..`references`
    before its end mark."""
    marker = "[1]" if references == 1 else "[" + ", ".join(str(n) for n in range(1, references + 1)) + "]"
    sentences = split_sentences(strip_markers(claim)) or [claim.strip()]
    cited = []
    for sentence in sentences:
        body = sentence.rstrip()
        end = ""
        while body and body[-1] in END_MARKS:
            body, end = body[:-1], body[-1] + end
        cited.append(f"{body.rstrip()} {marker}{end or '.'}")
    return " ".join(cited)


def to_rows(records: list[dict], source: str, distractors: int = 1) -> tuple[list[dict], int]:
    """The benchmark's rows from AttributionBench records, in file order, and how many records
    were left out (no reference, no claim, or a label other than the two). A distractor is the
    first reference of the next usable record (the first one's for the last)."""
    usable = [r for r in records if r.get("attribution_label") in LABELS and (r.get("claim") or "").strip()
              and [ref for ref in r.get("references") or [] if isinstance(ref, str) and ref.strip()]]
    rows = []
    for position, record in enumerate(usable):
        references = [ref for ref in record["references"] if isinstance(ref, str) and ref.strip()]
        others = [usable[(position + step) % len(usable)] for step in range(1, len(usable))]
        extra = [next(ref for ref in other["references"] if isinstance(ref, str) and ref.strip())
                 for other in others if other["id"] != record["id"]][:distractors]
        rows.append({
            "id": f"{SET_NAME}:{record['id']}",
            "question": record.get("question") or "",
            "answer": cite(record["claim"], len(references)),
            "context": references + extra,
            "human": {"binary_faithful": LABELS[record["attribution_label"]], "label_origin": LABEL_ORIGIN},
            "meta": {"source": record.get("src_dataset"), "cited": len(references), "distractors": len(extra),
                     "file": source},
        })
    return rows, len(records) - len(usable)


def to_item(row: dict) -> dict:
    return {"rubric": "rag", "question": row["question"], "context": row["context"], "answer": row["answer"],
            "metrics": [METRIC]}


BENCH = BenchSet(SET_NAME, METRIC, "binary", 60, to_item=to_item,
                 balance_key=lambda row: (row["meta"]["source"], row["human"]["binary_faithful"]))
"""Not in `benchmarks.datasets.SETS`: its rows come from a snapshot, not a bench-data sample."""


def load_rows(file: str = "id", distractors: int = 1, mirror_root: Path = DEFAULT_MIRROR_ROOT) -> tuple[list[dict], int]:
    text = read_snapshot_file(REPO, COMMIT, FILES[file], mirror_root)
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    return to_rows(records, FILES[file], distractors)


def decisions(method: str, outcomes: list[ItemOutcome]) -> list[bool | None]:
    """The graph's fixed decision (module doc): not attributable when citation recall < 1.0;
    None for the baseline, which `binary_figures` reads as score < 0.5."""
    return [(o.score < 1.0) if method == "graph" and o.score is not None else None for o in outcomes]


def agreement_figures(method: str, rows: list[dict], outcomes: list[ItemOutcome]) -> dict:
    """Figures over the judged rows (failures counted in `cost`), with a per-source breakdown."""
    judged = [(row, o) for row, o in zip(rows, outcomes) if not o.failed and o.score is not None]

    def figures(chosen: list[tuple[dict, ItemOutcome]]) -> dict:
        if not chosen:
            return {"n": 0}
        selected_rows = [row for row, _ in chosen]
        found = binary_figures(selected_rows, [float(o.score) for _, o in chosen], decisions(method, [o for _, o in chosen]))
        found["decision_rule"] = "citation recall < 1.0" if method == "graph" else "score < 0.5"
        return found

    result = figures(judged)
    result["sources"] = {source: figures([(r, o) for r, o in judged if r["meta"]["source"] == source])
                         for source in sorted({row["meta"]["source"] for row in rows})}
    return result


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.citation_agreement", description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=PARTS, default="report")
    parser.add_argument("--limit", type=int, default=BENCH.default_limit,
                        help=f"items (default {BENCH.default_limit}, balanced by source and label); 0 takes the whole part")
    parser.add_argument("--file", choices=sorted(FILES), default="id", help="in-distribution or out-of-distribution test file")
    parser.add_argument("--distractors", type=int, default=1, help="uncited passages added from other rows (0 or more)")
    parser.add_argument("--methods", default="baseline,graph", help="comma-separated: graph, baseline")
    add_snapshot_run_options(parser, Path("bench-out/citations"))
    return parser


def judge(rows: list[dict], context: JudgeContext, args: argparse.Namespace, methods: list[str], data: str) -> dict:
    """Each method over the same rows (the baseline first); the set's report entry."""
    items = [(row["id"], to_item(row)) for row in rows]
    local = context.model_id.startswith("local:")
    entry: dict = {"set": SET_NAME, "metric": METRIC, "kind": "binary", "data": data, "part": args.part,
                   "limit": len(rows), "methods": {}}
    for method in methods:
        items_path = args.out_dir / f"items-{SET_NAME}-{args.file}-{args.part}-{method}.jsonl"
        outcomes, wall = run_method(method, context, METRIC, items, concurrency=args.concurrency or (1 if local else 4),
                                    graph_concurrency=1 if local else 8, label=SET_NAME, items_path=items_path)
        entry["methods"][method] = {"agreement": agreement_figures(method, rows, outcomes),
                                    "cost": cost(outcomes, wall), "items_file": items_path.name}
    return entry


def summary(entry: dict) -> dict:
    keys = ("n", "balanced_accuracy_decision", "balanced_accuracy_decision_ci", "auroc", "auroc_ci")
    return entry_summary(entry, keys, left_out=entry.get("left_out"))


def main(argv: list[str] | None = None, context: JudgeContext | None = None) -> int:
    """`context` replaces the model flags (tests pass a scripted judge)."""
    from judgegraph.commands.cli import UsageError, context_from_flags_or_usage_error

    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    try:
        methods = ordered_methods(args.methods)
        if args.distractors < 0:
            raise ValueError("--distractors takes 0 or more")
        context = context or context_from_flags_or_usage_error(args)
    except (UsageError, ValueError) as error:
        return usage_failure(error)
    all_rows, left_out = load_rows(args.file, args.distractors, args.mirror_root)
    rows = select_rows(all_rows, BENCH, args.limit or None, args.part)
    started = datetime.now(timezone.utc)
    entry = judge(rows, context, args, methods, f"{REPO}@{COMMIT[:12]}:{FILES[args.file]}")
    entry["left_out"] = left_out
    return write_entry_report(entry, context, command_line("citation_agreement", argv), args.part, started,
                              args.out_dir, f"agreement-{SET_NAME}-{args.file}-{args.part}", summary(entry))


if __name__ == "__main__":
    raise SystemExit(main())
