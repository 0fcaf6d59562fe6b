"""`judgegraph estimate RESULTS --labels LABELS`: how good is the system, really.

The judge scored every item of RESULTS; people labelled a random few (`judgegraph label`, or
any labels file in its format). Per metric, the table puts side by side the judge's mean,
the labels' own estimate and the label-corrected estimate (PPI++: `estimates.ppi`), with
95 % intervals, and says what the labels are worth (docs/estimates.md).

stdout carries the table, or with `--json` only the JSON list; what the inputs held that was
left out or assumed goes to stderr, one line each. Exit codes: 0 estimated; 2 input that
cannot be estimated from (one line, no traceback).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

EXIT_OK = 0
EXIT_USAGE = 2


def add_estimate_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "estimate", help="the judge's mean corrected by people's labels on a random few items, with 95%% intervals",
        description="Combine the judge's scores on every item of RESULTS with people's labels on a random "
                    "sample of them (PPI++): the label-corrected mean per metric, with a valid 95% "
                    "interval (docs/estimates.md).")
    parser.add_argument("results", type=Path, help="results.jsonl from a batch run")
    parser.add_argument("--labels", type=Path, required=True,
                        help="labels JSONL (`judgegraph label` writes it; lines {\"id\", \"human\"})")
    parser.add_argument("--metric", nargs="+", metavar="METRIC",
                        help="the metrics to estimate (names or comma-separated lists; default: those the "
                             "labels name); a bare `human` value is a label of the one metric given")
    parser.add_argument("--by", metavar="FIELD",
                        help="also per group of items: a field of the records or of their items (with --details)")
    parser.add_argument("--target-width", type=_half_width, metavar="W",
                        help="also say about how many labels in all would give a corrected interval of +-W "
                             "(e.g. 0.05)")
    parser.add_argument("--json", action="store_true", help="print the estimates as a JSON list instead of the table")
    parser.add_argument("--accept-other-results", action="store_true",
                        help="use labels drawn from another results file than RESULTS (the labels file's recorded "
                             "sha256 differs; refused without this flag)")


def _half_width(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: give a half width > 0, on the metric's scale (e.g. 0.05)")
    return value


def _metrics(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    return list(dict.fromkeys(n.strip() for v in values for n in v.split(",") if n.strip())) or None


def estimate_command(args: argparse.Namespace) -> int:
    from rich.console import Console

    from ..console.estimate_table import render_estimates
    from ..console.safe_text import safe_text
    from ..estimates.estimate import EstimateError, estimate_files

    try:
        run = estimate_files(args.results, args.labels, _metrics(args.metric), args.by, args.target_width,
                             accept_other_results=args.accept_other_results)
    except EstimateError as error:
        print(f"judgegraph: {error}", file=sys.stderr)
        return EXIT_USAGE
    errors = Console(stderr=True, soft_wrap=True)
    if args.json:
        sys.stdout.write(json.dumps(run.as_json(), ensure_ascii=True, indent=2, allow_nan=False) + "\n")
    else:
        console = Console()
        if not console.is_terminal and "COLUMNS" not in os.environ:
            console.width = 140
        render_estimates(console, run)
    for note in run.notes:
        errors.print(safe_text(f"judgegraph: {note}", style="yellow"))
    return EXIT_OK
