"""judgegraph's command line: `python cli.py evaluate item.json` (also installed as `judgegraph`),
`report` (an HTML page of a batch), `compare` (two batches, paired: `commands/compare.py`),
`estimate` (the judge's mean corrected by people's labels: `commands/estimate.py`), `label`
(people label a sample: `commands/label.py`) and `serve-local`.

stdout carries only result JSON; the trace, progress and messages go to stderr. Exit codes
(docs/exit-codes.md, the same table for every command): 0 judged; 1 nothing judged (an
invalid item, every metric failed, a batch none of whose records holds a judged metric) or a
failed gate; 2 for usage errors, an unreadable input file, or a judge that cannot be set up or
reached, always with one line and no traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from ..llm.response_format import DIALECTS
from ..text.visible import visible
from .calibrate_parser import add_calibrate_parser
from .compare import add_compare_parser, compare_command
from .escalation_fit import add_escalation_fit_parser
from .escalation_options import add_escalation_options
from .estimate import add_estimate_parser
from .label import add_label_parser, label_command
from .otel_option import add_otel_option

EXIT_OK = 0
EXIT_USAGE = 2
DEFAULT_MAX_ITEM_BYTES = 1_000_000
"""`--max-line-bytes`'s default: the size of one batch line, and of one item file."""


class UsageError(Exception):
    """A problem the user can fix; printed as one line, exit 2."""


def build_parser() -> argparse.ArgumentParser:
    from ..schemas.version import __version__

    parser = argparse.ArgumentParser(prog="judgegraph", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"judgegraph {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    evaluate = commands.add_parser("evaluate", help="judge one JSON item, or a JSONL batch")
    evaluate.add_argument("input", help="item.json (one item), or a batch: items.jsonl, a .json array, .csv, .parquet")
    evaluate.add_argument("--rubric", help="rag, coverage, expected_output, liverag (default: from the item)")
    evaluate.add_argument("--input-format", choices=("jsonl", "json", "csv", "parquet"), default=None,
                          help="how to read the input (default: from its extension; docs/input-fields.md)")
    evaluate.add_argument("--map", metavar="FIELD=KEY,...", default=None,
                          help="read a field from another key, e.g. question=prompt,context=passages "
                               "(RAGAS, DeepEval and LangChain names are read without it; docs/input-fields.md)")
    add_model_options(evaluate)
    evaluate.add_argument("--max-repairs", type=int, default=2, help="re-prompts after invalid replies (default 2)")
    evaluate.add_argument("--claim-check", choices=("per-claim", "batch"), default="per-claim",
                          help="one call per claim (default) or all claims in one call")
    add_judge_method_options(evaluate)
    add_escalation_options(evaluate)
    evaluate.add_argument("--calibration", type=Path, metavar="PROFILE",
                          help="decide scores with this calibration profile (from `judgegraph calibrate`; "
                               "default: the shipped profile for the judge, else the default one)")
    evaluate.add_argument("--allow-profile-mismatch", action="store_true",
                          help="apply --calibration even if it was fitted for another judge model")
    evaluate.add_argument("--concurrency", type=int, default=None,
                          help="parallel model calls (default: 8 remote, 1 local)")
    evaluate.add_argument("--trace", action="store_true", help="show the step-by-step trace on stderr")
    evaluate.add_argument("--trace-out", type=Path, help="write the trace as JSON to this file")
    evaluate.add_argument("--out", type=Path, help="batch: results JSONL (resumable)")
    add_otel_option(evaluate)
    add_batch_options(evaluate)

    report = commands.add_parser("report", help="write a self-contained HTML report of a results JSONL")
    report.add_argument("results", type=Path, help="results.jsonl from a batch run (best with --details)")
    report.add_argument("-o", "--output", type=Path, required=True, help="the HTML file to write")
    report.add_argument("--title", help="the report's title (default: the results file name)")
    report.add_argument("--labels", type=Path,
                        help="a labels JSONL (`judgegraph label`): also show each metric's label-corrected "
                             "estimate beside the judge's mean, as `judgegraph estimate` computes it")
    report.add_argument("--metric", nargs="+", metavar="METRIC",
                        help="with --labels: the metrics to estimate (default: those the labels name); a bare "
                             "`human` value is a label of the one metric given")
    report.add_argument("--accept-other-results", action="store_true",
                        help="with --labels: use labels drawn from another results file (the labels file's "
                             "recorded sha256 differs; refused without this flag)")

    add_compare_parser(commands)
    add_estimate_parser(commands)
    add_calibrate_parser(commands, add_model_options, add_judge_method_options)
    add_escalation_fit_parser(commands)
    add_label_parser(commands)

    serve = commands.add_parser("serve-local", help="start the embedded local judge server and print its URL")
    serve.add_argument("--local-model", help="a GGUF file to serve instead of the embedded model")
    serve.add_argument("--port", type=int, default=None)
    return parser


def add_model_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", help="provider:name (e.g. openai:gpt-4o-mini), a model name with --base-url, or 'local'")
    parser.add_argument("--base-url", help="an OpenAI-compatible server (default: $OPENAI_BASE_URL)")
    parser.add_argument("--api-key", help="API key (default: $OPENAI_API_KEY)")
    parser.add_argument("--local-model", help="run this GGUF file with the embedded llama.cpp server")
    parser.add_argument("--response-format", choices=DIALECTS, default=None,
                        help="how JSON schemas are sent: json_schema (OpenAI), json_object (llama.cpp), none")
    parser.add_argument("--timeout", type=float, default=120.0, help="total seconds per HTTP attempt, the whole reply included (default 120)")
    parser.add_argument("--retries", type=int, default=3, help="transport retries per call (default 3)")


def add_batch_options(parser: argparse.ArgumentParser) -> None:
    """Batch-only flags (see docs/batch.md)."""
    parser.add_argument("--format", choices=("jsonl", "csv"), default="jsonl",
                        help="batch: also write a flat CSV next to --out (default: JSONL only)")
    parser.add_argument("--dry-run", action="store_true",
                        help="estimate calls and tokens per item and in total; no model is called")
    parser.add_argument("--cache", type=Path, metavar="PATH",
                        help="batch: persistent SQLite step cache (re-runs re-ask only changed prompts)")
    parser.add_argument("--max-line-bytes", type=int, default=DEFAULT_MAX_ITEM_BYTES,
                        help="largest input line of a batch (longer ones become failed records) and "
                             "largest one-item file (a larger one is refused, exit 2); default 1000000")
    parser.add_argument("--details", action="store_true",
                        help="batch: each line also carries the item, claims, verdicts and step trace")
    parser.add_argument("--html", type=Path, metavar="PATH",
                        help="batch: also write a self-contained HTML report (see `judgegraph report`)")
    parser.add_argument("--engine", choices=("local", "ray"), default="local",
                        help="batch: judge in this process (local) or over a Ray cluster with Ray Data "
                             "(ray; needs the [ray] extra; see docs/batch.md)")
    parser.add_argument("--ray-address", metavar="ADDRESS",
                        help="--engine ray: the cluster to join (default: $RAY_ADDRESS, else a local Ray)")
    parser.add_argument("--ray-actors", type=int, metavar="N",
                        help="--engine ray: judge actors, each with --concurrency items in flight (default 2)")
    parser.add_argument("--retry-failed", action="store_true",
                        help="batch: judge again the items whose records in --out failed (their records "
                             "are replaced)")
    parser.add_argument("--force-resume", action="store_true",
                        help="batch: resume --out even though its records were judged another way "
                             "(judge, profile, judging flags); the file then mixes both")


def read_item(path: Path, max_bytes: int = DEFAULT_MAX_ITEM_BYTES, shown_name: str | None = None) -> Any:
    """The single item in `path`. A file that cannot be read or parsed at all, or that gives a
    key twice (JSON keeps only the last value), is a usage error (one line, exit 2); a parsed item that holds what the judge cannot use (a lone surrogate,
    NaN, a 5,000-digit integer, deep nesting) is left to input validation, which fails it in
    its rubric's shape with the reason (`schemas.untrusted_json`). A UTF-8 byte-order mark is
    encoding, not data (utf-8-sig).

    An item file over `max_bytes` (`--max-line-bytes`, the limit of a batch line) is refused
    before it is parsed: one item is bounded like one line of a batch, so its text work and
    memory are too. The file is read with that cap, never whole."""
    from ..schemas.untrusted_json import UntrustedJsonError, loads_untrusted, repeated_key_problem

    try:
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as error:
        raise UsageError(f"cannot read {shown_name or path}: {error.strerror or error}") from error
    if len(data) > max_bytes:
        raise UsageError(f"{shown_name or path} is over the limit of {max_bytes} bytes for one item (--max-line-bytes)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        from ..schemas.input_file import wide_text_problem

        reason = wide_text_problem(data) or f"not UTF-8 text ({error.reason})"
        raise UsageError(f"cannot read {shown_name or path}: {reason}") from error
    try:
        value = loads_untrusted(text)
    except UntrustedJsonError as error:
        from ..schemas.input_file import JSONL_HINT, looks_like_jsonl

        reason = JSONL_HINT if looks_like_jsonl(data) else str(error)
        raise UsageError(f"cannot parse {shown_name or path}: {reason}") from error
    repeated = repeated_key_problem(value)
    if repeated:
        raise UsageError(f"cannot parse {shown_name or path}: {repeated}")
    return value


def context_from_flags_or_usage_error(args: argparse.Namespace):
    """The JudgeContext for the CLI flags; ModelConfigError becomes a one-line usage error."""
    from ..llm.models import ModelConfigError
    from . import judge_flags

    try:
        return judge_flags.context_from_flags(args)
    except ModelConfigError as error:
        raise UsageError(str(error)) from error


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of tokens, not {text}")
    return value


def add_judge_method_options(parser: argparse.ArgumentParser) -> None:
    """How the graph judges (shared by the CLI and the benchmarks)."""
    parser.add_argument("--claims", choices=("sentences", "model"), default="sentences",
                        help="claims are the answer's sentences and clauses, cut in code (default), "
                             "or listed by the judge model (one more call; for strong judges)")
    parser.add_argument("--no-embeddings", action="store_true",
                        help="do not use the sentence-embedding model (similarity and evidence lines "
                             "fall back to the judge and to word overlap)")
    parser.add_argument("--context-window", type=_positive_int, default=None, metavar="TOKENS",
                        help="the judge's context window in tokens, for a remote judge (the embedded "
                             "judge's is known): no prompt's context outgrows it")
    parser.add_argument("--context-cap-tokens", type=_positive_int, default=None, metavar="TOKENS",
                        help="context tokens one judge call may carry (default 1024, estimated at 3 bytes "
                             "per token); a longer context shows the judge its lines closest to the "
                             "question or claim, chosen over the whole context")


def checked_field_map_or_usage_error(spec: str | None) -> dict[str, str]:
    """`--map`, parsed and checked; a bad one is a one-line usage error. The one check of the
    flag: the checked map (`input_fields.FieldMap`) is what both modes are handed, and neither
    the batch's options nor `run_evaluation` nor the graph's first node checks it again."""
    from ..graph.every_item.input_fields import checked_field_map
    from ..schemas.field_aliases import FieldMapError

    try:
        return checked_field_map(spec)
    except FieldMapError as error:
        raise UsageError(str(error)) from error


def check_paths_or_usage_error(outputs, inputs, pages=(), traces=()) -> None:
    """No output over an input or another output, and no page or trace (of `pages`, `traces`,
    outputs too) over a file other than one of its kind judgegraph wrote
    (`schemas.output_paths`); a clash is a usage error."""
    from ..schemas.output_paths import PathClashError, check_distinct, check_replaced

    try:
        check_distinct(outputs, inputs)
        check_replaced(pages)
        check_replaced(traces, "trace")
    except PathClashError as error:
        raise UsageError(str(error)) from error


def warn_about_reading(fields: dict[str, Any]) -> None:
    """One stderr line per thing the item's reading left out: keys no rubric reads, `--map`
    sources the item lacks; never silent (stdout stays the result only)."""
    from ..graph.every_item.input_fields import keys_text

    if fields.get("unused_keys"):
        print(f"judgegraph: warning: keys not used, not judged: {visible(keys_text(fields['unused_keys']))} "
              "(docs/input-fields.md lists the names read; --map reads others)", file=sys.stderr)
    for note in [*fields.get("map_notes", []), *fields.get("notes", [])]:
        print(f"judgegraph: warning: {visible(note)}", file=sys.stderr)
    if fields.get("shape"):
        print(f"judgegraph: read as a {visible(fields['shape'])} row (docs/input-fields.md)", file=sys.stderr)


def checked_rubric_or_usage_error(name: str | None) -> None:
    """`--rubric` names a rubric judgegraph has, else a usage error (exit 2) before any item is
    read: a typo was ignored for an item that names its own rubric (exit 0) and failed the
    others as invalid items (exit 1), where docs/exit-codes.md says a bad flag is 2."""
    if name in (None, ""):
        return
    from ..graph import rubrics

    if name not in rubrics.names():
        raise UsageError(f"--rubric: unknown rubric {name!r} (known: {', '.join(rubrics.names())})")


def readable_input_or_usage_error(args: argparse.Namespace) -> str:
    """The input as a file every pass can read (`schemas.input_file`: `-`, pipes and gzip
    copied once); a copy keeps the name the user gave for messages (`args.input_name`). An
    input that is not there is said so, whatever else the flags ask (without `--out`, a batch
    name was answered "a batch needs --out FILE", as if the file were there)."""
    from ..schemas.input_file import STDIN, InputFileError, readable_input

    args.input_name = args.input
    if args.input != STDIN and not Path(args.input).exists():
        raise UsageError(f"cannot read {args.input}: No such file or directory")
    try:
        path, _copied = readable_input(args.input)
    except InputFileError as error:
        raise UsageError(str(error)) from error
    return path


def otel_or_usage_error(args: argparse.Namespace) -> bool:
    """Whether to export traces (`--otel`, `JUDGEGRAPH_OTEL`); without the extra, a usage error."""
    from .otel_option import OtelUnavailable
    from .otel_option import wants_otel

    try:
        return wants_otel(args)
    except OtelUnavailable as error:
        raise UsageError(str(error)) from error


def evaluate_command(args: argparse.Namespace) -> int:
    from ..schemas.input_file import input_format, is_batch_format

    otel = otel_or_usage_error(args)
    if not otel:
        from .otel_option import load_langsmith_without_opentelemetry

        load_langsmith_without_opentelemetry()
    field_map = args.map = checked_field_map_or_usage_error(getattr(args, "map", None))  # handed on checked
    checked_rubric_or_usage_error(getattr(args, "rubric", None))
    args.input = readable_input_or_usage_error(args)
    fmt = input_format(Path(args.input), getattr(args, "input_format", None))
    if is_batch_format(fmt) or args.out is not None or getattr(args, "dry_run", False):
        from .batch import run_batch_command
        from .judge_flags import judge_from_flags

        return run_batch_command(args, judge_from_flags)
    check_paths_or_usage_error([("--trace-out", args.trace_out)],
                               [("the input", Path(args.input)), ("--calibration", getattr(args, "calibration", None))],
                               traces=[("--trace-out", args.trace_out)])
    item = read_item(Path(args.input), args.max_line_bytes, getattr(args, "input_name", None))
    if isinstance(item, list):
        raise UsageError(f"{args.input_name} holds a list of {len(item):,} items, a batch: "
                         "judge it with --out results.jsonl")
    from ..schemas.export_documents import document_rows

    table = document_rows(item)
    if table is not None:
        raise UsageError(f"cannot read {args.input_name} as a {table.shape}: {table.problem}" if table.problem else
                         f"{args.input_name} holds a {table.shape} of {len(table.rows):,} rows, a batch: "
                         "judge it with --out results.jsonl")
    from ..schemas.field_aliases import is_conversation

    if is_conversation(item):
        raise UsageError(f"{args.input_name} holds a conversation, judged turn by turn with a record per turn: "
                         "judge it with --out results.jsonl (docs/conversations.md)")
    context = context_from_flags_or_usage_error(args)
    from ..graph.api import run_evaluation
    from ..llm.embedding_availability import embeddings_missing
    from .judge_flags import default_concurrency

    if embeddings_missing(context):
        from rich.console import Console

        from .announce import announce_missing_embeddings

        announce_missing_embeddings(Console(stderr=True))

    clock = None
    if otel:
        from .otel_option import step_clock

        clock, started_ns = step_clock(), time.time_ns()
    run = run_evaluation(
        item, model=context, rubric=args.rubric,
        max_concurrency=default_concurrency(args, context.model_id), field_map=field_map,
        callbacks=[clock] if clock is not None else None, max_item_chars=None,  # read_item bounded its bytes
    )
    ended_ns = time.time_ns() if clock is not None else 0
    from .item_outcome import EXIT_JUDGE, item_exit_code, judge_problem

    unreachable = judge_problem(run, context)
    if unreachable is not None:  # nothing was judged: no result on stdout, one line, exit 2
        print(f"judgegraph: {visible(unreachable)}", file=sys.stderr)
        return EXIT_JUDGE
    sys.stdout.write(json.dumps(run.result, ensure_ascii=False, indent=2, allow_nan=False) + "\n")
    sys.stdout.flush()
    if clock is not None:
        from .otel_option import open_item_tracer, trace_one_item

        trace_one_item(open_item_tracer(), item, run, context.model_id, args.input_name, clock, started_ns, ended_ns)
    warn_about_reading(run.input_fields)
    if args.trace:
        from rich.console import Console

        from ..console.trace_view import render_trace
        from ..schemas.citations import citation_report

        render_trace(Console(stderr=True), run.trace, run.verdicts,
                     title=f"judgegraph trace · {', '.join(run.rubrics)} · {context.model_id} · profile {run.profile_id}",
                     citations=citation_report(run.results.get("rag")))
    if args.trace_out:
        trace = run.trace_json() | {"model": context.model_id}  # "profile" names the calibration
        try:
            args.trace_out.write_text(json.dumps(trace, ensure_ascii=False, indent=2, allow_nan=False), encoding="utf-8")
        except OSError as error:
            raise UsageError(f"cannot write {args.trace_out}: {error.strerror or error}") from error
    return item_exit_code(run, context, probe=False)


def report_command(args: argparse.Namespace) -> int:
    from ..report import ReportError, write_report

    check_paths_or_usage_error([("-o", args.output)], [("the results file", args.results)], [("-o", args.output)])
    try:
        if args.metric and args.labels is None:
            raise UsageError("--metric names the metrics to estimate from --labels: give --labels too")
        metrics = list(dict.fromkeys(n.strip() for v in args.metric or [] for n in v.split(",") if n.strip()))
        stats = write_report(args.results, args.output, title=args.title, labels=args.labels,
                             metrics=metrics or None, accept_other_results=args.accept_other_results)
    except ReportError as error:
        raise UsageError(str(error)) from error
    print(f"judgegraph: wrote {visible(str(args.output))} ({stats.items:,} items, {stats.failed:,} failed)", file=sys.stderr)
    return EXIT_OK


def serve_local_command(args: argparse.Namespace) -> int:
    from ..local_model import (
        LocalServerError,
        ModelAssemblyError,
        ensure_local_model,
        serve_forever,
    )
    from ..local_model.status import to_stderr

    try:
        path = args.local_model or ensure_local_model(status=to_stderr)
        serve_forever(path, port=args.port, status=to_stderr)
    except (ModelAssemblyError, LocalServerError) as error:
        raise UsageError(str(error).splitlines()[0]) from error
    return EXIT_OK


LOADS_LANGSMITH = ("calibrate", "report", "compare")
"""Commands without `--otel` whose code loads langchain-core (and so `langsmith.client`): they
load it with OpenTelemetry out of sight, as `evaluate` does without `--otel`."""


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command in LOADS_LANGSMITH:
        from .otel_option import load_langsmith_without_opentelemetry

        load_langsmith_without_opentelemetry()
    try:
        if args.command == "evaluate":
            return evaluate_command(args)
        if args.command == "report":
            return report_command(args)
        if args.command == "compare":
            return compare_command(args)
        if args.command == "estimate":
            from .estimate import estimate_command

            return estimate_command(args)
        if args.command == "label":
            return label_command(args)
        if args.command == "escalation-fit":
            from .escalation_fit import escalation_fit_command

            return escalation_fit_command(args)
        if args.command == "calibrate":
            from .calibrate import calibrate_command

            args.build_parser = build_parser
            return calibrate_command(args)
        return serve_local_command(args)
    except UsageError as error:
        print(f"judgegraph: {visible(str(error))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("judgegraph: interrupted", file=sys.stderr)
        return 130

