"""Calibration profiles side by side on report rows: one judging, every profile recomputed.

    python -m benchmarks.calibration_labels halueval_qa --part report --limit 20 -o he_report.jsonl
    python -m benchmarks.profile_report he_report.jsonl --model local \\
        --profiles default,calibration/profiles/embedded_halueval.json --out-dir bench-out/profiles
    python -m benchmarks.profile_report ms_report.jsonl --metric context_relevance --model local \\
        --profiles default,msmarco.profile.json

The labelled items are judged once, the way `judgegraph calibrate` judges them (every optional
signal recorded, resumable, with the step cache), then the metric is recomputed from the
recorded signals under each profile (`fitting.fitted_metrics`, no judge call), so the
profiles are compared on the same judge replies: a paired comparison. Printed per profile, for
binary labels (1 = good): balanced accuracy at the harness's fixed cut (a score below 0.5 counts
as a failure), AUROC, the Brier score, the median score of each class, and pairwise accuracy
within each labelled group when the labels file names groups (MS MARCO's query pairs), with 95%
bootstrap intervals, and the paired BA difference to the first profile.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from judgegraph.calibration.profile import Profile, default_profile, load_profile
from judgegraph.stats import auroc, balanced_accuracy, bootstrap_interval, paired_bootstrap_interval

from benchmarks.figures import pairwise_figure

THRESHOLD = 0.5


def profile_named(name: str) -> Profile:
    """'default' (the shipped default) or a profile JSON path: how the benchmarks that recompute
    recorded runs name a profile on their command line."""
    return default_profile() if name == "default" else load_profile(name)


def group_pairs(ids: list[str], scores: list[float | None], good: list[bool],
                groups: dict[str, str] | None) -> list[tuple[float, float]]:
    """(good item's score, other item's score) for every group holding exactly one of each."""
    if groups is None:
        return []
    members: dict[str, list[int]] = {}
    for index, item_id in enumerate(ids):
        members.setdefault(groups[item_id], []).append(index)
    pairs = []
    for indices in members.values():
        goods = [i for i in indices if good[i]]
        others = [i for i in indices if not good[i]]
        if len(goods) == 1 and len(others) == 1:
            pairs.append(tuple(scores[i] if scores[i] is not None else 0.0 for i in (goods[0], others[0])))
    return pairs


def profile_figures(ids: list[str], scores: list[float | None], good: list[bool],
                    groups: dict[str, str] | None) -> dict:
    flagged = [s is None or s < THRESHOLD for s in scores]
    failing = [not g for g in good]

    def ba(sample):
        return balanced_accuracy([flagged[i] for i in sample], [failing[i] for i in sample])

    judged = [(s, g) for s, g in zip(scores, good) if s is not None]
    figures = {
        "n": len(scores), "failed": sum(s is None for s in scores),
        "ba": ba(range(len(scores))), "ba_interval": bootstrap_interval(ba, len(scores)),
        "auroc": auroc([s for s, _ in judged], [g for _, g in judged]),
        "auroc_interval": bootstrap_interval(
            lambda sample: auroc([judged[i][0] for i in sample], [judged[i][1] for i in sample]), len(judged)),
        "brier": sum((s - float(g)) ** 2 for s, g in judged) / len(judged) if judged else None,
        "median_good": statistics.median(s for s, g in judged if g) if any(g for _, g in judged) else None,
        "median_bad": statistics.median(s for s, g in judged if not g) if any(not g for _, g in judged) else None,
    }
    pairs = group_pairs(ids, scores, good, groups)
    if pairs:
        figures["pairs"] = len(pairs)
        figures["pairwise"], figures["pairwise_interval"] = pairwise_figure(pairs)
    return figures, flagged


def main(argv: list[str] | None = None) -> int:
    from judgegraph.fitting.fitted_metrics import FITTED_METRICS
    from judgegraph.fitting.labels import read_labels
    from judgegraph.fitting.recompute import labelled_recordings
    from judgegraph.commands import cli
    from judgegraph.commands.calibrate import judge_labelled_items

    parser = argparse.ArgumentParser(prog="python -m benchmarks.profile_report", description=__doc__.splitlines()[0])
    parser.add_argument("labels", type=Path)
    parser.add_argument("--metric", choices=sorted(FITTED_METRICS), default="faithfulness")
    parser.add_argument("--profiles", default="default", help="comma-separated: 'default' or profile JSON paths")
    parser.add_argument("--model", default="local")
    parser.add_argument("--base-url", default=None, help="an OpenAI-compatible judge instead of the local one")
    parser.add_argument("--out-dir", type=Path, default=Path("bench-out/profiles"))
    args = parser.parse_args(argv)
    metric = FITTED_METRICS[args.metric]
    args.out_dir.mkdir(parents=True, exist_ok=True)
    judged = args.out_dir / (args.labels.stem + ".judged.jsonl")
    judge_flags = cli.build_parser().parse_args(
        ["calibrate", str(args.labels), "--metric", args.metric, "-o", str(args.out_dir / "unused.json"),
         "--model", args.model, *(["--base-url", args.base_url, "--response-format", "json_object"]
                                   if args.base_url else [])])
    judge_flags.build_parser = cli.build_parser
    labels = read_labels(args.labels, args.metric)
    code, model_id = judge_labelled_items(judge_flags, labels, judged, args.out_dir / "cache.sqlite", metric.read)
    if code != 0:
        return code
    recorded = labelled_recordings(judged, labels, metric.read)
    ids = [r.id for r, _ in recorded]
    good = [label >= 0.5 for _, label in recorded]
    results, predictions = [], []
    for profile in (profile_named(name) for name in args.profiles.split(",")):
        parameters = profile.section(args.metric).parameters
        scores = [metric.fitting.score(r, parameters) for r, _ in recorded]
        figures, flagged = profile_figures(ids, scores, good, labels.groups)
        results.append({"profile": profile.id, **figures})
        predictions.append(flagged)
    failing = [not g for g in good]
    for result, flagged in zip(results[1:], predictions[1:]):
        first = predictions[0]
        result["ba_difference_to_first"] = paired_bootstrap_interval(
            lambda s: balanced_accuracy([first[i] for i in s], [failing[i] for i in s]),
            lambda s, flagged=flagged: balanced_accuracy([flagged[i] for i in s], [failing[i] for i in s]),
            len(failing))
    (args.out_dir / (args.labels.stem + ".figures.json")).write_text(json.dumps(results, indent=2))
    print(json.dumps({"judge": model_id, "metric": args.metric, "results": results}, indent=2))
    print(f"judged {len(recorded)} items", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
