"""`judgegraph evaluate items.jsonl --out results.jsonl`: the batch loop and its CLI entry.

Design (see docs/batch.md for the user's view):
- Items are judged with the graph's async API, at most `--concurrency` at a time (an asyncio
  semaphore). The LLM nodes await the model on the event loop (`llm.steps`), with no thread per
  call; the loop's default executor, sized to the same number, only serves what LangChain still
  runs in threads (the `--cache` lookups, chat models without an async implementation).
- Each finished item is appended to `--out` at once, flushed and fsync'd (`batch.writer`);
  a re-run with the same `--out` skips the ids already there (resume).
- Nothing about one item can stop the batch: a bad line, an invalid item, a model fault and
  even an exception from the graph each become a failed record for that item only.
- Duplicate ids: the FIRST occurrence is judged; later lines with the same id are skipped with
  a warning on stderr and listed in the summary (never merged, never a second record, so the
  output keeps exactly one line per id and resume stays unambiguous).

- Engines: `--engine local` (this loop) or `--engine ray` (`batch.ray_engine`: the judging
  moves to Ray Data actors; triage, resume and writing stay here, in `BatchRun`).

The judge comes from a factory the caller hands in (the CLI: its model flags; `batch.judge_setup`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rich.console import Console
from rich.markup import escape
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)
from rich.table import Table

from .cache import CacheError, SqliteStepCache, attach_cache
from .item_judging import is_crash, judge_entry
from .judge_setup import BatchUsageError, JudgeFactory, resolve_judge
from .reader import (DEFAULT_MAX_LINE_BYTES, Entry, InputFileError, open_input, parse_line,
                          read_entries, single_json_item)
from .records import input_error_record, internal_error_record
from .summary import RunReport, Summary, failure_of, print_summary
from .writer import OutputFileError, ResultWriter, iter_records, prepare_output, scan_output
from ..llm.loop_local_http import batch_http_pool

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

Kind = Literal["judge", "bad", "duplicate", "done"]


@dataclass
class BatchOptions:
    """The batch-relevant flags, with defaults for callers that build `args` by hand."""

    input: Path
    out: Path | None
    rubric: str | None = None
    fmt: str = "jsonl"
    dry_run: bool = False
    cache: Path | None = None
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    details: bool = False
    html: Path | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> "BatchOptions":
        max_bytes = getattr(args, "max_line_bytes", None) or DEFAULT_MAX_LINE_BYTES
        if max_bytes < 1:
            raise BatchUsageError("--max-line-bytes must be at least 1")
        return cls(
            input=Path(args.input), out=getattr(args, "out", None), rubric=getattr(args, "rubric", None),
            fmt=getattr(args, "format", None) or "jsonl", dry_run=bool(getattr(args, "dry_run", False)),
            cache=getattr(args, "cache", None), max_line_bytes=max_bytes,
            details=bool(getattr(args, "details", False)), html=getattr(args, "html", None),
        )


# --- input -----------------------------------------------------------------------------------

def entries_of(options: BatchOptions) -> Iterator[Entry]:
    """The input's entries; a non-`.jsonl` file holding one JSON object is one item."""
    if options.input.suffix != ".jsonl":
        item = single_json_item(options.input, options.max_line_bytes)
        if item is not None:
            raw = json.dumps(item, ensure_ascii=False).encode("utf-8")
            yield parse_line(1, raw, 0, options.max_line_bytes)
            return
    yield from read_entries(options.input, options.max_line_bytes)


@dataclass
class Classifier:
    """Decides, in file order, what to do with each entry (same answer on every pass)."""

    done: set[str]
    first_line: dict[str, int] = field(default_factory=dict)

    def kind(self, entry: Entry) -> Kind:
        key = entry.key
        if key in self.first_line:
            return "duplicate"
        self.first_line[key] = entry.line
        if key in self.done:
            return "done"
        return "bad" if entry.error is not None else "judge"


def count_work(options: BatchOptions, done: set[str]) -> int:
    """Items this run will write (judged or failed), for the progress bar's total and ETA."""
    classifier = Classifier(done)
    return sum(1 for entry in entries_of(options) if classifier.kind(entry) in ("judge", "bad"))


# --- the judge -------------------------------------------------------------------------------

# --- the loop --------------------------------------------------------------------------------

def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("[bold]judging[/]"), BarColumn(), MofNCompleteColumn(),
        TextColumn("failed [red]{task.fields[failed]}[/]"),
        TextColumn("tokens [magenta]{task.fields[tokens]}[/]"),
        TextColumn("cache [cyan]{task.fields[hits]}[/]"),
        TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
        console=console, transient=False,
    )


class BatchRun:
    """One run over the input: classifies entries, judges, writes, counts."""

    def __init__(self, options: BatchOptions, context: Any, concurrency: int, writer: ResultWriter,
                 report: RunReport, console: Console, cache: SqliteStepCache | None) -> None:
        self.options = options
        self.context = context
        self.concurrency = concurrency
        self.writer = writer
        self.report = report
        self.console = console
        self.cache = cache
        self.progress: Progress | None = None
        self.task_id: Any = None

    def _emit(self, record: dict) -> None:
        """Write one record (the only place records are written), then update the counters."""
        try:
            self.writer.write(record)
        except ValueError:  # NaN/inf in a result: strict JSON has none, so report it instead
            rubric = record.get("rubric")
            record = internal_error_record(
                record["id"], record["line"], {"rubric": rubric} if isinstance(rubric, str) else None,
                self.options.rubric, "the result held NaN or infinity", record.get("usage", {}),
            )
            self.writer.write(record)
            self.report.crashed += 1
        self.report.totals.items += 1
        self.report.totals.add_usage(record.get("usage", {}))
        failed = record.get("input_error") or record.get("internal_error") or failure_of(record["result"])
        if failed:
            self.report.totals.failed += 1
        if self.progress is not None:
            self.progress.update(
                self.task_id, advance=1, failed=self.report.totals.failed,
                tokens=f"{self.report.totals.input_tokens + self.report.totals.output_tokens:,}",
                hits=self.cache.hits if self.cache else "-",
            )

    async def judge(self, entry: Entry) -> None:
        record = await judge_entry(entry.id, entry.line, entry.item, self.context, rubric=self.options.rubric,
                                   concurrency=self.concurrency, details=self.options.details,
                                   cache_on=self.cache is not None)
        self.record_judged(record)

    def record_judged(self, record: dict) -> None:
        """Count and write the record of an item that went to the judge (any engine)."""
        if is_crash(record):
            self.report.crashed += 1
        else:
            self.report.judged += 1
        self._emit(record)

    def triage(self, entry: Entry, classifier: Classifier, console: Console) -> bool:
        """Handle an entry that needs no judge (resumed, duplicate, bad line); True if it does."""
        kind = classifier.kind(entry)
        if kind == "done":
            self.report.resumed_skipped += 1
        elif kind == "duplicate":
            first = classifier.first_line[entry.key]
            self.report.duplicates.append((entry.key, entry.line, first))
            console.print(
                f"[yellow]warning: duplicate id {escape(repr(entry.key))} at line {entry.line} "
                f"(first at line {first}): skipped[/]")
        elif kind == "bad":
            self.report.bad_input += 1
            self._emit(input_error_record(entry.id, entry.line, entry.error or "",
                                          with_cache=self.cache is not None))
        return kind == "judge"

    def entries_to_judge(self, done: set[str], console: Console) -> Iterator[Entry]:
        """The input's entries that need the judge, in file order; the others are handled
        (counted, warned about, written) on the way, the same way for every engine."""
        classifier = Classifier(done)
        for entry in entries_of(self.options):
            if self.triage(entry, classifier, console):
                yield entry

    def start_progress(self, total: int) -> Progress:
        """The progress bar, bound to this run's counters (use it as a context manager)."""
        self.progress = _progress(self.console)
        self.task_id = self.progress.add_task("judging", total=total, failed=0, tokens="0",
                                              hits="-" if self.cache is None else 0)
        return self.progress

    async def run(self, done: set[str], total: int) -> None:
        loop = asyncio.get_running_loop()
        loop.set_default_executor(ThreadPoolExecutor(max_workers=self.concurrency,
                                                     thread_name_prefix="judgegraph-batch"))
        semaphore = asyncio.Semaphore(self.concurrency)
        pending: set[asyncio.Task] = set()
        async with batch_http_pool():  # aiohttp for the run's calls, closed at its end
            with self.start_progress(total) as progress:
                for entry in self.entries_to_judge(done, progress.console):
                    await semaphore.acquire()
                    task = asyncio.create_task(self.judge(entry))
                    pending.add(task)
                    task.add_done_callback(pending.discard)
                    task.add_done_callback(lambda _: semaphore.release())
                    await asyncio.sleep(0)  # let finished items write while the file is being read
                if pending:
                    await asyncio.gather(*pending)


# --- entry points ----------------------------------------------------------------------------

def run_batch_command(args: argparse.Namespace, make_judge: JudgeFactory) -> int:
    """The CLI's batch mode; returns the exit code, printing one line on usage errors.
    `make_judge` turns the flags into the judge (never called for a dry run)."""
    console = Console(stderr=True)
    try:
        options = BatchOptions.from_args(args)
        if getattr(args, "trace", False) or getattr(args, "trace_out", None):
            console.print("[yellow]--trace and --trace-out apply to single items; ignored in batch mode[/]")
        if options.dry_run:
            return dry_run_command(options, args, console)
        return _batch(options, args, console, make_judge)
    except (BatchUsageError, InputFileError, OutputFileError, CacheError) as error:
        print(f"judgegraph: {error}", file=sys.stderr)
        return EXIT_USAGE


def _check_paths(options: BatchOptions) -> Path:
    if options.out is None:
        raise BatchUsageError("a batch needs --out FILE (results JSONL; re-running resumes it)")
    try:
        same = options.out.exists() and options.out.resolve() == options.input.resolve()
    except OSError:
        same = False
    if same:
        raise BatchUsageError("--out must not be the input file")
    open_input(options.input).close()  # unreadable input -> one line, exit 2, before any work
    return options.out


def _check_ray_flags(options: BatchOptions, args: argparse.Namespace) -> None:
    """What `--engine ray` cannot do, said before any work (exit 2)."""
    from .ray_engine import RayUnavailable, import_ray

    if options.cache is not None:
        raise BatchUsageError("--cache is a local SQLite file; it cannot be shared by Ray workers "
                              "(drop --cache or use --engine local)")
    if (getattr(args, "ray_actors", None) or 1) < 1:
        raise BatchUsageError("--ray-actors must be at least 1")
    try:
        import_ray()
    except RayUnavailable as error:
        raise BatchUsageError(str(error)) from error


def _batch(options: BatchOptions, args: argparse.Namespace, console: Console, make_judge: JudgeFactory) -> int:
    out = _check_paths(options)
    engine = getattr(args, "engine", "local") or "local"
    if engine == "ray":
        _check_ray_flags(options, args)
    context, concurrency = resolve_judge(make_judge, args)
    cache = attach_cache(context.model, options.cache, context.model_id) if options.cache else None
    started = time.perf_counter()
    with ResultWriter(out) as writer:  # locks --out first: one run per results file
        resume = prepare_output(out)
        report = RunReport(truncated_bytes=resume.truncated_bytes, unreadable_out_lines=resume.unreadable_lines)
        total = count_work(options, resume.done)
        if resume.done:
            console.print(f"resuming: {len(resume.done):,} id(s) already in {escape(out.name)} will be skipped")
        batch = BatchRun(options, context, concurrency, writer, report, console, cache)
        try:
            if engine == "ray":
                from .ray_engine import run_on_ray

                run_on_ray(batch, args, resume.done, total, make_judge)
            else:
                asyncio.run(batch.run(resume.done, total))
        except KeyboardInterrupt:
            report.interrupted = True
        except OSError as error:
            raise OutputFileError(f"cannot write {out}: {error.strerror or error}") from error
    report.wall_seconds = time.perf_counter() - started
    if cache is not None:
        report.cache_lookups, report.cache_hits = cache.lookups, cache.hits
    whole = Summary()
    for _, record in iter_records(out):
        if record is not None:
            whole.add(record)
    print_summary(console, report, whole, out.name, cache_on=cache is not None)
    if options.fmt == "csv":
        from .csv_export import csv_path_for, write_csv

        target = csv_path_for(out)
        rows = write_csv(out, target)
        console.print(f"wrote {rows:,} rows to {escape(str(target))}")
    if options.html is not None:
        from ..report import write_report

        write_report(out, options.html)
        console.print(f"wrote the HTML report to {escape(str(options.html))}")
    return EXIT_INTERRUPTED if report.interrupted else EXIT_OK


def dry_run_command(options: BatchOptions, args: argparse.Namespace, console: Console) -> int:
    """Estimates per item on stdout (JSONL), totals on stderr; no model is resolved or called."""
    from .dry_run import NOTE, Estimate, estimate_item

    open_input(options.input).close()
    done = scan_output(options.out).done if options.out is not None else set()
    classifier = Classifier(done)
    total = Estimate()
    items = skipped = bad = 0
    claim_check = getattr(args, "claim_check", "per-claim")
    for entry in entries_of(options):
        kind = classifier.kind(entry)
        if kind == "bad":
            bad += 1
        if kind != "judge":
            skipped += kind in ("done", "duplicate")
            continue
        item = {k: v for k, v in (entry.item or {}).items() if k != "id"}
        try:
            names, estimate = estimate_item(
                item, rubric=options.rubric, claim_check=claim_check,
                claim_extraction=getattr(args, "claims", "sentences"),
                embeddings=not getattr(args, "no_embeddings", False),
            )
        except Exception as error:  # noqa: BLE001 - an estimate must not stop on one odd item
            names, estimate = [], Estimate()
            console.print(f"[yellow]line {entry.line}: cannot estimate "
                          f"({escape(type(error).__name__ + ': ' + str(error))})[/]")
        items += 1
        total.add(estimate)
        line = {"id": entry.id, "line": entry.line, "rubric": names[0] if len(names) == 1 else names,
                "estimate": estimate.as_dict()}
        sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    table = Table(title="Dry run (estimate)", title_justify="left")
    table.add_column("")
    table.add_column("total", justify="right")
    table.add_column("per item", justify="right")
    per = (lambda n: f"{n / items:,.1f}") if items else (lambda n: "-")
    table.add_row("items to judge", f"{items:,}", "")
    table.add_row("model calls", f"{total.calls:,}", per(total.calls))
    table.add_row("input tokens", f"{total.input_tokens:,}", per(total.input_tokens))
    table.add_row("output tokens", f"{total.output_tokens:,}", per(total.output_tokens))
    table.add_row("bad input lines (no call)", f"{bad:,}", "")
    table.add_row("skipped (already in --out / duplicate ids)", f"{skipped:,}", "")
    console.print(table)
    if total.steps:
        console.print(escape("calls by step: " + ", ".join(f"{k} {v:,}" for k, v in sorted(total.steps.items()))))
    console.print(f"[dim]{NOTE}[/]")
    return EXIT_OK
