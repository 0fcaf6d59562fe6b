"""The end-of-batch summary: per-metric means and counts, failures, calls, tokens, time.

Nothing here knows a rubric's keys: each rubric declares its metrics and where each sits in its
output (`MetricSpec.field`, e.g. `relevance_score`, `evaluation.result.score`), and a column is
named by that field (prefixed with the rubric's name when an item asked for several rubrics).
Results of a rubric judgegraph does not declare are read generically: every numeric (or null)
leaf whose key contains "score" or has a `<key>_explanation` sibling (`schemas.metrics`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..graph import rubrics
from ..graph.metrics_view import failure_of, record_metrics
from ..llm.embedding_availability import MISSING_EMBEDDINGS
from ..schemas.metrics import is_number_or_null, metric_leaves, value_at
from ..text.visible import visible
from .escalation_usage import EscalationTotals


def metric_values(record: dict) -> Iterator[tuple[str, float | None]]:
    """(column, value) of every numeric metric of a batch record; None means null / failed.

    Each rubric's declared metrics are read at their fields, where present; a label metric
    (a category, no number) has no mean and is left out."""
    rubric, result = record.get("rubric"), record.get("result")
    names = rubric if isinstance(rubric, list) else [rubric]
    specs = [rubrics.find(name) for name in names]
    if not isinstance(result, dict) or not specs or None in specs:
        yield from metric_leaves(result)
        return
    for spec in specs:
        output, prefix = (result.get(spec.name), f"{spec.name}.") if isinstance(rubric, list) else (result, "")
        for metric in spec.metrics:
            found, value = value_at(output, metric.field)
            if metric.kind != "label" and found and is_number_or_null(value):
                yield prefix + metric.field, None if value is None else float(value)


def record_failure(record: dict) -> str | None:
    """Why a batch record counts as failed, or None: the one rule for "this run" and for the
    whole results file, so both columns of the summary count the same records.

    A record the batch layer wrote without judging (`input_error`, `internal_error`) is failed
    whatever its result looks like: coverage's and liverag's failure shapes carry no status
    field for `failure_of` to read."""
    for key in ("input_error", "internal_error"):
        if record.get(key):
            return str(record[key])
    return failure_of(record.get("result"))


_URL = re.compile(r"https?://[^\s)'\"]+")
_SECONDS = re.compile(r"(?:after|timeout(?: of)?|deadline(?: of)?)\s*(\d+(?:\.\d+)?)\s*(?:s\b|sec|seconds)", re.IGNORECASE)
_NUMBER = re.compile(r"\d+")
_CAUSE_CHARS = 100


def failure_reasons(record: dict) -> list[str]:
    """Every reason a record holds a failure: the record's own, then each failed metric's, each
    reason once (an invalid item gives every metric the item's reason)."""
    reason = record_failure(record)
    reasons = [reason] if reason else []
    try:
        reasons += [metric.error or metric.comment or "not judged"
                    for metric in record_metrics(record) if metric.status == "failed"]
    except (TypeError, ValueError, AttributeError, KeyError):
        pass
    return list(dict.fromkeys(reasons)) or ["unreadable result"]


def failure_cause(reason: str) -> str:
    """A failure reason reduced to its cause, so a summary can count records per cause: a dead
    judge is "connection refused at URL", a slow one "timed out after 30 s", anything else its
    first clause with numbers masked (so "line 3" and "line 4" count together)."""
    first = reason.split("; ")[0]
    lower = reason.lower()
    url = _URL.search(reason)
    at = f" at {url.group(0)}" if url else ""
    if "connection refused" in lower or "connect call failed" in lower:
        return f"connection refused{at}"
    if "host name not found" in lower or "name or service not known" in lower:
        return f"host name not found{at}"
    if "timed out" in lower or "timeout" in lower:
        seconds = _SECONDS.search(reason)
        return f"timed out after {seconds.group(1)} s{at}" if seconds else f"timed out{at}"
    if re.match(r"[a-z_]+: ", first):
        first = first.split(": ", 1)[1]
    cause = _NUMBER.sub("N", first)
    return cause if len(cause) <= _CAUSE_CHARS else cause[: _CAUSE_CHARS - 1] + "…"


def record_causes(record: dict) -> set[str]:
    """The distinct causes of a record's failures (one record counts once per cause)."""
    return {failure_cause(reason) for reason in failure_reasons(record)}


def has_a_judged_metric(record: dict) -> bool:
    """Whether any metric of a record was judged (`graph.metrics_view`): a record that failed
    overall may still hold judged metrics (one step failed, the others were scored)."""
    try:
        return any(metric.status == "judged" for metric in record_metrics(record))
    except (TypeError, ValueError, AttributeError, KeyError):  # a result shape no reader knows
        return False


def holds_a_failure(record: dict) -> bool:
    """Whether a record failed or holds a metric that could not be judged (`graph.metrics_view`),
    whatever the rubric's own shape says overall (liverag's and coverage's carry no status
    field): the one rule for exit 1 and for what `--retry-failed` judges again. A result shape
    no reader knows (a hand-edited record) counts as failed."""
    if record_failure(record) is not None:
        return True
    try:
        return any(metric.status == "failed" for metric in record_metrics(record))
    except (TypeError, ValueError, AttributeError, KeyError):
        return True


@dataclass
class MetricStats:
    values: list[float] = field(default_factory=list)
    nulls: int = 0

    def add(self, value: float | None) -> None:
        if value is None or not math.isfinite(value):
            self.nulls += 1
        else:
            self.values.append(value)

    @property
    def mean(self) -> float | None:
        return sum(self.values) / len(self.values) if self.values else None


@dataclass
class Totals:
    items: int = 0
    failed: int = 0
    bad_input: int = 0
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0
    cache_hits: int = 0

    def add_usage(self, usage: dict) -> None:
        self.calls += int(usage.get("calls", 0) or 0)
        self.input_tokens += int(usage.get("input_tokens", 0) or 0)
        self.output_tokens += int(usage.get("output_tokens", 0) or 0)
        self.seconds += float(usage.get("seconds", 0.0) or 0.0)
        self.cache_hits += int(usage.get("cache_hits", 0) or 0)


def rubric_label(record: dict) -> str:
    rubric = record.get("rubric")
    return "+".join(rubric) if isinstance(rubric, list) else str(rubric or "?")


@dataclass
class Summary:
    """Accumulates records; renders the tables the CLI prints on stderr."""

    metrics: dict[tuple[str, str], MetricStats] = field(default_factory=dict)
    totals: Totals = field(default_factory=Totals)
    escalation: EscalationTotals = field(default_factory=EscalationTotals)

    def add(self, record: dict) -> None:
        result = record.get("result")
        self.escalation.add(record)
        self.totals.items += 1
        if record.get("input_error"):
            self.totals.bad_input += 1
        if record_failure(record):
            self.totals.failed += 1
        self.totals.add_usage(record.get("usage") or {})
        label = rubric_label(record)
        for path, value in metric_values(record):
            self.metrics.setdefault((label, path), MetricStats()).add(value)

    def metric_table(self, title: str) -> Table:
        table = Table(title=title, title_justify="left")
        for column in ("rubric", "metric"):
            table.add_column(column)
        for column in ("mean", "scored", "null/failed"):
            table.add_column(column, justify="right")
        for (label, path), stats in sorted(self.metrics.items()):
            mean = "-" if stats.mean is None else f"{stats.mean:.3f}"
            table.add_row(Text(visible(label)), Text(visible(path)), mean, str(len(stats.values)), str(stats.nulls))
        return table


@dataclass
class RunReport:
    """What happened in this run, beyond the records themselves."""

    to_judge: int = 0
    judged: int = 0
    failed: int = 0
    bad_input: int = 0
    crashed: int = 0
    resumed_skipped: int = 0
    blank_lines: int = 0
    duplicates: list[tuple[str, int, int]] = field(default_factory=list)
    """(id, line of the skipped duplicate, line of the first occurrence)."""
    truncated_bytes: int = 0
    unreadable_out_lines: list[int] = field(default_factory=list)
    totals: Totals = field(default_factory=Totals)
    wall_seconds: float = 0.0
    profile_id: str | None = None
    """The calibration profile this run's scores were decided with."""
    cache_lookups: int = 0
    cache_hits: int = 0
    interrupted: bool = False
    rubric_sources: Counter[tuple[str, str]] = field(default_factory=Counter)
    """Judged items by (rubric, where it came from: "keys", "item", "requested")."""
    read_as: Counter[str] = field(default_factory=Counter)
    """Items per "key as field" read under another name (RAGAS, DeepEval, LangChain, --map)."""
    unused_keys: Counter[str] = field(default_factory=Counter)
    """Items per key that no rubric read."""
    map_notes: Counter[str] = field(default_factory=Counter)
    notes: Counter[str] = field(default_factory=Counter)
    """Items per reading warning (`no context given`)."""
    shapes: Counter[str] = field(default_factory=Counter)
    """Items per export shape read (`schemas.export_shapes`)."""
    records_with_a_judged_metric: int = 0
    """Records of this run with at least one metric judged (the summary's "nothing judged" line)."""
    records_with_a_failure: int = 0
    """Records of this run that failed or hold a metric that could not be judged (exit 1)."""
    failure_causes: Counter[str] = field(default_factory=Counter)
    """Records of this run per cause of their failures (`failure_cause`), for the summary."""
    retried: int = 0
    """Failed records `--retry-failed` removed so their items are judged again."""
    embeddings_missing: bool = False
    """Embeddings were asked for but are not installed (`llm.embeddings.MISSING_EMBEDDINGS`)."""

    def count_reading(self, record: dict, source: str | None) -> None:
        """Count how a judged record's item was read (its `input_fields`, and the rubric's source)."""
        if source is not None:
            self.rubric_sources[(rubric_label(record), source)] += 1
        fields = record.get("input_fields")
        if not isinstance(fields, dict):
            return
        read_as = fields.get("read_as")
        if isinstance(read_as, dict):
            self.read_as.update(f"{key!r} as {name}" for name, key in read_as.items())
        self.unused_keys.update(repr(key) for key in fields.get("unused_keys") or [])
        self.map_notes.update(str(note) for note in fields.get("map_notes") or [])
        self.notes.update(str(note).split(":", 1)[0] for note in fields.get("notes") or [])
        if fields.get("shape"):
            self.shapes[str(fields["shape"])] += 1


def _fmt_int(value: int) -> str:
    return f"{value:,}"


def totals_table(run: RunReport, whole: Totals, out_name: str, cache_on: bool) -> Table:
    table = Table(title="Totals", title_justify="left")
    table.add_column("")
    table.add_column("this run", justify="right")
    table.add_column(Text(visible(f"all of {out_name}")), justify="right")
    rows = [
        ("items written", run.totals.items, whole.items),
        ("  failed (status failed / error)", run.totals.failed, whole.failed),
        ("  bad input lines", run.bad_input, whole.bad_input),
        ("model calls", run.totals.calls, whole.calls),
        ("input tokens", run.totals.input_tokens, whole.input_tokens),
        ("output tokens", run.totals.output_tokens, whole.output_tokens),
    ]
    for name, this, everything in rows:
        table.add_row(name, _fmt_int(this), _fmt_int(everything))
    table.add_row("item seconds (sum)", f"{run.totals.seconds:,.1f}", f"{whole.seconds:,.1f}")
    table.add_row("wall seconds", f"{run.wall_seconds:,.1f}", "")
    if cache_on:
        table.add_row("cache hits / lookups", f"{run.cache_hits:,} / {run.cache_lookups:,}",
                      _fmt_int(whole.cache_hits))
    table.add_row("skipped: already in output", _fmt_int(run.resumed_skipped), "")
    table.add_row("skipped: duplicate ids", _fmt_int(len(run.duplicates)), "")
    if run.crashed:
        table.add_row("internal errors (failed records)", _fmt_int(run.crashed), "")
    return table


def print_summary(
    console: Console, run: RunReport, whole: Summary, out_name: str, *, cache_on: bool
) -> None:
    """The tables and the notes a user must not miss (duplicates, repaired output file)."""
    console.print(whole.metric_table(f"Metrics over all {whole.totals.items:,} records in {escape(visible(out_name))}"))
    console.print(totals_table(run, whole.totals, out_name, cache_on))
    if run.profile_id:
        console.print(f"scores of this run decided with calibration profile {escape(visible(run.profile_id))}", soft_wrap=True)
    for line in whole.escalation.lines():
        console.print(escape(visible(line)), soft_wrap=True)
    print_reading(console, run)
    if run.embeddings_missing:
        console.print(f"[yellow]warning: {escape(MISSING_EMBEDDINGS)}[/]", soft_wrap=True)
    if run.retried:
        console.print(f"{run.retried:,} failed record(s) were judged again (--retry-failed)")
    if run.totals.items and not run.records_with_a_judged_metric:
        console.print("[red]no metric of any record this run wrote could be judged (exit 1)[/]")
    elif run.records_with_a_failure:
        console.print(f"[yellow]{run.records_with_a_failure:,} record(s) this run wrote hold a failure (exit 1); "
                      "--retry-failed judges them again[/]")
        print_causes(console, run.failure_causes)
    if run.duplicates:
        shown = escape(visible("; ".join(f"{i!r} at line {line} (first at line {first})"
                                 for i, line, first in run.duplicates[:5])))
        more = f" and {len(run.duplicates) - 5} more" if len(run.duplicates) > 5 else ""
        console.print(f"[yellow]duplicate ids skipped (first occurrence judged): {shown}{more}[/]")
    if run.truncated_bytes:
        console.print(f"[yellow]cut a partial last line ({run.truncated_bytes} bytes) left by an "
                      "interrupted run from the output before resuming[/]")
    if run.unreadable_out_lines:
        console.print(f"[yellow]{len(run.unreadable_out_lines)} line(s) of {escape(visible(out_name))} are not JSON "
                      f"records (e.g. line {run.unreadable_out_lines[0]}); left as they are[/]")
    if run.interrupted:
        console.print("[yellow]interrupted: finished items are saved; run the same command again "
                      "to resume[/]")


_SHOWN_CAUSES = 6


def print_causes(console: Console, causes: Counter[str]) -> None:
    """The failures of this run grouped by cause, most frequent first: "6 x connection refused
    at URL" says what to fix where "6 record(s) hold a failure" did not."""
    for cause, count in causes.most_common(_SHOWN_CAUSES):
        console.print(f"[yellow]  {count:,} x {escape(visible(cause))}[/]", soft_wrap=True)
    if len(causes) > _SHOWN_CAUSES:
        rest = sum(count for _, count in causes.most_common()[_SHOWN_CAUSES:])
        console.print(f"[yellow]  {rest:,} x other causes ({len(causes) - _SHOWN_CAUSES} kinds)[/]")


_SOURCES = {"keys": "from the items' keys", "item": "from the items' 'rubric' key", "requested": "by --rubric"}


def _counted(counter: Counter[str], limit: int = 8) -> str:
    shown = ", ".join(f"{text} ({count:,})" for text, count in counter.most_common(limit))
    more = f" and {len(counter) - limit} more" if len(counter) > limit else ""
    return escape(visible((shown + more)[:1000]))


def print_reading(console: Console, run: RunReport) -> None:
    """How this run's items were read: each rubric and where it came from, the keys read under
    another name, and (in yellow) the keys no rubric read, so none is dropped without a word."""
    if run.rubric_sources:
        parts = [f"{label} {count:,} {_SOURCES.get(source, source)}"
                 for (label, source), count in sorted(run.rubric_sources.items())]
        console.print(escape("rubric of the items judged in this run: " + ", ".join(parts)), soft_wrap=True)
    if run.read_as:
        console.print(f"read under other names (items): {_counted(run.read_as)}", soft_wrap=True)
    if run.unused_keys:
        console.print(f"[yellow]keys no rubric reads, not judged (items; each record's input_fields lists "
                      f"them): {_counted(run.unused_keys)}[/]", soft_wrap=True)
    if run.map_notes:
        console.print(f"[yellow]--map: {_counted(run.map_notes)}[/]", soft_wrap=True)
    if run.shapes:
        console.print(f"read as exports (items): {_counted(run.shapes)}", soft_wrap=True)
    if run.notes:
        console.print(f"[yellow]warning (items): {_counted(run.notes)}; faithfulness and context relevance "
                      "are null for them (each record's input_fields says which keys they have; "
                      "--map context=KEY reads one as the context)[/]", soft_wrap=True)
