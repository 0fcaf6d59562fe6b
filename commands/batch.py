"""`judgegraph evaluate items.jsonl --out results.jsonl`: the batch mode of the CLI.

It sets a run up (flags, the results file and its lock, resume, the judge, the cache), hands
it to an engine (`--engine local`: `batch.runner`; `--engine ray`: `batch.ray_engine`), then
prints the summary and writes the exports (`--format csv`, `--html`). Every problem the user
can fix is one line on stderr and exit 2, before any work: a judge that does not answer the
probe (`llm.judge_probe`) is one of them, and so is a resume judged another way than the file. The judge comes from a factory the
CLI passes (`judge_flags.judge_from_flags`; `batch.judge_setup`), which the Ray engine also
ships to its actors, so `batch/` itself never imports the command line.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from ..batch.cache import CacheError, attach_cache
from ..batch.judge_setup import JudgeFactory, resolve_judge
from ..batch.options import BatchOptions, BatchUsageError, checked_output
from ..batch.provenance import build_provenance
from ..schemas.input_file import InputFileError
from ..batch.runner import BatchRun
from ..batch.conversations import conversation_summaries, conversation_table
from ..batch.summary import RunReport, Summary, print_summary
from ..batch.triage import count_work
from ..batch.retry import provenance_conflict
from ..batch.writer import OutputFileError, ResultWriter, ResumeState, iter_records, prepare_output
from ..llm.embedding_availability import embeddings_missing
from ..llm.judge_probe import JudgeUnreachableError, probe_judge
from ..text.visible import visible
from .otel_option import OtelUnavailable
from .announce import announce_missing_embeddings
from .otel_option import open_item_tracer, wants_otel

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def run_batch_command(args: argparse.Namespace, make_judge: JudgeFactory) -> int:
    """The CLI's batch mode; returns the exit code, printing one line on usage errors.
    `make_judge` turns the flags into the judge (never called for a dry run)."""
    console = Console(stderr=True)
    try:
        options = BatchOptions.from_args(args)
        if getattr(args, "trace", False) or getattr(args, "trace_out", None):
            console.print("[yellow]--trace and --trace-out apply to single items; ignored in batch mode[/]")
        if options.dry_run:
            from ..batch.dry_run import report_estimates

            report_estimates(options, args, console)
            return EXIT_OK
        return _batch(options, args, console, make_judge)
    except (BatchUsageError, InputFileError, OutputFileError, CacheError, JudgeUnreachableError) as error:
        print(f"judgegraph: {visible(str(error))}", file=sys.stderr)
        return EXIT_USAGE


def _batch(options: BatchOptions, args: argparse.Namespace, console: Console, make_judge: JudgeFactory) -> int:
    out = checked_output(options)
    engine = getattr(args, "engine", "local") or "local"
    if engine == "ray":
        from ..batch.ray_engine import check_ray_flags, join_cluster

        check_ray_flags(options, args)
        join_cluster(args)  # before the results file is opened: a cluster that refuses us costs nothing
    otel = _wants_otel(args, engine)
    context, concurrency = resolve_judge(make_judge, args)
    for judge in (context, context.escalate_to):  # the judges the flags set up: each answers before any item
        if judge is not None and judge.endpoint is not None:
            probe_judge(judge.model, endpoint=judge.endpoint, role="second judge" if judge is context.escalate_to else None)
    profile_id = context.profile.id
    cache = attach_cache(context.model, options.cache, context.model_id, warn=_warning_line) if options.cache else None
    started = time.perf_counter()
    provenance = build_provenance(context, rubric=options.rubric, profile_id=profile_id)
    missing_embeddings = embeddings_missing(context)
    if missing_embeddings:
        announce_missing_embeddings(console)
    with ResultWriter(out, provenance=provenance) as writer:  # locks --out first: one run per results file
        resume = prepare_output(out, retry_failed=options.retry_failed)
        _check_resume(options, out, resume, dict(provenance))
        retried = writer.drop_records(resume.failed) if options.retry_failed and resume.failed else 0
        report = RunReport(truncated_bytes=resume.truncated_bytes, unreadable_out_lines=resume.unreadable_lines,
                           profile_id=profile_id, retried=retried, embeddings_missing=missing_embeddings)
        total = count_work(options, resume.done)
        if resume.done:
            console.print(f"resuming: {len(resume.done):,} id(s) already in {escape(visible(out.name))} will be skipped")
        if retried:
            console.print(f"--retry-failed: {retried:,} failed record(s) removed from {escape(visible(out.name))}; "
                          "their items are judged again")
        elif resume.failed and not options.retry_failed:
            console.print(f"[yellow]{len(resume.failed):,} record(s) in {escape(visible(out.name))} failed; they are kept "
                          "as they are (add --retry-failed to judge them again)[/]")
        telemetry = open_item_tracer() if otel else None
        batch = BatchRun(options, context, concurrency, writer, report, console, cache, telemetry)
        try:
            if engine == "ray":
                from ..batch.ray_engine import run_on_ray

                run_on_ray(batch, args, resume.done, total, make_judge)
            else:
                asyncio.run(batch.run(resume.done, total))
        except KeyboardInterrupt:
            report.interrupted = True
        except OSError as error:
            raise OutputFileError(f"cannot write {out}: {error.strerror or error}") from error
        finally:
            if telemetry is not None:
                telemetry.close()  # the spans still queued are exported before the summary
    report.wall_seconds = time.perf_counter() - started
    if cache is not None:
        report.cache_lookups, report.cache_hits = cache.lookups, cache.hits
    whole = Summary()
    for _, record in iter_records(out):
        if record is not None:
            whole.add(record)
    print_summary(console, report, whole, out.name, cache_on=cache is not None)
    conversations = conversation_summaries(record for _, record in iter_records(out) if record is not None)
    if conversations:
        console.print(conversation_table(conversations))
    _write_exports(options, out, console)
    if report.interrupted:
        return EXIT_INTERRUPTED
    return EXIT_FAILED if judged_with_failures(report) else EXIT_OK


def _wants_otel(args: argparse.Namespace, engine: str) -> bool:
    """`--otel` / `JUDGEGRAPH_OTEL` for this batch; a missing extra, or the Ray engine (whose
    actors judge in other processes), is a usage error before any work."""
    try:
        wanted = wants_otel(args)
    except OtelUnavailable as error:
        raise BatchUsageError(str(error)) from error
    if wanted and engine == "ray":
        raise BatchUsageError("--otel records the items judged in this process: use it with --engine local")
    return wanted


def judged_with_failures(report: RunReport) -> bool:
    """Exit 1 (docs/exit-codes.md): a record this run wrote failed (a bad line, an invalid item,
    a metric that could not be judged). A CI job must not pass on a batch that lost items; the
    summary counts them, and `--retry-failed` judges them again."""
    return report.records_with_a_failure > 0


def _check_resume(options: BatchOptions, out: Path, resume: ResumeState, provenance: dict) -> None:
    """Refuse to add this run's records to a file judged another way (unless --force-resume)."""
    conflict = provenance_conflict(resume.stamps.values(), provenance)
    if conflict and not options.force_resume:
        raise OutputFileError(
            f"{out} was judged another way than this run ({conflict}): use another --out, "
            "or pass --force-resume to add this run's records to it anyway")


def _write_exports(options: BatchOptions, out: Path, console: Console) -> None:
    """`--format csv` and `--html`, from the whole results file."""
    if options.fmt == "csv":
        from ..batch.csv_export import csv_path_for, write_csv

        target = csv_path_for(out)
        rows = write_csv(out, target)
        console.print(f"wrote {rows:,} rows to {escape(visible(str(target)))}")
    if options.html is not None:
        from ..report import write_report

        write_report(out, options.html)
        console.print(f"wrote the HTML report to {escape(visible(str(options.html)))}")


def _warning_line(message: str) -> None:
    """A warning as the CLI says one: one stderr line, not Python's two-line warning format."""
    print(f"judgegraph: warning: {visible(message)}", file=sys.stderr)
