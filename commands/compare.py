"""`judgegraph compare BEFORE.jsonl AFTER.jsonl`: the command around `judgegraph.comparison`.

stdout carries the table (or, with `--json`, only the JSON); the gate's lines go to stderr,
one per gated metric. Exit codes: 0 compared (and every gated metric passed or was
inconclusive), 1 a gated metric got worse beyond its margin (or had no paired items, or was
inconclusive under `--fail-if-inconclusive`), 2 bad
input or usage, always one line and no traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ..text.visible import visible

EXIT_OK = 0
EXIT_WORSE = 1
EXIT_USAGE = 2


def add_compare_parser(commands: argparse._SubParsersAction) -> None:
    compare = commands.add_parser(
        "compare", help="compare two batch results files item by item, with paired statistics",
        description="Pair two batch results files by item id and compare every metric with paired "
                    "statistics (docs/compare.md).")
    compare.add_argument("before", type=Path, help="results.jsonl of the run before the change")
    compare.add_argument("after", type=Path, help="results.jsonl of the run after the change")
    compare.add_argument("-o", "--output", type=Path, metavar="HTML", help="also write a self-contained HTML page")
    compare.add_argument("--metrics", nargs="+", metavar="METRIC",
                         help="only these metrics (names or comma-separated lists; default: all)")
    compare.add_argument("--json", action="store_true", help="print the comparison as JSON on stdout instead of the table")
    compare.add_argument("--fail-if-worse", metavar="METRIC:MARGIN,...",
                         help="exit 1 when the 95%% interval of after - before lies below -MARGIN "
                              "(e.g. faithfulness:0.02,answer_relevance:0.05)")
    compare.add_argument("--fail-if-inconclusive", action="store_true",
                         help="with --fail-if-worse: exit 1 too when an interval straddles -MARGIN (cannot "
                              "decide); its line says how many more labels or items would")
    compare.add_argument("--labels-a", type=Path, metavar="LABELS",
                         help="labels of BEFORE's answers (ids: its items); with --labels-b, the mean "
                              "differences are corrected by the labels (PPI++) and --fail-if-worse gates on them")
    compare.add_argument("--labels-b", type=Path, metavar="LABELS", help="labels of AFTER's answers (ids: its items)")
    compare.add_argument("--accept-other-results", action="store_true",
                         help="use --labels-a/--labels-b drawn from other results files than BEFORE/AFTER (their "
                              "recorded sha256 differs; refused without this flag)")
    compare.add_argument("--labels", type=Path, help=argparse.SUPPRESS)
    compare.add_argument("--top", type=int, default=5, help="moved items shown per metric (default 5)")
    compare.add_argument("--title", help="the HTML page's title (default: the two file names)")


def _metrics(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    names = [name.strip() for value in values for name in value.split(",") if name.strip()]
    return list(dict.fromkeys(names)) or None


def _check_labels(args: argparse.Namespace) -> None:
    from ..comparison import ComparisonError

    if args.labels is not None:
        raise ComparisonError("compare takes a labels file per run: --labels-a for BEFORE's answers and --labels-b "
                              "for AFTER's (a label judges one answer, and the runs answer each item twice)")
    if (args.labels_a is None) != (args.labels_b is None):
        raise ComparisonError("--labels-a and --labels-b go together: a corrected difference needs labels of "
                              "both runs' answers")


def _check_output_path(args: argparse.Namespace) -> None:
    """`-o` is neither results file, nor a file other than a page judgegraph wrote
    (`schemas.output_paths`)."""
    from ..schemas.output_paths import PathClashError, check_distinct, check_replaced
    from ..comparison import ComparisonError

    try:
        check_distinct([("-o", args.output)], [("BEFORE", args.before), ("AFTER", args.after)])
        check_replaced([("-o", args.output)])
    except PathClashError as error:
        raise ComparisonError(str(error)) from error


def compare_command(args: argparse.Namespace) -> int:
    from rich.console import Console

    from ..comparison import ComparisonError, apply_gate, compare_runs, comparison_json, parse_gate
    from ..console.comparison_table import print_gate, render_comparison
    from ..schemas.untrusted_json import lone_surrogate_at

    try:
        if args.top < 0:
            raise ComparisonError("--top must be 0 or more")
        rules = parse_gate(args.fail_if_worse) if args.fail_if_worse is not None else []
        if args.fail_if_inconclusive and not rules:
            raise ComparisonError("--fail-if-inconclusive applies to a gate: give --fail-if-worse METRIC:MARGIN too")
        _check_labels(args)
        _check_output_path(args)
        comparison = compare_runs(args.before, args.after, metrics=_metrics(args.metrics), top=args.top)
        if args.labels_a is not None:
            from ..comparison.label_correction import add_label_corrections

            add_label_corrections(comparison, args.labels_a, args.labels_b,
                                  accept_other_results=args.accept_other_results)
        verdicts = apply_gate(rules, comparison, args.fail_if_inconclusive) if rules else []
        if args.output is not None:
            from ..report.compare_page import write_compare_page

            write_compare_page(comparison, args.output, verdicts, title=args.title)
    except ComparisonError as error:
        print(f"judgegraph: {visible(str(error))}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        data = comparison_json(comparison, verdicts)
        text = json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False)
        if lone_surrogate_at(text) is not None:  # an id kept JSON-escaped by the batch: no UTF-8 form
            text = json.dumps(data, ensure_ascii=True, indent=2, allow_nan=False)
        sys.stdout.write(text + "\n")
    else:
        console = Console()
        if not console.is_terminal and "COLUMNS" not in os.environ:
            console.width = 120  # CI logs and files: the table's one line per metric, not 80-column wrapping
        render_comparison(console, comparison)
    if args.output is not None:
        print(f"judgegraph: wrote {visible(str(args.output))}", file=sys.stderr)
    print_gate(Console(stderr=True, soft_wrap=True), verdicts)  # one line per metric, never wrapped
    return EXIT_WORSE if any(v.fails for v in verdicts) else EXIT_OK
