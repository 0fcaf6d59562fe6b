"""The `calibrate` subcommand's flags, apart from the command (`commands/calibrate.py`).

Why its own module: `judgegraph --help` and every other command build the whole parser, and
the command's module imports the fitting stack (scikit-learn, SciPy, the graph's context);
keeping the flags here lets the parser be built without loading any of it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from ..calibration.metric_names import CALIBRATED_METRICS

METRICS = CALIBRATED_METRICS
"""Every metric a profile holds can be fitted (`fitting.fitted_metrics`)."""

AddOptions = Callable[[argparse.ArgumentParser], None]


def calibrated_metric(value: str) -> str:
    """`--metric`'s check, argparse's own "invalid choice" refusal: a `type`, not `choices`,
    because argparse lists `choices` in every help text it formats, and reading the names
    loads the declarations (pydantic), which `calibrate --help` must not."""
    if value not in METRICS:
        raise argparse.ArgumentTypeError(f"invalid choice: {value!r} (choose from {', '.join(map(repr, METRICS))})")
    return value


def add_calibrate_parser(commands: argparse._SubParsersAction, add_model_options: AddOptions,
                         add_judge_method_options: AddOptions) -> None:
    parser = commands.add_parser("calibrate", help="fit a calibration profile on your labelled items")
    parser.add_argument("labels", type=Path, help="labels JSONL: one item per line with a `human` label")
    parser.add_argument("--metric", type=calibrated_metric, metavar="METRIC", required=True,
                        help="the metric to fit: one a profile holds a section for (docs/calibration.md); "
                             "a wrong one is refused with the choices")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the profile JSON to write")
    add_model_options(parser)
    add_judge_method_options(parser)
    parser.add_argument("--max-repairs", type=int, default=2, help="re-prompts after invalid replies (default 2)")
    parser.add_argument("--concurrency", type=int, default=None, help="parallel model calls (default: 8 remote, 1 local)")
    parser.add_argument("--judged", type=Path, help="the judged items' JSONL (default: <output>.judged.jsonl; resumable)")
    parser.add_argument("--cache", type=Path, help="step cache (default: <output>.cache.sqlite)")
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds (default 5)")
    parser.add_argument("--force", action="store_true",
                        help="write the profile even when its held-out agreement is worse than the start's, "
                             "or it ignores the judge (a warning says so)")
    parser.add_argument("--start", type=Path, metavar="PROFILE",
                        help="the profile the fit starts from: its rules (e.g. its grounding) judge the items "
                             "and the fit keeps its other metrics (default: the judge's shipped profile, "
                             "else the default)")
