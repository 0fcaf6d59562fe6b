"""One batch run over the input: triage each entry, judge, write each record, count.

Design (see docs/batch.md for the user's view):
- Items are judged with the graph's async API, at most `--concurrency` at a time (an asyncio
  semaphore). The LLM nodes await the model on the event loop (`llm.steps`), with no thread per
  call; the loop's default executor, sized to the same number, only serves what LangChain still
  runs in threads (the `--cache` lookups, chat models without an async implementation).
- Each finished item is appended to `--out` at once, flushed and fsync'd (`batch.writer`);
  the ids already there are skipped (resume; `batch.triage`).
- Nothing about one item can stop the batch: a bad line, an invalid item, a model fault and
  even an exception from the graph each become a failed record for that item only.
- Duplicate ids: the first occurrence is judged; later ones are skipped with a warning on
  stderr and listed in the summary.

The local engine is `BatchRun.run`; the Ray engine (`batch.ray_engine`) judges on the cluster
but triages, writes and counts through the same `BatchRun`. Setting a run up (flags, the
results file, the judge) and reporting on it afterwards is `commands.batch`'s job.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape

from ..graph.every_item.validate_input import rubric_source
from ..llm.loop_local_http import batch_http_pool
from .cache import SqliteStepCache
from .item_judging import is_crash, judge_entry
from .options import BatchOptions
from .progress import ProgressBar
from .reader import Entry, TurnOf, id_key
from .records import input_error_record, internal_error_record
from .summary import RunReport, has_a_judged_metric, holds_a_failure, record_causes, record_failure
from .triage import Classifier, entries_of
from .writer import NonFiniteRecordError, RecordSink

if TYPE_CHECKING:
    from ..telemetry.exporter import ItemTracer


class BatchRun:
    """One run over the input: classifies entries, judges, writes, counts."""

    def __init__(self, options: BatchOptions, context: Any, concurrency: int, writer: RecordSink,
                 report: RunReport, console: Console, cache: SqliteStepCache | None,
                 telemetry: ItemTracer | None = None, *, show_progress: bool = True) -> None:
        self.options = options
        self.context = context
        self.concurrency = concurrency
        self.writer = writer
        self.report = report
        self.console = console
        self.cache = cache
        self.telemetry = telemetry
        """`--otel`: each judged item also recorded as a trace (`telemetry/`)."""
        self.progress: ProgressBar | None = None
        self.show_progress = show_progress
        self._rubric_sources: dict[str, str] = {}
        """Where each item sent to the judge takes its rubric from, by id, for the summary."""
        self._turns: dict[str, TurnOf] = {}
        """The conversation turn each entry of a conversation line is, by id, for its record."""

    def _emit(self, record: dict) -> None:
        """Write one record (the only place records are written), then update the counters.
        A conversation turn's record says which turn it is (`conversation`)."""
        turn = self._turns.pop(id_key(record.get("id")), None)
        if turn is not None:
            record["conversation"] = turn.as_record()
        try:
            self.writer.write(record)
        except NonFiniteRecordError:  # NaN/inf in a result: strict JSON has none, so report it
            rubric = record.get("rubric")
            record = internal_error_record(
                record["id"], record["line"], {"rubric": rubric} if isinstance(rubric, str) else None,
                self.options.rubric, "the result held NaN or infinity", record.get("usage", {}),
            )
            if turn is not None:
                record["conversation"] = turn.as_record()
            self.writer.write(record)
            self.report.crashed += 1
        totals = self.report.totals
        totals.items += 1
        totals.add_usage(record.get("usage", {}))
        failed = record_failure(record) is not None
        if failed:
            totals.failed += 1
        if has_a_judged_metric(record):
            self.report.records_with_a_judged_metric += 1
        if holds_a_failure(record):
            self.report.records_with_a_failure += 1
            self.report.failure_causes.update(record_causes(record))
        if self.progress is not None:
            self.progress.advance(failed=totals.failed, tokens=totals.input_tokens + totals.output_tokens,
                                  cache_hits=self.cache.hits if self.cache else None)

    async def judge(self, entry: Entry) -> None:
        record = await judge_entry(entry.id, entry.line, entry.item, self.context, rubric=self.options.rubric,
                                   concurrency=self.concurrency, details=self.options.details,
                                   cache_on=self.cache is not None, field_map=self.options.field_map,
                                   telemetry=self.telemetry)
        self.record_judged(record)

    def record_judged(self, record: dict) -> None:
        """Count and write the record of an item that went to the judge (any engine)."""
        if is_crash(record):
            self.report.crashed += 1
        else:
            self.report.judged += 1
            self.report.count_reading(record, self._rubric_sources.pop(id_key(record.get("id")), None))
        self._emit(record)

    def triage(self, entry: Entry, classifier: Classifier, console: Console) -> bool:
        """Handle an entry that needs no judge (resumed, duplicate, bad line); True if it does."""
        kind = classifier.kind(entry)
        if entry.conversation is not None and kind in ("judge", "bad"):
            self._turns[entry.key] = entry.conversation
        if kind == "done":
            self.report.resumed_skipped += 1
        elif kind == "duplicate":
            first = classifier.first_line[entry.key]
            self.report.duplicates.append((entry.key, entry.line, first))
            console.print(
                f"[yellow]warning: duplicate id {escape(repr(entry.key))} at line {entry.line} "
                f"(first at line {first}): skipped[/]")
        elif kind == "judge":
            self._rubric_sources[entry.key] = rubric_source(entry.item, self.options.rubric)
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

    def start_progress(self, total: int) -> ProgressBar:
        """The progress bar, bound to this run's counters (use it as a context manager)."""
        self.progress = ProgressBar(self.console, total, cache_on=self.cache is not None,
                                    disable=not self.show_progress)
        return self.progress

    async def run(self, done: set[str], total: int, *, own_loop: bool = True) -> None:
        """The local engine: judge the entries on this event loop, `concurrency` at a time.
        On a loop of its own (`own_loop`, the CLI's `asyncio.run`) the loop's default executor
        is sized to the concurrency; a caller's loop (`aevaluate_batch` in a notebook) keeps
        its executor."""
        if own_loop:
            asyncio.get_running_loop().set_default_executor(
                ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="judgegraph-batch"))
        semaphore = asyncio.Semaphore(self.concurrency)
        pending: set[asyncio.Task] = set()
        failures: list[BaseException] = []

        def finished(task: asyncio.Task) -> None:
            """Every task's outcome is read here, so none is 'never retrieved': a task that
            raised (only writing can: the results file failed) stops the run below."""
            pending.discard(task)
            semaphore.release()
            if not task.cancelled() and task.exception() is not None:
                failures.append(task.exception())

        async with batch_http_pool():  # aiohttp for the run's calls, closed at its end
            with self.start_progress(total) as progress:
                for entry in self.entries_to_judge(done, progress.console):
                    if failures:
                        break
                    await semaphore.acquire()
                    task = asyncio.create_task(self.judge(entry))
                    pending.add(task)
                    task.add_done_callback(finished)
                    await asyncio.sleep(0)  # let finished items write while the file is being read
                if pending:
                    await asyncio.gather(*pending, return_exceptions=True)
        if failures:
            raise failures[0]
