"""Reliability diagrams: judgegraph's scores (predicted) against human labels (observed), per
metric and set, from the per-item outputs of runs already made. No judge call.

    python -m benchmarks.reliability \\
        --input faithfulness:halueval:profiles/he_report20.judged.jsonl:he_report20.jsonl \\
        --input semantic_similarity:stsb-zh:mlsim/items-zh-report.jsonl::0-5 \\
        --input faithfulness:nli-en:nli/items-en-report.jsonl:nli-en.labels.jsonl \\
        [--profiles recorded,default,fitted.json] --out docs/reliability.png --markdown reliability.md

An input is `METRIC:NAME:ITEMS[:LABELS[:LO-HI]]`: the metric (the result key: faithfulness,
semantic_similarity, answer_relevance, context_relevance), a name for the set, the per-item file,
the labels file when the lines carry no `human` label, and the labels' scale when they are
graded outside 0..1 (STS's 0-5). `benchmarks.labelled_scores` says which files it reads.
`--profiles recorded,default,fitted.json` reads a fitted metric (faithfulness, context or
answer relevance) from batch records with details once per profile named, recomputed
(`fitting.fitted_metrics`) or as the run recorded it: the same judge replies under several
profiles. Other inputs are read as recorded.

Why: a score is useful as a number only if it means what it says. Read as a prediction, a
faithfulness of 0.7 says "faithful 7 times in 10"; a similarity of 0.7, "people rate this pair
0.7 of the way up their scale". Per bin of scores, the table and the figure set the mean score
beside what people said: the share labelled good (binary labels), or the mean label rescaled to
0..1 (graded). Where people say more than the score, the scores there are "too low"; where
less, "too high" (which of the two is over-confidence depends on the side of 0.5: a faithfulness
of 0.03 that is too low is too sure of a hallucination). A bin is called either only when its
95% interval leaves the mean score out (Wilson for a share, the seeded bootstrap of
`judgegraph.stats` for a mean). Two figures sum it up: the expected calibration error (ECE, the
items-weighted mean gap between score and observed, over the bins) and, for binary labels, the
Brier score (mean squared gap per item, which needs no bins), each with a bootstrap interval.

Bins: `--binning auto` (the default) takes 5 equal-width bins over 0..1 from 100 judged items on,
the usual diagram, whose bins mean the same in every set, with about 20 items a bin. Below 100,
equal-width bins would leave most bins with 0-2 items (faithfulness scores pile up near 0), so
the bins hold equal counts instead: as many as give each about 6 items (at most `--bins`, at
least one), cut at the score quantiles, never between equal scores. Small sets stay small: the
ECE of 14 items has a wide interval, and, being a mean of absolute gaps, it sits above zero even
for a perfectly calibrated judge; read it with its interval.

matplotlib is an optional benchmark dependency (`pip install 'judgegraph[bench]'`): without it,
the tables are written and the PNG is not, with a line on stderr saying so.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from bisect import bisect_right
from dataclasses import dataclass, replace
from importlib.util import find_spec
from pathlib import Path

from judgegraph.calibration.profile import ProfileError
from judgegraph.fitting.labels import LabelsError
from judgegraph.stats import bootstrap_interval

from benchmarks.labelled_scores import InputError, LabelledScores, Source, read_scores
from benchmarks.profile_report import profile_named

WIDTH_FROM = 100
"""From this many judged items on, `auto` takes equal-width bins."""
ITEMS_PER_QUANTILE_BIN = 6
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Bin:
    low: float
    high: float
    n: int
    mean_score: float | None
    observed: float | None
    interval: tuple[float, float] | None

    @property
    def reading(self) -> str:
        """"too low" / "too high" when the interval leaves the mean score out, else "in line"."""
        if self.interval is None or self.mean_score is None:
            return ""
        if self.interval[0] > self.mean_score:
            return "too low"
        return "too high" if self.interval[1] < self.mean_score else "in line"


@dataclass(frozen=True)
class Reliability:
    scores: LabelledScores
    binning: str
    bins: list[Bin]
    ece: float | None
    ece_interval: tuple[float, float] | None
    brier: float | None
    brier_interval: tuple[float, float] | None


def width_edges(bins: int) -> list[float]:
    return [i / bins for i in range(bins + 1)]


def quantile_edges(scores: list[float], bins: int) -> list[float]:
    """Edges over 0..1 cutting `scores` into `bins` groups of about equal size; a cut sits on a
    score and equal scores go up together, so ties can leave fewer, unequal bins."""
    ordered = sorted(scores)
    cuts: list[float] = []
    for j in range(1, bins if ordered else 1):
        cut = ordered[min(round(j * len(ordered) / bins), len(ordered) - 1)]
        if cut > ordered[0] and (not cuts or cut > cuts[-1]):
            cuts.append(cut)
    return [0.0, *cuts, 1.0]


def choose_edges(scores: list[float], binning: str, bins: int) -> tuple[str, list[float]]:
    """('equal-width' or 'equal-count', edges) for `--binning auto|width|quantile`."""
    if binning == "width" or (binning == "auto" and len(scores) >= WIDTH_FROM):
        return "equal-width", width_edges(bins)
    if binning == "auto":
        bins = max(1, min(bins, len(scores) // ITEMS_PER_QUANTILE_BIN))
    return "equal-count", quantile_edges(scores, bins)


def bin_of(score: float, edges: list[float]) -> int:
    """The bin [edges[i], edges[i+1]) holding `score`; the last bin also holds 1.0, and scores
    outside 0..1 count in the end bins."""
    return min(max(bisect_right(edges, score) - 1, 0), len(edges) - 2)


def grouped(scores: list[float], edges: list[float]) -> list[list[int]]:
    """The indices of the scores in each bin, bin by bin (a bin may be empty)."""
    members: list[list[int]] = [[] for _ in edges[1:]]
    for i, score in enumerate(scores):
        members[bin_of(score, edges)].append(i)
    return members


def wilson_interval(successes: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """Wilson's score interval for a share: unlike p ± z·se it stays inside 0..1 and does not
    shrink to a point at 0 of 7 or 7 of 7, which small bins often are."""
    if n == 0:
        return None
    z = statistics.NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    share = successes / n
    denominator = 1 + z * z / n
    centre = (share + z * z / (2 * n)) / denominator
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def calibration_error(scores: list[float], labels: list[float], edges: list[float]) -> float | None:
    """ECE: sum over bins of (items in bin / items) x |mean score - mean label|; None for no items."""
    if not scores:
        return None
    return sum(abs(statistics.fmean(scores[i] for i in members) - statistics.fmean(labels[i] for i in members))
               * len(members) for members in grouped(scores, edges) if members) / len(scores)


def brier_score(scores: list[float], labels: list[float]) -> float | None:
    """Mean squared gap between score and 0/1 label; None for no items."""
    return statistics.fmean((s - y) ** 2 for s, y in zip(scores, labels)) if scores else None


def _bin(members: list[int], low: float, high: float, data: LabelledScores) -> Bin:
    if not members:
        return Bin(low, high, 0, None, None, None)
    labels = [data.labels[i] for i in members]
    if data.kind == "binary":
        interval = wilson_interval(round(sum(labels)), len(labels))
    else:
        interval = bootstrap_interval(lambda sample: statistics.fmean(labels[i] for i in sample), len(labels))
    return Bin(low, high, len(members), statistics.fmean(data.scores[i] for i in members),
               statistics.fmean(labels), interval)


def reliability(data: LabelledScores, binning: str = "auto", bins: int = 5) -> Reliability:
    """The bins and the summary figures of one set."""
    name, edges = choose_edges(data.scores, binning, bins)
    table = [_bin(members, low, high, data)
             for members, low, high in zip(grouped(data.scores, edges), edges, edges[1:])]
    scores, labels = data.scores, data.labels

    def resampled(figure):
        return lambda sample: figure([scores[i] for i in sample], [labels[i] for i in sample])

    binary = data.kind == "binary"
    return Reliability(
        data, name, table, calibration_error(scores, labels, edges),
        bootstrap_interval(resampled(lambda s, y: calibration_error(s, y, edges)), data.n),
        brier_score(scores, labels) if binary else None,
        bootstrap_interval(resampled(brier_score), data.n) if binary else None,
    )


# --- output ---------------------------------------------------------------------------------------

def _number(value: float | None, interval: tuple[float, float] | None = None) -> str:
    if value is None:
        return "–"
    return f"{value:.2f}" + (f" [{interval[0]:.2f}, {interval[1]:.2f}]" if interval else "")


def _title(result: Reliability) -> str:
    return f"{result.scores.metric} · {result.scores.name}"


def _items_said(data: LabelledScores) -> str:
    """"20 items (binary labels: ...; 1 failed)": what was counted, and what was left out."""
    if data.kind == "binary":
        said = "binary labels: observed = share labelled good"
    else:
        scale = f"{data.scale[0]:g}-{data.scale[1]:g} " if data.scale else ""
        said = f"graded {scale}labels rescaled to 0..1: observed = mean label"
    left_out = [f"{count} {what}" for count, what in ((data.failed, "failed"), (data.unlabelled, "unlabelled")) if count]
    return f"{data.n} items ({said}" + (f"; left out: {', '.join(left_out)})" if left_out else ")")


def _ranges(result: Reliability, reading: str) -> str:
    return ", ".join(f"{b.low:.2f}-{b.high:.2f}" for b in result.bins if b.reading == reading) or "–"


def markdown(results: list[Reliability]) -> str:
    """A summary table over the sets, then one table of bins per set."""
    lines = ["| metric | set | n | labels | bins | ECE [95%] | Brier [95%] | scores too high in | scores too low in |",
             "| --- | --- | ---: | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        lines.append(f"| {r.scores.metric} | {r.scores.name} | {r.scores.n} | {r.scores.kind} | "
                     f"{len(r.bins)} {r.binning} | {_number(r.ece, r.ece_interval)} | "
                     f"{_number(r.brier, r.brier_interval)} | {_ranges(r, 'too high')} | {_ranges(r, 'too low')} |")
    for r in results:
        brier = f"; Brier {_number(r.brier, r.brier_interval)}" if r.brier is not None else ""
        lines += ["", f"#### {_title(r)}", "",
                  f"{_items_said(r.scores)}; {len(r.bins)} {r.binning} bins; ECE {_number(r.ece, r.ece_interval)}{brier}",
                  "",
                  "| scores in | n | mean score | observed [95%] | scores are |",
                  "| --- | ---: | ---: | --- | --- |"]
        for b in r.bins:
            closing = "]" if b is r.bins[-1] else ")"
            lines.append(f"| [{b.low:.2f}, {b.high:.2f}{closing} | {b.n} | {_number(b.mean_score)} | "
                         f"{_number(b.observed, b.interval)} | {b.reading or '–'} |")
    return "\n".join(lines) + "\n"


def plot(results: list[Reliability], path: Path) -> Path:
    """One panel per set: mean score against observed per bin, with its 95% interval, the
    diagonal of perfect calibration, marker area growing with the bin's items."""
    import matplotlib

    matplotlib.use("Agg")  # no display on servers and CI
    import matplotlib.pyplot as plt

    columns = min(4, len(results))
    rows = math.ceil(len(results) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.1 * columns, 3.3 * rows), squeeze=False, layout="constrained")
    for ax, result in zip(axes.flat, results):
        ax.plot([0, 1], [0, 1], color="grey", linewidth=0.8, linestyle=":")
        shown = [b for b in result.bins if b.n]
        xs, ys = [b.mean_score for b in shown], [b.observed for b in shown]
        errors = [[y - (b.interval or (y, y))[0] for b, y in zip(shown, ys)],
                  [(b.interval or (y, y))[1] - y for b, y in zip(shown, ys)]]
        ax.errorbar(xs, ys, yerr=errors, fmt="none", ecolor="C0", elinewidth=0.8, alpha=0.6)
        ax.scatter(xs, ys, s=[8 + 12 * math.sqrt(b.n) for b in shown], color="C0", zorder=3)
        for b, x, y in zip(shown, xs, ys):
            ax.annotate(str(b.n), (x, y), textcoords="offset points", xytext=(5, -9), fontsize=6, color="dimgrey")
        ax.set_xlim(-0.02, 1.02)  # a bin at 0 or 1 shows its whole marker
        ax.set_ylim(-0.02, 1.02)
        ax.set_aspect("equal")
        ax.tick_params(labelsize=7)
        ax.set_title(f"{_title(result)}\nn={result.scores.n}, ECE {_number(result.ece)}", fontsize=8)
        ax.set_xlabel("mean score (predicted)", fontsize=7)
    for ax in axes.flat[len(results):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("observed", fontsize=7)
    fig.suptitle("judgegraph scores against human labels (95% intervals; marker area grows with n)", fontsize=9)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


# --- command line ---------------------------------------------------------------------------------

def load(sources: list[Source], profiles: str | None) -> list[LabelledScores]:
    """Every set the inputs name: a recomputable input (a fitted metric in batch records with
    details) once per profile, when given ('recorded' among them: its scores as the run decided
    them)."""
    chosen = [None if name == "recorded" else profile_named(name) for name in profiles.split(",")] if profiles else []
    sets = []
    for source in sources:
        if not (chosen and source.recomputable()):
            sets.append(read_scores(source))
            continue
        for profile in chosen:
            under = "as recorded" if profile is None else f"{profile.id} profile"
            sets.append(replace(read_scores(source, profile), name=f"{source.name} ({under})"))
    return sets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.reliability", description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", action="append", required=True, metavar="METRIC:NAME:ITEMS[:LABELS[:LO-HI]]",
                        help="a set to plot; repeat for more")
    parser.add_argument("--profiles", default=None,
                        help="comma-separated 'recorded', 'default' or profile JSON paths: the input's metric from batch "
                             "records with details, once under each (default: the scores as recorded)")
    parser.add_argument("--binning", choices=("auto", "width", "quantile"), default="auto")
    parser.add_argument("--bins", type=int, default=5, help="bins per set (auto: at most this many)")
    parser.add_argument("--markdown", type=Path, default=None, help="write the tables here (default: stdout)")
    parser.add_argument("--out", type=Path, default=None, help="the PNG to write")
    args = parser.parse_args(argv)
    if args.bins < 1:
        parser.error("--bins must be at least 1")
    try:
        sets = load([Source.parse(text) for text in args.input], args.profiles)
    except (InputError, LabelsError, ProfileError) as error:
        print(f"benchmarks.reliability: {error}", file=sys.stderr)
        return 2
    results = [reliability(data, args.binning, args.bins) for data in sets]
    text = markdown(results)
    if args.markdown is None:
        sys.stdout.write(text)
    else:
        args.markdown.write_text(text, encoding="utf-8")
    if args.out is not None:
        if find_spec("matplotlib") is None:
            print("benchmarks.reliability: no plot (pip install 'judgegraph[bench]' for matplotlib)", file=sys.stderr)
        else:
            print(f"wrote {plot(results, args.out)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
