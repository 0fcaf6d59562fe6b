"""`judgegraph calibrate LABELS.jsonl --metric METRIC -o profile.json`: fit a profile.

METRIC is faithfulness, context_relevance or answer_relevance (`fitting.fitted_metrics`).

1. The labelled items are judged as a resumable batch with `--details` and a step cache
   (`<profile>.judged.jsonl`, `<profile>.cache.sqlite` beside the profile unless given), each
   asking for the fitted metric only, with every optional signal recorded
   (`JudgeContext.record_all_signals`): a second run, or a refit after an interruption,
   re-asks nothing.
2. The decisions are fitted with k-fold cross-validation on the recorded signals (no judge
   call: `fitting.recompute`, `fitting.recompute_relevance`), and the held-out
   agreement before (the profile this judge runs with today: the shipped profile fitted for its
   model id, else the default) and after (fitted) is printed with bootstrap intervals, then the
   learning curve.
3. The profile is written: the fitted metric's section fitted on all labels, the other metrics'
   sections those of the profile the fit started from, so a relevance fit for the embedded judge
   keeps its shipped faithfulness decisions; for `evaluate --calibration profile.json`.

Every problem the user can fix is one line on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..schemas.version import __version__
from ..schemas.output_paths import PathClashError, check_distinct, check_replaced
from ..calibration.profile import (
    FitRecord,
    Profile,
    ProfileError,
    default_profile,
    load_profile,
    shipped_profile_for,
    write_profile,
)
from ..console.steps import StepProgress
from ..fitting.agreement import PRIMARY
from ..fitting.fit_checks import fit_refusal, labels_refusal
from ..fitting.labels import Labels, LabelsError, read_labels
from ..run.context import JudgeContext
from ..text.visible import visible

EXIT_OK = 0
EXIT_NOTHING_JUDGED = 1
EXIT_USAGE = 2


def _sibling(output: Path, suffix: str) -> Path:
    return output.with_name(output.name.removesuffix(".json") + suffix)


def _items_path(judged: Path) -> Path:
    """Where the labelled items are written for the judging batch: beside the judged file."""
    return _sibling(judged, ".items.jsonl") if judged.suffix == ".jsonl" else judged.with_suffix(".items.jsonl")


def _judge_args(args: argparse.Namespace, items: Path, judged: Path, cache: Path) -> argparse.Namespace:
    """The `evaluate` flags of the judging batch, parsed by the CLI's own parser (`args.parser`,
    handed in by `commands.cli`, which this module does not import)."""
    argv = ["evaluate", str(items), "--out", str(judged), "--details", "--cache", str(cache),
            "--max-repairs", str(args.max_repairs), "--claims", args.claims,
            "--timeout", str(args.timeout), "--retries", str(args.retries)]
    for flag, value in (("--model", args.model), ("--base-url", args.base_url), ("--api-key", args.api_key),
                        ("--local-model", args.local_model), ("--response-format", args.response_format),
                        ("--concurrency", args.concurrency)):
        if value is not None:
            argv += [flag, str(value)]
    if args.no_embeddings:
        argv.append("--no-embeddings")
    if getattr(args, "start", None):  # the items are judged under the rules the fit starts from
        argv += ["--calibration", str(args.start), "--allow-profile-mismatch"]
    return args.build_parser().parse_args(argv)


def _judged_already(labels: Labels, judged: Path, read: Callable[[dict], Any]) -> str | None:
    """The recorded judge's model id when every labelled item already has a record in `judged`
    that `read` (the fitted metric's reader) can use; None otherwise (or when the records name
    no single judge)."""
    from ..batch.writer import iter_records

    if not judged.is_file():
        return None
    judges: set[str] = set()
    done: set[str] = set()
    for _, record in iter_records(judged):
        if record is not None and read(record) is not None:
            done.add(str(record.get("id")))
            provenance = record.get("provenance")
            judges.add(str(provenance.get("judge_model")) if isinstance(provenance, dict) else "")
    if len(judges) != 1 or "" in judges or any(entry.id not in done for entry in labels.items):
        return None
    return judges.pop()


def judge_labelled_items(args: argparse.Namespace, labels: Labels, judged: Path, cache: Path,
                         read: Callable[[dict], Any]) -> tuple[int, str]:
    """Judge (or resume judging) the items; (exit code, the judge's model id).

    When every item is already judged, the judge is not even started: a refit needs no model
    (no local server to load, no API key), and the profile names the judge the records name."""
    recorded_judge = _judged_already(labels, judged, read)
    if recorded_judge is not None:
        print(f"judgegraph: every labelled item is already judged in {visible(judged.name)} (judge {visible(recorded_judge)}); "
              f"fitting on those records without calling a judge", file=sys.stderr)
        return EXIT_OK, recorded_judge
    from .batch import run_batch_command  # the judging stack (model clients), only when judging
    from .judge_flags import judge_from_flags

    items = _items_path(judged)
    items.write_text("".join(json.dumps({"id": e.id, **e.item}, ensure_ascii=False, allow_nan=False) + "\n" for e in labels.items),
                     encoding="utf-8")
    seen: dict[str, JudgeContext] = {}

    def make_judge(flags: argparse.Namespace) -> tuple[JudgeContext, int]:
        context, concurrency = judge_from_flags(flags)
        context = replace(context, record_all_signals=True)
        seen["context"] = context
        return context, concurrency

    code = run_batch_command(_judge_args(args, items, judged, cache), make_judge)
    return code, seen["context"].model_id if "context" in seen else ""


def _any_judged(judged: Path) -> bool:
    """Whether any record of the judged file holds a judged metric (a fit needs one)."""
    from ..batch.summary import has_a_judged_metric
    from ..batch.writer import iter_records

    return any(record is not None and has_a_judged_metric(record) for _, record in iter_records(judged))


def _cell(figure: dict) -> str:
    value, interval = figure.get("value"), figure.get("interval")
    if value is None:
        return "n/a"
    return f"{value:.3f}" + (f" [{interval[0]:.2f}, {interval[1]:.2f}]" if interval else "")


def print_figures(console: Console, figures: dict, curve: list[dict], folds: int, start_id: str) -> None:
    table = Table(title=f"Held-out agreement ({folds}-fold CV, {figures['n']} items, 95% bootstrap)")
    for column in ("figure", f"before (profile {start_id})", "after (fitted)", "difference"):
        table.add_column(column)
    for name, entry in figures.items():
        if name == "n":
            continue
        diff = entry.get("difference")
        label = f"{name} ({entry['pairs']} pairs)" if "pairs" in entry else name
        table.add_row(label, _cell(entry["before"]), _cell(entry["after"]),
                      f"[{diff[0]:+.2f}, {diff[1]:+.2f}]" if diff else "n/a")
    console.print(table)
    curve_table = Table(title="Learning curve (held-out, fitted on this many training labels per fold)")
    curve_table.add_column("labels")
    curve_table.add_column(curve[0]["statistic"] if curve else "agreement")
    for point in curve:
        curve_table.add_row(str(point["labels"]), _cell(point))
    console.print(curve_table)


def calibrate_command(args: argparse.Namespace) -> int:
    from ..fitting.cross_validation import (
        BOOTSTRAP_RESAMPLES,
        cross_validate,
        held_out_figures,
        learning_curve,
        learning_curve_sizes,
    )
    from ..fitting.fitted_metrics import FITTED_METRICS
    from ..fitting.monotone import FitError
    from ..fitting.recompute import labelled_recordings

    console = Console(stderr=True)
    metric = FITTED_METRICS[args.metric]
    try:
        labels = read_labels(args.labels, args.metric)
    except LabelsError as error:
        print(f"judgegraph: {visible(str(error))}", file=sys.stderr)
        return EXIT_USAGE
    if args.folds < 2:
        print("judgegraph: --folds must be at least 2", file=sys.stderr)
        return EXIT_USAGE
    try:
        chosen_start = load_profile(args.start) if getattr(args, "start", None) else None
    except ProfileError as error:
        print(f"judgegraph: {visible(str(error))}", file=sys.stderr)
        return EXIT_USAGE
    groups_by_id = labels.groups
    refusal = labels_refusal(labels.values, labels.kind,
                             None if groups_by_id is None else list(groups_by_id.values()), args.folds)
    if refusal is not None:
        print(f"judgegraph: cannot fit {visible(args.labels.name)}: {refusal}", file=sys.stderr)
        return EXIT_USAGE
    judged = args.judged or _sibling(args.output, ".judged.jsonl")
    cache = args.cache or _sibling(args.output, ".cache.sqlite")
    try:
        check_distinct([("-o", args.output), ("--judged", judged), ("--cache", cache),
                        ("the items file", _items_path(judged))],
                       [("LABELS", args.labels), ("--start", getattr(args, "start", None))])
        check_replaced([("-o", args.output)], "profile")
    except PathClashError as error:
        print(f"judgegraph: {visible(str(error))}", file=sys.stderr)
        return EXIT_USAGE
    code, model_id = judge_labelled_items(args, labels, judged, cache, metric.read)
    if code not in (EXIT_OK, EXIT_NOTHING_JUDGED):  # 1: some items failed; fit on those judged
        return code
    if code == EXIT_NOTHING_JUDGED and not _any_judged(judged):
        print(f"judgegraph: no labelled item could be judged (see {visible(judged.name)})", file=sys.stderr)
        return EXIT_NOTHING_JUDGED
    pairs = labelled_recordings(judged, labels, metric.read)
    if not pairs:
        print(f"judgegraph: no record in {visible(judged.name)} was judged for {args.metric} (were its items judged "
              f"for another metric? give another -o or --judged)", file=sys.stderr)
        return EXIT_USAGE
    if len(pairs) < len(labels.items):
        console.print(f"[yellow]{len(labels.items) - len(pairs)} labelled item(s) have no judged record with "
                      f"details in {escape(visible(judged.name))}; fitting on {len(pairs)}[/]")
    items, values = [p[0] for p in pairs], [p[1] for p in pairs]
    groups = None if groups_by_id is None else [groups_by_id[item.id] for item in items]
    refusal = labels_refusal(values, labels.kind, groups, args.folds)
    if refusal is not None:
        print(f"judgegraph: cannot fit the {len(values)} judged item(s) of {visible(args.labels.name)}: {refusal}",
              file=sys.stderr)
        return EXIT_USAGE
    levels = sorted(set(values))
    start_profile = chosen_start or shipped_profile_for(model_id) or default_profile()
    default = start_profile.section(args.metric).parameters
    options = {"folds": args.folds, "levels": levels, "groups": groups}
    sizes = learning_curve_sizes(len(items), args.folds)

    def curve_point(size: int | None) -> None:
        progress.step(f"learning curve: fits on {size} training labels per fold" if size is not None
                      else "learning curve: intervals of the held-out figure")

    try:
        with StepProgress(console, "calibrate", 3 + len(sizes)) as progress:
            progress.step(f"{args.folds}-fold cross-validation of the fit on {len(items)} labels")
            held = cross_validate(metric.fitting, items, values, labels.kind, default, **options)
            progress.step(f"bootstrap intervals of the held-out figures ({BOOTSTRAP_RESAMPLES:,} resamples)")
            figures = held_out_figures(held, labels.kind, levels)
            curve = learning_curve(metric.fitting, items, values, labels.kind, default, full=held,
                                   on_point=curve_point, **options)
            progress.step(f"fitting the profile on all {len(items)} labels")
            fitted = metric.fitting.fit(items, values, labels.kind, default, levels, groups)
    except (FitError, ValueError) as error:  # ValueError: scikit-learn's word on labels it cannot split
        why = (str(error).splitlines() or [type(error).__name__])[0]
        print(f"judgegraph: cannot fit {visible(args.labels.name)}: {visible(why)}", file=sys.stderr)
        return EXIT_USAGE
    print_figures(console, figures, curve, args.folds, start_profile.id)
    refusal = fit_refusal(figures, labels.kind, fitted, items, metric.fitting.score)
    if refusal is not None and not getattr(args, "force", False):
        print(f"judgegraph: not writing {visible(str(args.output))}: {refusal}; add labels, or pass --force "
              f"to write it anyway", file=sys.stderr)
        return EXIT_USAGE
    if refusal is not None:
        console.print(f"[yellow]warning: --force: writing the profile although {escape(refusal)}[/]", soft_wrap=True)
    fit = FitRecord(data_sha256=labels.sha256, n=len(items), label_kind=labels.kind, folds=args.folds,
                    figures={"primary": PRIMARY[labels.kind], **figures}, learning_curve=curve)
    sections = {name: start_profile.section(name) for name in FITTED_METRICS}
    sections[args.metric] = metric.section(parameters=fitted, signal_hash=metric.signal_hash, fit=fit)
    slug = "".join(c if c.isalnum() else "-" for c in model_id).strip("-")[:60] or "judge"
    profile = Profile(id=f"{args.metric}-{slug}-{labels.sha256[:8]}", judge_model=model_id or None,
                      description=f"Fitted by judgegraph calibrate on {args.labels.name} ({len(items)} items, "
                                  f"{labels.kind} labels); {args.metric} only, the other metrics as profile "
                                  f"{start_profile.id}.",
                      judgegraph_version=__version__, **sections)
    try:
        write_profile(profile, args.output)
    except OSError as error:
        print(f"judgegraph: cannot write {visible(str(args.output))}: {error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    shown = escape(visible(str(args.output)))
    console.print(f"wrote profile {escape(profile.id)} to {shown} (apply it with "
                  f"`judgegraph evaluate ... --calibration {shown}`)")
    return EXIT_OK
