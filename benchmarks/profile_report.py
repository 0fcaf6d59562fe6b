"""Calibration profiles side by side on report rows: one judging, every profile recomputed.

    python -m benchmarks.calibration_labels halueval_qa --part report --limit 20 -o he_report.jsonl
    python -m benchmarks.profile_report he_report.jsonl --model local \\
        --profiles default,calibration/profiles/embedded_halueval.json --out-dir bench-out/profiles

The labelled items are judged once, the way `judgegraph calibrate` judges them (every optional
signal recorded, resumable, with the step cache), then faithfulness is recomputed from the
recorded signals under each profile (`calibration.recompute`, no judge call), so the profiles are
compared on the same judge replies: a paired comparison. Printed per profile: balanced accuracy
(faithfulness below 0.5 counts as "hallucinated", the harness's fixed cut), AUROC, the median
score of each class, with 95% bootstrap intervals, and the paired BA difference to the first.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from judgegraph.calibration.profile import Profile, default_profile, load_profile
from judgegraph.stats import auroc, balanced_accuracy, bootstrap_interval, paired_bootstrap_interval

THRESHOLD = 0.5


def profile_named(name: str) -> Profile:
    """'default' (the shipped default) or a profile JSON path: how the benchmarks that recompute
    recorded runs name a profile on their command line."""
    return default_profile() if name == "default" else load_profile(name)


def main(argv: list[str] | None = None) -> int:
    from judgegraph.calibration.labels import read_labels
    from judgegraph.calibration.recompute import faithfulness_score, labelled_recordings
    from judgegraph.commands import cli
    from judgegraph.commands.calibrate import judge_labelled_items

    parser = argparse.ArgumentParser(prog="python -m benchmarks.profile_report", description=__doc__.splitlines()[0])
    parser.add_argument("labels", type=Path)
    parser.add_argument("--profiles", default="default", help="comma-separated: 'default' or profile JSON paths")
    parser.add_argument("--model", default="local")
    parser.add_argument("--base-url", default=None, help="an OpenAI-compatible judge instead of the local one")
    parser.add_argument("--out-dir", type=Path, default=Path("bench-out/profiles"))
    args = parser.parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    judged = args.out_dir / (args.labels.stem + ".judged.jsonl")
    judge_flags = cli.build_parser().parse_args(
        ["calibrate", str(args.labels), "--metric", "faithfulness", "-o", str(args.out_dir / "unused.json"),
         "--model", args.model, *(["--base-url", args.base_url, "--response-format", "json_object"]
                                   if args.base_url else [])])
    judge_flags.build_parser = cli.build_parser
    labels = read_labels(args.labels, "faithfulness")
    code, model_id = judge_labelled_items(judge_flags, labels, judged, args.out_dir / "cache.sqlite")
    if code != 0:
        return code
    recorded = labelled_recordings(judged, labels)
    profiles = [profile_named(name) for name in args.profiles.split(",")]
    faithful = [label >= 0.5 for _, label in recorded]  # labels: 1 faithful, 0 hallucinated
    results, predictions = [], []
    for profile in profiles:
        scores = [faithfulness_score(r, profile.faithfulness_parameters) for r, _ in recorded]
        flagged = [s is None or s < THRESHOLD for s in scores]
        actual = [not f for f in faithful]
        predictions.append(flagged)

        def ba(sample, flagged=flagged, actual=actual):
            return balanced_accuracy([flagged[i] for i in sample], [actual[i] for i in sample])

        judged_scores = [(s, a) for s, a in zip(scores, actual) if s is not None]
        results.append({
            "profile": profile.id, "n": len(scores), "failed": sum(s is None for s in scores),
            "ba": ba(range(len(scores))), "ba_interval": bootstrap_interval(ba, len(scores)),
            "auroc": auroc([-s for s, _ in judged_scores], [a for _, a in judged_scores]),
            "median_faithful": statistics.median(s for s, a in judged_scores if not a),
            "median_hallucinated": statistics.median(s for s, a in judged_scores if a),
        })
    actual = [not f for f in faithful]
    for result, flagged in zip(results[1:], predictions[1:]):
        first = predictions[0]
        result["ba_difference_to_first"] = paired_bootstrap_interval(
            lambda s: balanced_accuracy([first[i] for i in s], [actual[i] for i in s]),
            lambda s, flagged=flagged: balanced_accuracy([flagged[i] for i in s], [actual[i] for i in s]),
            len(actual))
    (args.out_dir / (args.labels.stem + ".figures.json")).write_text(json.dumps(results, indent=2))
    print(json.dumps({"judge": model_id, "results": results}, indent=2))
    print(f"judged {len(recorded)} items", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
