"""Answer relevance against people's labels: WikiQA pairs, graph vs single-prompt baseline.

    python -m benchmarks.wikiqa_relevance --model local [--part report] [--limit 60]
        [--methods baseline,graph,graph-labels] [--out-dir bench-out/wikiqa_relevance]

Data: the Microsoft Research WikiQA corpus (Yang, Yih and Meek, EMNLP 2015), read from a fetched
snapshot (`benchmarks.fetched`) of a repository that carries the release as distributed,
`WikiQACorpus/` (README, LICENSE.pdf, the crowd guidelines, the dev and test files). Questions are
Bing queries; the candidates are the sentences of the summary paragraph of a Wikipedia page, and
crowd workers marked each sentence that answers the question in isolation (a selection pass,
then a verification pass). The train file is over the snapshot's size limit and is not read.

Pairs, as for MS MARCO: for every question with at least one answer sentence and one other, one
row per side, the sentence people marked as answering and one they did not (each picked by a
salted hash of its sentence id, so the pick is neither file order nor the paragraph's lead
sentence). The pair shares a `pair_id` (the question id), so the split (`benchmarks.split`)
keeps it whole and `benchmarks.figures.ranking_figures` gives pairwise accuracy (ties count
1/2) and AUROC, with intervals that resample pairs.

The item is a `rag` item asking for answer_relevance only: the question, the sentence as the
answer, and as context the whole summary paragraph (its sentences in order), the text the crowd
read when it labelled (their guidelines say to judge a sentence with its pronouns resolved from
it). The graph's answer relevance reads the context only to decide whether a refusal was valid,
and no WikiQA sentence is a refusal, so the context mainly resolves "he" and "it" for the judge.

Both methods judge the same rows with the same model (`benchmarks.agreement.judge_rows`: the
baseline pass first, resumable per-item files under `--out-dir`); the report is written as
`agreement-wikiqa_answer_relevance-<part>.json` / `.md` and a JSON summary is printed.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import sys
from datetime import datetime, timezone
from pathlib import Path

from judgegraph.run.context import JudgeContext

from benchmarks.agreement import (
    add_snapshot_run_options,
    command_line,
    entry_summary,
    judge_rows,
    ordered_methods,
    usage_failure,
    write_entry_report,
)
from benchmarks.datasets import BenchSet, select_rows
from benchmarks.fetched import DEFAULT_MIRROR_ROOT, read_snapshot_file
from benchmarks.split import PARTS, SALT

SET_NAME = "wikiqa_answer_relevance"
REPO = "JasonRui/WikiQA-LSTM-Keras"
COMMIT = "0d6a84041d906458d48e4504a264d1c19d11a054"
FILES = ("WikiQACorpus/WikiQA-dev.tsv", "WikiQACorpus/WikiQA-test.tsv")
"""The release's dev and test files (2,733 and 6,165 sentences, 296 and 633 questions, as the
corpus README and the paper count them)."""
LABEL_ORIGIN = ("1 = crowd workers marked the sentence as answering the question in isolation; "
                "0 = a sentence of the same paragraph they did not mark (WikiQA, Yang et al. 2015)")


def to_item(row: dict) -> dict:
    return {"rubric": "rag", "question": row["question"], "context": row["context"], "answer": row["answer"],
            "metrics": ["answer_relevance"]}


BENCH = BenchSet(SET_NAME, "answer_relevance", "ranking", 60, to_item=to_item,
                 balance_key=lambda row: row["meta"]["pair_id"])
"""Not in `benchmarks.datasets.SETS`: its rows come from a snapshot, not a bench-data sample."""


def read_sentences(text: str) -> list[dict]:
    """The rows of a WikiQA .tsv (header: QuestionID Question DocumentID DocumentTitle
    SentenceID Sentence Label); quotes are text, not CSV quoting."""
    return list(csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))


def _pick(sentences: list[dict]) -> dict:
    """One of `sentences`, by a salted hash of its id: fixed, and independent of file order."""
    return min(sentences, key=lambda s: hashlib.sha256(f"{SALT}:wikiqa:{s['SentenceID']}".encode()).hexdigest())


def pair_rows(sentences: list[dict], source: str) -> list[dict]:
    """Two rows per question that has a sentence labelled 1 and one labelled 0, in file order:
    the positive first. `source` names the file (it goes into each row's meta)."""
    by_question: dict[str, list[dict]] = {}
    for sentence in sentences:
        by_question.setdefault(sentence["QuestionID"], []).append(sentence)
    rows = []
    for question_id, candidates in by_question.items():
        answers = [s for s in candidates if s["Label"] == "1"]
        others = [s for s in candidates if s["Label"] == "0"]
        if not answers or not others:
            continue
        first = candidates[0]
        context = " ".join(s["Sentence"] for s in candidates)
        for side, chosen in (("pos", _pick(answers)), ("neg", _pick(others))):
            rows.append({
                "id": f"{SET_NAME}:{question_id}:{side}",
                "question": first["Question"],
                "context": context,
                "answer": chosen["Sentence"],
                "human": {"relevant": int(chosen["Label"]), "label_origin": LABEL_ORIGIN},
                "meta": {"pair_id": question_id, "sentence_id": chosen["SentenceID"], "source": source},
            })
    return rows


def load_rows(mirror_root: Path = DEFAULT_MIRROR_ROOT) -> list[dict]:
    """Every pair of the dev and test files, dev first."""
    rows = []
    for path in FILES:
        rows += pair_rows(read_sentences(read_snapshot_file(REPO, COMMIT, path, mirror_root)), path)
    return rows


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.wikiqa_relevance", description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=PARTS, default="report")
    parser.add_argument("--limit", type=int, default=BENCH.default_limit,
                        help=f"items (two per pair; default {BENCH.default_limit}); 0 takes every pair of the part")
    parser.add_argument("--methods", default="baseline,graph",
                        help="comma-separated: graph, graph-labels (answer relevance's labels reply, graded), baseline")
    add_snapshot_run_options(parser, Path("bench-out/wikiqa_relevance"))
    return parser


def summary(entry: dict) -> dict:
    """The figures a reader wants first, per method."""
    return entry_summary(entry, ("pairs", "pairwise_accuracy", "pairwise_accuracy_ci", "auroc", "auroc_ci"))


def main(argv: list[str] | None = None, context: JudgeContext | None = None) -> int:
    """`context` replaces the model flags."""
    from judgegraph.commands.cli import UsageError, context_from_flags_or_usage_error

    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    try:
        methods = ordered_methods(args.methods)
        context = context or context_from_flags_or_usage_error(args)
    except (UsageError, ValueError) as error:
        return usage_failure(error)
    rows = select_rows(load_rows(args.mirror_root), BENCH, args.limit or None, args.part)
    started = datetime.now(timezone.utc)
    data = f"{REPO}@{COMMIT[:12]}:{','.join(FILES)}"
    entry = judge_rows(BENCH, rows, data, context, args, methods)
    return write_entry_report(entry, context, command_line("wikiqa_relevance", argv), args.part, started,
                              args.out_dir, f"agreement-{SET_NAME}-{args.part}", summary(entry))


if __name__ == "__main__":
    raise SystemExit(main())
