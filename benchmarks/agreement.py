"""Agreement with human labels, graph vs single-prompt baseline, with what each costs.

    python -m benchmarks.agreement --data ../shared/bench-data/halueval_qa/sample.jsonl [--limit N]
    python -m benchmarks.agreement --all            # the four sets, combined report + plot

The set is recognised from the sample's folder name. Both methods judge the same items with
the same model; the baseline pass runs first and the graph pass second, so neither reuses the
other's prompt cache on a local llama.cpp server. Results go to `--out-dir` (default
`bench-out/`, git-ignored) as JSON and Markdown.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from judgegraph.run.context import JudgeContext

from benchmarks import report
from benchmarks.datasets import (
    DEFAULT_DATA_ROOT,
    REPO_ROOT,
    SETS,
    BenchSet,
    load_rows,
    sample_path,
    select_rows,
    set_for_path,
)
from benchmarks.figures import agreement, cost
from benchmarks.fetched import DEFAULT_MIRROR_ROOT
from benchmarks.judging import METHODS, add_judge_run_options, run_method
from benchmarks.split import PARTS

EXIT_OK = 0
EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    from judgegraph.commands.cli import add_judge_method_options, add_model_options

    parser = argparse.ArgumentParser(prog="python -m benchmarks.agreement", description=__doc__.splitlines()[0])
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--data", type=Path, help="a bench-data sample, e.g. ../shared/bench-data/stsb/sample.jsonl")
    which.add_argument("--all", action="store_true", help="run the four sets and write the combined report + plot")
    parser.add_argument("--data-root", type=Path, default=DEFAULT_DATA_ROOT,
                        help=f"where the sets live for --all (default: {DEFAULT_DATA_ROOT})")
    parser.add_argument("--sets", default=",".join(SETS),
                        help="with --all: which sets, comma-separated (default: all four)")
    parser.add_argument("--limit", type=int, default=None,
                        help="items per set (default per set: "
                             + ", ".join(f"{s.name} {s.default_limit}" for s in SETS.values()) + ")")
    parser.add_argument("--part", choices=PARTS, default="report",
                        help="which part of the fixed split (benchmarks/split.py): tune rows for tuning, "
                             "report rows for published figures (default: report)")
    parser.add_argument("--methods", default="baseline,graph",
                        help="comma-separated: graph, graph-labels (answer relevance's labels reply, graded), "
                             "baseline (default: baseline,graph)")
    parser.add_argument("--out-dir", type=Path, default=Path("bench-out"),
                        help="where reports and per-item files go (default bench-out/); running the same "
                             "command again resumes from the per-item files there")
    parser.add_argument("--concurrency", type=int, default=None,
                        help="items judged at once (default: 1 for the local model, 4 otherwise)")
    add_model_options(parser)
    add_judge_method_options(parser)
    parser.add_argument("--max-repairs", type=int, default=2, help="re-prompts after invalid replies (default 2)")
    parser.add_argument("--claim-check", choices=("per-claim", "batch"), default="per-claim",
                        help="the graph's claim checks: one call per claim (default) or one call for all")
    return parser


def resolve_data_path(path: Path) -> Path:
    """As typed (relative to the working directory), else relative to the project root, so
    `--data ../shared/bench-data/...` works from the repository and from elsewhere."""
    if path.exists() or path.is_absolute():
        return path
    return REPO_ROOT / path


def run_set(bench: BenchSet, path: Path, context: JudgeContext, args: argparse.Namespace,
            methods: list[str]) -> dict:
    """Judge one set's selected items with each method; its report entry (and per-item file)."""
    rows = select_rows(load_rows(path), bench, args.limit if args.limit is not None else bench.default_limit,
                       args.part)
    return judge_rows(bench, rows, str(path), context, args, methods)


def judge_rows(bench: BenchSet, rows: list[dict], data: str, context: JudgeContext, args: argparse.Namespace,
               methods: list[str]) -> dict:
    """Judge `rows` (already selected) with each method; the report entry of set `bench`.

    `data` says where the rows came from (a sample path, or a snapshot's repo@commit:path);
    `args` gives `part`, `out_dir` and `concurrency`. Sets read from fetched snapshots call
    this directly with their own rows."""
    items = [(row["id"], bench.to_item(row)) for row in rows]
    local = context.model_id.startswith("local:")
    concurrency = args.concurrency or (1 if local else 4)
    graph_concurrency = 1 if local else 8
    entry: dict = {"set": bench.name, "metric": bench.metric, "kind": bench.kind, "data": data,
                   "part": args.part, "limit": len(rows), "methods": {}}
    for method in methods:
        items_path = args.out_dir / f"items-{bench.name}-{args.part}-{method}.jsonl"
        outcomes, wall = run_method(method, context, bench.metric, items, concurrency=concurrency,
                                    graph_concurrency=graph_concurrency, label=bench.name, items_path=items_path)
        entry["methods"][method] = {"agreement": agreement(bench, rows, outcomes), "cost": cost(outcomes, wall),
                                    "items_file": items_path.name}
    return entry


def _commit() -> str | None:
    try:
        done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True,
                              text=True, timeout=10, check=False)
    except OSError:
        return None
    return done.stdout.strip() or None


def run(args: argparse.Namespace, command: str, context: JudgeContext | None = None) -> dict:
    """The whole report; `context` replaces the model flags (tests pass a scripted judge)."""
    from judgegraph.commands.cli import context_from_flags_or_usage_error

    methods = ordered_methods(args.methods)
    if args.all:
        names = [name.strip() for name in args.sets.split(",") if name.strip()]
        unknown_sets = [name for name in names if name not in SETS]
        if unknown_sets or not names:
            raise ValueError(f"--sets takes names from {', '.join(SETS)}, got {args.sets!r}")
        targets = [(SETS[name], sample_path(name, args.data_root)) for name in names]
    else:
        path = resolve_data_path(args.data)
        targets = [(set_for_path(path), path)]
    for _, path in targets:
        if not path.is_file():
            raise FileNotFoundError(f"no sample at {path}")
    context = context or context_from_flags_or_usage_error(args)
    started = datetime.now(timezone.utc)
    sets = [run_set(bench, path, context, args, methods) for bench, path in targets]
    return report_of(sets, context, command, args.part, started)


def ordered_methods(text: str) -> list[str]:
    """The methods named in `--methods`, the baseline first: see the module docstring (prompt
    cache fairness)."""
    methods = [m.strip() for m in text.split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise ValueError(f"--methods takes graph, graph-labels and/or baseline, got {text!r}")
    return [m for m in ("baseline", "graph", "graph-labels") if m in methods]


def report_of(sets: list[dict], context: JudgeContext, command: str, part: str, started: datetime) -> dict:
    """The report around the sets' entries: when, which model and commit, which settings."""
    return {
        "generated_at": started.strftime("%Y-%m-%d %H:%M UTC"),
        "finished_at": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "model": context.model_id,
        "command": command,
        "commit": _commit(),
        "host": {"cores": os.cpu_count(), "python": platform.python_version()},
        "settings": {"max_repairs": context.max_repairs, "claim_check": context.claim_check,
                     "claim_extraction": context.claim_extraction, "embeddings": context.embeddings,
                     "top_logprobs": context.top_logprobs, "part": part},
        "sets": sets,
    }


# --- shared by the agreement runs over a fetched snapshot (wikiqa_relevance, citation_agreement,
# conversation_agreement): one place for their common flags, usage failures and report files

COST_SUMMARY_KEYS = ("judged", "failed", "calls_per_item", "input_tokens_per_item")


def add_snapshot_run_options(parser: argparse.ArgumentParser, out_dir: Path) -> None:
    """The flags a snapshot-backed agreement run ends with: concurrency, where the snapshot
    mirror is, where reports and per-item files go (`out_dir` by default), the judge's flags."""
    parser.add_argument("--concurrency", type=int, default=None,
                        help="items judged at once (default: 1 for the local model, 4 otherwise)")
    parser.add_argument("--mirror-root", type=Path, default=DEFAULT_MIRROR_ROOT)
    parser.add_argument("--out-dir", type=Path, default=out_dir,
                        help="reports and per-item files; the same command again resumes from them")
    add_judge_run_options(parser)


def command_line(module: str, argv: list[str]) -> str:
    """How a run of `benchmarks.<module>` is recorded in its report."""
    return f"python -m benchmarks.{module} " + shlex.join(argv)


def usage_failure(error: Exception) -> int:
    """A bad flag or an unusable judge: said on stderr, exit code 2 (nothing was judged)."""
    print(f"benchmarks: {error}", file=sys.stderr)
    return EXIT_USAGE


def entry_summary(entry: dict, agreement_keys: tuple[str, ...], **extra: object) -> dict:
    """The figures a reader wants first, per method: `agreement_keys` of the set's agreement
    and the cost per item; `extra` fields go after the item count."""
    return {"set": entry["set"], "part": entry["part"], "items": entry["limit"], **extra, "methods": {
        method: {**{key: data["agreement"].get(key) for key in agreement_keys},
                 **{key: data["cost"][key] for key in COST_SUMMARY_KEYS}}
        for method, data in entry["methods"].items()}}


def write_entry_report(entry: dict, context: JudgeContext, command: str, part: str, started: datetime,
                       out_dir: Path, stem: str, summary: dict) -> int:
    """One set's report as `<stem>.json` / `.md` in `out_dir` (the paths on stderr), and its
    `summary` as JSON on stdout."""
    written = report.write(report_of([entry], context, command, part, started), out_dir, stem)
    print("wrote " + ", ".join(str(p) for p in written), file=sys.stderr)
    print(json.dumps(summary, indent=2))
    return EXIT_OK


def main(argv: list[str] | None = None, context: JudgeContext | None = None, *,
         command: str | None = None) -> int:
    """`command` is how the run is recorded in the report (the suite passes its own)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    from judgegraph.commands.cli import UsageError

    try:
        result = run(args, command or command_line("agreement", argv), context)
    except (UsageError, ValueError, FileNotFoundError) as error:
        return usage_failure(error)
    stem = "benchmarks" if args.all else f"agreement-{result['sets'][0]['set']}"
    written = report.write(result, args.out_dir, stem, with_plot=args.all)
    sys.stdout.write(report.markdown(result))
    print("wrote " + ", ".join(str(p) for p in written), file=sys.stderr)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
