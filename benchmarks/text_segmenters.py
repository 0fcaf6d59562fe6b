"""How to cut Chinese and Japanese into words for the claim rules: chosen by measurement.

The claim rules' grounding is the share of a claim's content tokens found in the context. On
text without spaces the old whitespace cut made a whole sentence one "word", so a faithful
Chinese claim scored 0.0. Candidates:

- `whitespace`: the old rule (word-character runs), the baseline;
- `chars`: single characters, function characters dropped (judgegraph.text.tokens: what ships,
  chosen on these figures);
- `bigrams`: overlapping character bigrams, bigrams of function characters only dropped;
- `rjieba` (Chinese) and `fugashi` + ipadic (Japanese): dictionary segmenters, words without
  the language's stopwords; measured only when importable (they are not dependencies).

Data: human-labelled NLI pairs, never copied into the repository (see /work/research/data):
OCNLI dev (zh, native Chinese) and JNLI valid (ja, native Japanese). Figure: AUROC of
grounding(hypothesis, premise) for entailment (positive) against each of `COMPARISONS`, with a
95% bootstrap interval, and microseconds per pair. A segmenter that tells a faithful claim from
an unfounded one better by word overlap is the better base for the grounding rule.

    python -m benchmarks.text_segmenters /work/research/data/nli
    python -m benchmarks.text_segmenters /work/research/data/nli --sts-dir /work/research/data

With `--sts-dir` (the stsb-multi-mt dev CSVs) it also measures language detection on short
texts: the first 300 `sentence1` of each language, judgegraph's `detect_language` against
py3langid alone (accuracy per language, ms per text).
    # with the optional segmenters, from a venv that has them:
    PYTHONPATH=/path/with/rjieba-and-fugashi python -m benchmarks.text_segmenters DATA_DIR
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import time
from collections.abc import Callable
from pathlib import Path

from judgegraph.stats import auroc, bootstrap_interval
from judgegraph.text.stopwords import STOP_CHARS, stopwords
from judgegraph.text.tokens import content_words, fold

SETS = {"zh": "zh-ocnli-dev-sample500.jsonl", "ja": "ja-jnli-valid-sample500.jsonl",
        "en": "en-esxnli-sample500.jsonl", "es": "es-esxnli-sample500.jsonl"}
"""English and Spanish (esxnli, the same pairs in both) are the reference: what grounding does
where words are cut on spaces."""
Tokenizer = Callable[[str], list[str]]


COMPARISONS = ("contradiction", "neutral", "other premise")
"""What the entailed pairs are told from: a contradicted hypothesis, a neutral one (it adds
what the premise does not say: the case grounding is for), and the same entailed hypothesis
read against the premise of the next pair (a claim about something else entirely)."""


def load_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_pairs(rows: list[dict], negative: str) -> list[tuple[str, str, bool]]:
    """(premise, hypothesis, entailed): the entailed rows, and the negatives of one comparison."""
    entailed = [(r["sentence1"], r["sentence2"], True) for r in rows if r["label"] == "entailment"]
    if negative == "other premise":
        premises = [premise for premise, _, _ in entailed]
        shifted = premises[1:] + premises[:1]
        return entailed + [(other, hypothesis, False) for other, (_, hypothesis, _) in zip(shifted, entailed)]
    return entailed + [(r["sentence1"], r["sentence2"], False) for r in rows if r["label"] == negative]


def grounding(tokenize: Tokenizer, hypothesis: str, premise: str) -> float:
    """The claim rule's grounding, with no question: share of the hypothesis's tokens in the premise."""
    novel = list(dict.fromkeys(tokenize(hypothesis)))
    if not novel:
        return 1.0
    available = set(tokenize(premise))
    return sum(token in available for token in novel) / len(novel)


def _whitespace(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def _bigrams(text: str) -> list[str]:
    tokens = []
    for run in re.findall(r"\w+", fold(text)):
        pairs = [run[i:i + 2] for i in range(len(run) - 1)] or [run]
        tokens += [pair for pair in pairs if not all(char in STOP_CHARS for char in pair)]
    return tokens


def _segmenter(language: str) -> Tokenizer | None:
    """rjieba for zh, fugashi+ipadic for ja, when installed; words minus stopwords."""
    skip = stopwords(language) | STOP_CHARS
    try:
        if language == "zh":
            import rjieba

            return lambda text: [w for w in rjieba.cut(fold(text)) if w.strip() and w not in skip and w.isalnum()]
        import fugashi
        import ipadic

        tagger = fugashi.GenericTagger(ipadic.MECAB_ARGS)
        return lambda text: [w.surface for w in tagger(fold(text)) if w.surface not in skip and w.surface.isalnum()]
    except ImportError:
        return None


def candidates(language: str) -> dict[str, Tokenizer]:
    if language not in ("zh", "ja"):
        return {"words (shipped)": lambda text: content_words(text, language)}
    found: dict[str, Tokenizer | None] = {
        "whitespace": _whitespace,
        "chars (shipped)": lambda text: content_words(text, language),
        "bigrams": _bigrams,
        "rjieba" if language == "zh" else "fugashi+ipadic": _segmenter(language),
    }
    return {name: tokenize for name, tokenize in found.items() if tokenize is not None}


def measure(pairs: list[tuple[str, str, bool]], tokenize: Tokenizer) -> dict:
    started = time.perf_counter()
    scores = [grounding(tokenize, hypothesis, premise) for premise, hypothesis, _ in pairs]
    micros = (time.perf_counter() - started) / len(pairs) * 1e6
    labels = [entailed for _, _, entailed in pairs]

    def statistic(sample: list[int]) -> float | None:
        return auroc([scores[i] for i in sample], [labels[i] for i in sample])

    interval = bootstrap_interval(statistic, len(pairs))
    return {"auroc": auroc(scores, labels), "interval": interval, "us_per_pair": micros,
            "mean_entailed": sum(s for s, y in zip(scores, labels) if y) / max(1, sum(labels)),
            "mean_contradicted": sum(s for s, y in zip(scores, labels) if not y) / max(1, labels.count(False))}


STS_LANGUAGES = "en de es fr ru zh ja it nl pl pt".split()


def detection(sts_dir: Path, per_language: int = 300) -> None:
    """Accuracy of the item-language detector on short sentences, per language."""
    from judgegraph.text.languages import _identifier, detect_language

    texts = {}
    for language in STS_LANGUAGES:
        path = sts_dir / f"stsb-{language}-dev.csv"
        if path.exists():
            with path.open(encoding="utf-8", newline="") as handle:
                texts[language] = [row[0] for row, _ in zip(csv.reader(handle), range(per_language))]
    detectors = {"py3langid alone": lambda text: _identifier().classify(text)[0],
                 "judgegraph (script + py3langid + prior)": detect_language}
    print(f"\n| detector | {' | '.join(texts)} | ms per text |")
    print("|---|" + "---|" * (len(texts) + 1))
    for name, detect in detectors.items():
        detect("warm up")
        started = time.perf_counter()
        accuracy = [sum(detect(text) == language for text in sample) / len(sample) for language, sample in texts.items()]
        millis = (time.perf_counter() - started) / sum(map(len, texts.values())) * 1e3
        print(f"| {name} | {' | '.join(f'{a:.2f}' for a in accuracy)} | {millis:.2f} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", type=Path, help="folder holding the OCNLI and JNLI samples")
    parser.add_argument("--sts-dir", type=Path, help="folder holding stsb-<lang>-dev.csv (language detection)")
    args = parser.parse_args(argv)
    print("| lang | tokens | entailed vs | pairs (E/other) | AUROC [95% CI] | mean grounding E / other | µs per pair |")
    print("|---|---|---|---|---|---|---|")
    for language, name in SETS.items():
        path = args.data_dir / name
        if not path.exists():
            print(f"| {language} | - | - | missing: {path} | | | |")
            continue
        rows = load_rows(path)
        for negative in COMPARISONS:
            pairs = load_pairs(rows, negative)
            entailed = sum(y for *_, y in pairs)
            for label, tokenize in candidates(language).items():
                tokenize("warm up")
                result = measure(pairs, tokenize)
                low, high = result["interval"] or (float("nan"), float("nan"))
                print(f"| {language} | {label} | {negative} | {entailed}/{len(pairs) - entailed} | "
                      f"{result['auroc']:.3f} [{low:.3f}, {high:.3f}] | "
                      f"{result['mean_entailed']:.2f} / {result['mean_contradicted']:.2f} | {result['us_per_pair']:.0f} |")
    if args.sts_dir is not None:
        detection(args.sts_dir)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
