"""`evaluate_batch` / `aevaluate_batch`: the CLI's batch, called from Python.

Why here and not a loop over `evaluate`: the batch engine already does what a thousand items
need (bounded concurrency on one event loop, the step cache, a resumable results file, bad
items as failed records, the summary). So these functions build the run the CLI's batch mode
builds (`commands.batch`) from keyword arguments instead of flags, and return what it writes:
each item's record, in input order, equal to the CLI's line for the same item written to a JSONL
file (`batch.item_values` says how in-memory values are read). A DataFrame comes back as a
DataFrame of scores lined up with its index (`batch.frames`).

The sync function inside a running event loop (a Jupyter cell): the run gets a loop of its own
on a worker thread while the caller's thread waits, so `evaluate_batch(df)` works in a notebook
as in a script; `await aevaluate_batch(df)` runs on the caller's loop instead.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable, Coroutine, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict, TypeVar

from rich.console import Console

from ..graph.every_item.input_fields import checked_field_map
from ..run.context import JudgeContext
from ..run.judge_builder import ModelSpec, build_judge
from .cache import attach_cache
from .frames import frame_rows, is_dataframe, is_pandas, scores_frame
from ..run.context import items_in_flight
from ..schemas.input_file import input_format
from .input_formats import STRUCTURED_COLUMNS
from .options import BatchOptions, BatchUsageError, checked_output
from ..schemas.output_paths import PathClashError, check_distinct
from .provenance import build_provenance
from .reader import DEFAULT_MAX_LINE_BYTES, id_key
from .retry import provenance_conflict
from .runner import BatchRun
from .summary import RunReport, Summary, print_summary
from .triage import Classifier, count_work, entries_of
from .writer import KeptRecords, OutputFileError, ResultWriter, iter_records, prepare_output

T = TypeVar("T")


class MetricSummary(TypedDict):
    """One metric over the records: its mean over the scored ones, and the counts."""

    mean: float | None
    scored: int
    null_or_failed: int


class BatchSummary(TypedDict):
    """What the CLI's summary says, as data: `metrics` over the returned records (all the
    input's items, resumed ones too), the rest about this run (`wall_seconds`, `calls`...)."""

    items: int
    """Records returned (one per input item, a conversation one per turn)."""
    failed: int
    """Returned records that hold a failure (the CLI's exit-1 rule)."""
    metrics: dict[str, MetricSummary]
    written: int
    """Records this run wrote (judged or bad input); the others were resumed from `out=`."""
    bad_input: int
    duplicates: list[dict[str, Any]]
    """Skipped items: {"id", "line", "first_line"}."""
    resumed: int
    calls: int
    input_tokens: int
    output_tokens: int
    cache_hits: int
    cache_lookups: int
    internal_errors: int
    wall_seconds: float
    profile_id: str | None


@dataclass(frozen=True, eq=False)
class BatchResult(Sequence[dict]):
    """The records of a batch in input order (a sequence: `result[0]`, `len(result)`), with the
    run's `summary`; `to_pandas()` gives the scores frame (`batch.frames`).

    Copies share it (`copy.deepcopy` returns it): a DataFrame carries it in `attrs`, which
    pandas copies at every operation."""

    records: list[dict]
    summary: BatchSummary
    index: Sequence[Any] | None = None
    """The input DataFrame's index (a pandas Index: its labels by position, its names), None
    when the input was not a frame."""
    duplicates: list[tuple[int, str | int, str]] = field(default_factory=list)
    _report: RunReport = field(default_factory=RunReport, repr=False)
    _whole: Summary = field(default_factory=Summary, repr=False)

    def __getitem__(self, position: Any) -> Any:
        return self.records[position]

    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self) -> Iterator[dict]:
        return iter(self.records)

    def __deepcopy__(self, memo: dict) -> "BatchResult":
        return self

    def __repr__(self) -> str:
        means = ", ".join(f"{name}={value['mean']:.3f}" for name, value in self.summary["metrics"].items()
                          if value["mean"] is not None)
        return f"BatchResult({self.summary['items']} records, {self.summary['failed']} failed; {means})"

    def to_pandas(self) -> Any:
        """The scores as a pandas DataFrame, one row per record (needs pandas)."""
        frame = scores_frame(self.records, self.index, self.duplicates)
        frame.attrs["judgegraph"] = self
        return frame

    def print_summary(self, console: Console | None = None) -> None:
        """The CLI's summary tables (metrics, totals, notes), on stderr unless `console` says."""
        print_summary(console or Console(stderr=True), self._report, self._whole, "the input", cache_on=bool(
            self.summary["cache_lookups"]))


def evaluate_batch(data: Any, *, model: ModelSpec = None, **kwargs: Any) -> Any:
    """Judge a batch of items with the CLI's batch engine; blocks until it is done.

    Works inside a running event loop too (a Jupyter cell): the run then gets its own loop on a
    worker thread. In async code, `await aevaluate_batch(...)` instead.

    Args:
        data: a list (or any iterable) of items as `evaluate` takes them, a pandas DataFrame
            (one item per row; NaN, None and NA cells are absent fields), or the path of a file
            the CLI's batch reads (JSONL, a JSON array, CSV, Parquet).
        model: the judge, as `evaluate` takes it: a chat model, a `JudgeContext`, a model name
            (`"openai:gpt-4o-mini"`, `"local"`, one served at `base_url=`), or None.
        **kwargs: `aevaluate_batch`'s keywords (`concurrency=`, `cache=`, `out=`, `field_map=`,
            `rubric=`, `progress=`, `base_url=`, `JudgeContext` settings...).

    Returns:
        For a DataFrame, the scores frame lined up with its index (`BatchResult.to_pandas`, the
        `BatchResult` in its `attrs["judgegraph"]`); else the `BatchResult`.
    """
    return run_to_completion(lambda: aevaluate_batch(data, model=model, **kwargs))


async def aevaluate_batch(
    data: Any,
    *,
    model: ModelSpec = None,
    rubric: str | None = None,
    concurrency: int | None = None,
    cache: str | os.PathLike[str] | None = None,
    out: str | os.PathLike[str] | None = None,
    field_map: str | Mapping[str, str] | None = None,
    progress: bool = False,
    details: bool = False,
    retry_failed: bool = False,
    force_resume: bool = False,
    input_format_name: str | None = None,
    max_item_bytes: int = DEFAULT_MAX_LINE_BYTES,
    **settings: Any,
) -> Any:
    """The async twin of `evaluate_batch`: runs on the caller's event loop.

    Args:
        data: a list (or any iterable) of items, a pandas DataFrame, or a batch file's path.
        model: the judge, as `evaluate` takes it (None: `JUDGEGRAPH_MODEL`, `OPENAI_BASE_URL`,
            else the embedded local model).
        rubric: the rubric for items that name none (the CLI's `--rubric`).
        concurrency: items judged at once (default 8, 1 for the local judge).
        cache: a SQLite step cache file (`--cache`).
        out: a results file (`--out`): each record is appended as it finishes, and a second
            call with the same `out=` resumes (the ids already there are not judged again).
        field_map: {field: the items' key to read it from}, or `"field=key,..."` (`--map`).
        progress: draw the progress bar on stderr.
        details: add each run's details to its record (`--details`).
        retry_failed: with `out=`, judge the failed records again (`--retry-failed`).
        force_resume: with `out=`, add to a file judged another way (`--force-resume`).
        input_format_name: a path's format when its extension does not say (`--input-format`).
        max_item_bytes: an item's JSON over this size is a failed record (`--max-line-bytes`).
        **settings: `base_url=` and `JudgeContext` fields (`max_repairs=`, `embeddings=`...),
            as `evaluate` takes them.

    Raises:
        BatchUsageError: an argument the CLI would refuse with exit 2 (a clash of paths...).
        InputFileError, OutputFileError, CacheError: a file that cannot be read or written.
        JudgeUnreachableError: a judge given by name that does not answer.
        ModelConfigError, ProfileMismatchError: a judge that cannot be set up.
    """
    frame = data if is_dataframe(data) else None
    options = _options(data, rubric=rubric, cache=cache, out=out, field_map=field_map, details=details,
                       retry_failed=retry_failed, force_resume=force_resume, fmt=input_format_name,
                       max_item_bytes=max_item_bytes)
    context, by_name = _context(model, settings)
    if by_name:
        from ..llm.judge_probe import probe_judge

        await asyncio.to_thread(probe_judge, context.model, endpoint=context.endpoint)
    result = await _run(options, context, items_in_flight(concurrency, context.model_id), progress,
                        index=frame.index if frame is not None else None)
    return result.to_pandas() if frame is not None else result


def _options(data: Any, *, rubric: str | None, cache: Any, out: Any, field_map: Any, details: bool,
             retry_failed: bool, force_resume: bool, fmt: str | None, max_item_bytes: int) -> BatchOptions:
    """The run's options, as `BatchOptions.from_args` makes them from the CLI's flags."""
    if max_item_bytes < 1:
        raise BatchUsageError("max_item_bytes must be at least 1")
    out_path = Path(out) if out is not None else None
    cache_path = Path(cache) if cache is not None else None
    mapping = checked_field_map(field_map)
    common = dict(out=out_path, rubric=rubric, cache=cache_path, max_line_bytes=max_item_bytes, details=details,
                  field_map=mapping, retry_failed=retry_failed, force_resume=force_resume)
    if isinstance(data, (str, os.PathLike)):
        path = Path(data)
        options = BatchOptions(input=path, input_format=input_format(path, fmt), **common)
        if out_path is not None:
            checked_output(options)
        else:
            from .options import check_input

            check_input(options)
        return options
    if is_dataframe(data):
        items: Sequence[Any] = frame_rows(data, {src for dst, src in mapping.items() if dst in STRUCTURED_COLUMNS})
    elif isinstance(data, Mapping) or is_pandas(data):
        raise TypeError(f"evaluate_batch takes a list of items, a DataFrame or a file's path, got "
                        f"{type(data).__name__}: judge one item with judgegraph.evaluate(item)")
    elif isinstance(data, Iterable):
        items = list(data)
    else:
        raise TypeError(f"evaluate_batch takes a list of items, a DataFrame or a file's path, got {type(data).__name__}")
    if not items:
        raise BatchUsageError("no item to judge")
    try:
        check_distinct([("out=", out_path), ("cache=", cache_path)])
    except PathClashError as error:
        raise BatchUsageError(str(error)) from error
    return BatchOptions(input=Path("<items>"), items=items, input_name="the items", **common)


def _context(model: ModelSpec, settings: dict[str, Any]) -> tuple[JudgeContext, bool]:
    """The run's judge, and whether it was named (a name or `base_url=`: probed before any
    item, as the CLI probes the judge its flags name)."""
    by_name = model is None or isinstance(model, str) or bool(settings.get("base_url"))
    return build_judge(model, resolve_now=True, **settings), by_name  # the default judge: resolved once for the run


async def _run(options: BatchOptions, context: JudgeContext, concurrency: int, progress: bool,
               index: Sequence[Any] | None) -> BatchResult:
    """The run `commands.batch` sets up, on this loop: results file or list, cache, resume."""
    console = Console(stderr=True, quiet=not progress)
    model = context.model
    previous_cache = getattr(model, "cache", None)
    step_cache = attach_cache(model, options.cache, context.model_id) if options.cache else None
    started = time.perf_counter()
    provenance = build_provenance(context, rubric=options.rubric, profile_id=context.profile.id)
    report = RunReport(profile_id=context.profile.id)
    try:
        if options.out is None:
            sink = KeptRecords(provenance=provenance)
            batch = BatchRun(options, context, concurrency, sink, report, console, step_cache,
                             show_progress=progress)
            await batch.run(set(), count_work(options, set()), own_loop=False)
            records = sink.records
        else:
            with ResultWriter(options.out, provenance=provenance) as writer:
                resume = prepare_output(options.out, retry_failed=options.retry_failed)
                conflict = provenance_conflict(resume.stamps.values(), dict(provenance))
                if conflict and not options.force_resume:
                    raise OutputFileError(
                        f"{options.out} was judged another way than this run ({conflict}): use another out=, "
                        "or pass force_resume=True to add this run's records to it anyway")
                report.retried = writer.drop_records(resume.failed) if options.retry_failed and resume.failed else 0
                report.truncated_bytes = resume.truncated_bytes
                report.unreadable_out_lines = resume.unreadable_lines
                batch = BatchRun(options, context, concurrency, writer, report, console, step_cache,
                                 show_progress=progress)
                await batch.run(resume.done, count_work(options, resume.done), own_loop=False)
            records = [record for _, record in iter_records(options.out) if record is not None]
    finally:
        if step_cache is not None:
            model.cache = previous_cache  # the caller's chat model is left as it was given
    report.wall_seconds = time.perf_counter() - started
    if step_cache is not None:
        report.cache_lookups, report.cache_hits = step_cache.lookups, step_cache.hits
    return _result(options, records, report, index)


def _result(options: BatchOptions, records: list[dict], report: RunReport,
            index: Sequence[Any] | None) -> BatchResult:
    """The input's records in input order (a results file may hold other ids too), and the
    summary over them."""
    by_key: dict[str, list[dict]] = {}
    for record in records:
        by_key.setdefault(id_key(record.get("id")), []).append(record)
    ordered: list[dict] = []
    classifier = Classifier(set())
    for entry in entries_of(options):
        if classifier.kind(entry) != "duplicate":
            ordered.extend(by_key.pop(entry.key, [])[-1:])
    whole = Summary()
    for record in ordered:
        whole.add(record)
    skipped = [(line, item_id, f"duplicate id {item_id!r} (first at line {first}): skipped")
               for item_id, line, first in report.duplicates]
    return BatchResult(records=ordered, summary=_summary(ordered, whole, report), index=index,
                       duplicates=skipped, _report=report, _whole=whole)


def _summary(records: list[dict], whole: Summary, report: RunReport) -> BatchSummary:
    from .summary import holds_a_failure

    metrics: dict[str, MetricSummary] = {}
    for (label, path), stats in whole.metrics.items():
        name = path if path not in metrics else f"{label}.{path}"
        metrics[name] = MetricSummary(mean=stats.mean, scored=len(stats.values), null_or_failed=stats.nulls)
    totals = report.totals
    return BatchSummary(
        items=len(records), failed=sum(1 for record in records if holds_a_failure(record)), metrics=metrics,
        written=totals.items, bad_input=report.bad_input,
        duplicates=[{"id": item_id, "line": line, "first_line": first} for item_id, line, first in report.duplicates],
        resumed=report.resumed_skipped, calls=totals.calls, input_tokens=totals.input_tokens,
        output_tokens=totals.output_tokens, cache_hits=report.cache_hits, cache_lookups=report.cache_lookups,
        internal_errors=report.crashed, wall_seconds=round(report.wall_seconds, 3), profile_id=report.profile_id,
    )


def run_to_completion(start: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """`asyncio.run(start())`, or, when this thread already runs an event loop (Jupyter), the
    same on a worker thread while this one waits: a loop cannot be re-entered, and blocking
    the caller's loop is what a sync call means there anyway. Ctrl-C (a notebook's interrupt)
    cancels the worker's run and waits for it to stop, so no item is judged after the call
    returned.

    Args:
        start: makes the coroutine to run (called on the thread whose loop runs it).
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(start())
    outcome: dict[str, Any] = {}
    running: dict[str, Any] = {}
    ready = threading.Event()

    async def main() -> T:
        running["loop"], running["task"] = asyncio.get_running_loop(), asyncio.current_task()
        ready.set()
        return await start()

    def work() -> None:
        try:
            outcome["value"] = asyncio.run(main())
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread below
            outcome["error"] = error
        finally:
            ready.set()

    worker = threading.Thread(target=work, name="judgegraph-evaluate-batch", daemon=True)
    worker.start()
    try:
        worker.join()
    except KeyboardInterrupt:
        ready.wait()
        if "loop" in running and not running["loop"].is_closed():
            running["loop"].call_soon_threadsafe(running["task"].cancel)
        worker.join()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
