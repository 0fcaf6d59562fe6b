"""Faithfulness per language, on human-labelled NLI pairs read from fetched snapshots.

    python -m benchmarks.multilingual_faithfulness --model local [--langs en,es,de,zh,ja,ru]
        [--limit 16] [--part report] [--out-dir bench-out/multilingual_faithfulness]

An NLI pair is a one-claim RAG item: the premise is the context, the hypothesis the answer, and
the question a neutral "what does the text say?" in the pair's language. People's label gives
the truth: entailment is a faithful answer, contradiction a hallucinated one. Neutral pairs are
left out (an answer that adds what the context does not say is unfaithful by the seed's rule,
but NLI annotators split on such pairs far more than on the two others), except for Russian,
whose only set here is binary.

What could be had (docs/benchmarks.md says more):
- es and en: esXNLI (Artetxe et al. 2020), pairs written and labelled in Spanish with their
  professional English translation: the **parallel** pair, the same items in two languages;
- de: XNLI dev (German, professional translation of English MNLI-style pairs) via XGLUE;
- zh: OCNLI dev (native Chinese, 5 annotators); ja: JNLI valid v1.3 (native Japanese, JGLUE);
- ru: LiDiRus (Russian GLUE diagnostic), the majority of 4-5 crowd votes per pair from the
  human-baseline run (entailment / not_entailment), not the official gold;
- fr: RTE3-FR dev (Skandalis et al. 2024), the RTE-3 dev pairs (news passages from IE, IR, QA
  and summarisation) translated into French by hand, the three-way labels people gave the
  English pairs (RTE-3's pilot task) carried over;
- ko: KLUE-NLI dev v1.1 (native Korean: premises from Korean sources, hypotheses written by
  crowdworkers; the gold label is the majority of the writer's and four validators' labels).
The full XNLI in 15 languages (so XNLI-fr and XNLI-ar), X-FACT, mFACE and mFACT were not
reachable from here; nor was an Arabic set fit to use (the one fetchable copy of ArbTE is binary
and split into clitics, "ل كرة القدم", text no user writes).

Split: each pair's part comes from a salted hash of "nli:<lang>:<id>" (`benchmarks.split`);
the first `--limit` pairs of the part are taken, alternating the two labels.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from judgegraph.stats import auroc, balanced_accuracy, bootstrap_interval

from benchmarks.fetched import DEFAULT_MIRROR_ROOT, read_snapshot_file
from benchmarks.judging import add_judge_run_options, run_method
from benchmarks.split import PARTS, part_of

THRESHOLD = 0.5
QUESTIONS = {
    "en": "What does the text say?", "es": "¿Qué dice el texto?", "de": "Was sagt der Text?",
    "fr": "Que dit le texte ?", "zh": "文中说了什么？", "ja": "本文には何と書かれていますか？",
    "ru": "Что говорится в тексте?", "ko": "이 글은 무엇을 말하고 있나요?",
}


def _esxnli(lang: str, root: Path) -> list[dict]:
    text = read_snapshot_file("artetxem/esxnli", "b03a5a4d4db700deaa7dd6cf5d4d2d179696905c", "esxnli.tsv", root)
    rows = csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    return [{"id": row["pairID"], "premise": row["sentence1"], "hypothesis": row["sentence2"], "label": row["gold_label"]}
            for row in rows if row["language"] == lang]


def _xnli_de(root: Path) -> list[dict]:
    text = read_snapshot_file("LSX-UniWue/SuperGLEBer", "5d3c59a91ab3b5011a45a28cfafe813cf657111d",
                              "data/XGlue/NLI/dev.txt", root)
    out = []
    for n, line in enumerate(text.splitlines()):
        parts = line.split("\t")
        if len(parts) == 3:
            out.append({"id": str(n), "premise": parts[0], "hypothesis": parts[1], "label": parts[2].strip()})
    return out


def _ocnli(root: Path) -> list[dict]:
    text = read_snapshot_file("CLUEbenchmark/OCNLI", "b53efdee17257a5c33993cf6fcf8ffff0497ea0e", "data/ocnli/dev.json", root)
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [{"id": str(r["id"]), "premise": r["sentence1"], "hypothesis": r["sentence2"], "label": r["label"]} for r in rows]


def _jnli(root: Path) -> list[dict]:
    text = read_snapshot_file("yahoojapan/JGLUE", "6f071c09316baae89c3d083a90985b4b1cb9968c",
                              "datasets/jnli-v1.3/valid-v1.3.json", root)
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [{"id": r["sentence_pair_id"], "premise": r["sentence1"], "hypothesis": r["sentence2"], "label": r["label"]}
            for r in rows]


def _lidirus(root: Path) -> list[dict]:
    text = read_snapshot_file("RussianNLP/RussianSuperGLUE", "1aff0918f226252eb304bdcdadf9eef5926cc924",
                              "HumanBenchmark/LiDiRus/assign_LiDiRus.tsv", root)
    votes: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for row in csv.DictReader(io.StringIO(text), delimiter=";", quoting=csv.QUOTE_NONE):
        if row.get("INPUT:sent1") and row.get("OUTPUT:result"):
            votes[(row["INPUT:sent1"], row["INPUT:sent2"])][row["OUTPUT:result"]] += 1
    out = []
    for n, ((premise, hypothesis), counted) in enumerate(votes.items()):
        (label, top), *rest = counted.most_common()
        if rest and rest[0][1] == top:
            continue  # a tie is no label
        out.append({"id": str(n), "premise": premise, "hypothesis": hypothesis,
                    "label": "contradiction" if label == "not_entailment" else label})
    return out


def rte3_fr_pairs(text: str) -> list[dict]:
    """RTE3-FR's TSV (`id`, `premise`, `hypothesis`, `label_text`, ...): the text itself, so a
    test can hand it a few lines without the snapshot."""
    rows = csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    return [{"id": row["id"], "premise": row["premise"], "hypothesis": row["hypothesis"], "label": row["label_text"]}
            for row in rows]


def _rte3_fr(root: Path) -> list[dict]:
    return rte3_fr_pairs(read_snapshot_file("mskandalis/rte3-french", "79574a5371a024b0ef9593df47d5f6710f5e16a0",
                                            "RTE3-FR-dev-set-3class.tsv", root))


def klue_nli_pairs(text: str) -> list[dict]:
    """KLUE-NLI's JSON array; `gold_label` is already the people's majority (the writer's label
    and four validators'), so the single votes are not read."""
    return [{"id": r["guid"], "premise": r["premise"], "hypothesis": r["hypothesis"], "label": r["gold_label"]}
            for r in json.loads(text)]


def _klue_nli(root: Path) -> list[dict]:
    return klue_nli_pairs(read_snapshot_file("KLUE-benchmark/KLUE", "3efd98708a40ff49251fddde35453f8fbb11f536",
                                             "klue_benchmark/klue-nli-v1.1/klue-nli-v1.1_dev.json", root))


LOADERS = {"en": lambda r: _esxnli("en", r), "es": lambda r: _esxnli("es", r), "de": _xnli_de,
           "zh": _ocnli, "ja": _jnli, "ru": _lidirus, "fr": _rte3_fr, "ko": _klue_nli}


SOURCE = {"en": "esxnli", "es": "esxnli"}
"""en and es are the same esXNLI pairs: one key, so both languages get the same pairs."""


def chosen_pairs(lang: str, root: Path, part: str, limit: int) -> list[dict]:
    rows = [row for position, row in enumerate(LOADERS[lang](root))
            if row["label"] in ("entailment", "contradiction")
            and part_of("nli", {"id": f"nli:{SOURCE.get(lang, lang)}:{row['id']}"}, position) == part]
    faithful = [r for r in rows if r["label"] == "entailment"]
    unfaithful = [r for r in rows if r["label"] == "contradiction"]
    out = []
    for a, b in zip(faithful, unfaithful):
        out += [a, b]
    return out[:limit]


def pair_id(lang: str, row: dict) -> str:
    """The id of a pair in the per-item files, and in the labels files `benchmarks.calibration_labels` writes."""
    return f"{lang}:{row['id']}"


def item_for(lang: str, row: dict) -> dict:
    return {"question": QUESTIONS[lang], "context": row["premise"], "answer": row["hypothesis"],
            "metrics": ["faithfulness"], "language": lang}


def summarise(lang: str, rows: list[dict], outcomes) -> dict:
    actual = [row["label"] == "contradiction" for row in rows]
    scores = [o.score for o in outcomes]
    predicted = [s is not None and s < THRESHOLD for s in scores]
    judged = [i for i, s in enumerate(scores) if s is not None]

    def ba(sample):
        return balanced_accuracy([predicted[i] for i in sample], [actual[i] for i in sample])

    faithful_supported = sum(1 for i, r in enumerate(rows) if not actual[i] and scores[i] is not None and scores[i] >= THRESHOLD)
    caught = sum(1 for i, r in enumerate(rows) if actual[i] and predicted[i])
    return {"lang": lang, "n": len(rows), "failures": sum(o.failed for o in outcomes),
            "ba": ba(range(len(rows))), "ba_interval": bootstrap_interval(ba, len(rows)),
            "auroc": auroc([-scores[i] for i in judged], [actual[i] for i in judged]) if judged else None,
            "faithful_counted_supported": f"{faithful_supported}/{actual.count(False)}",
            "hallucinated_caught": f"{caught}/{actual.count(True)}",
            "calls_per_item": sum(o.calls for o in outcomes) / max(len(rows), 1),
            "prompt_tokens_per_item": sum(o.input_tokens for o in outcomes) / max(len(rows), 1)}


def main(argv: list[str] | None = None) -> int:
    from judgegraph.commands.judge_flags import context_from_flags

    parser = argparse.ArgumentParser(prog="python -m benchmarks.multilingual_faithfulness",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--langs", default="en,es,de,zh,ja,ru", help=f"comma-separated, of: {','.join(LOADERS)}")
    parser.add_argument("--limit", type=int, default=16)
    parser.add_argument("--part", choices=PARTS, default="report")
    parser.add_argument("--mirror-root", type=Path, default=DEFAULT_MIRROR_ROOT)
    parser.add_argument("--out-dir", type=Path, default=Path("bench-out/multilingual_faithfulness"))
    parser.add_argument("--methods", default="graph",
                        help="comma-separated: graph, baseline (the one-prompt judge on the same pairs)")
    add_judge_run_options(parser)
    args = parser.parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    context = context_from_flags(args)
    figures = []
    for method in args.methods.split(","):
        for lang in args.langs.split(","):
            rows = chosen_pairs(lang, args.mirror_root, args.part, args.limit)
            items = [(pair_id(lang, row), item_for(lang, row)) for row in rows]
            suffix = "" if method == "graph" else f"-{method}"
            outcomes, _ = run_method(method, context, "faithfulness", items, label=lang,
                                     items_path=args.out_dir / f"items-{lang}-{args.part}{suffix}.jsonl")
            figure = {"method": method, **summarise(lang, rows, outcomes)}
            figures.append(figure)
            print(json.dumps(figure), flush=True)
    (args.out_dir / f"figures-{args.part}.json").write_text(json.dumps(figures, indent=2, ensure_ascii=False))
    print(json.dumps(figures, indent=2, ensure_ascii=False), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
