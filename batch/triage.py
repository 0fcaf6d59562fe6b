"""What to do with each input entry: judge it, write its input error, or skip it.

Why its own module: the run, the progress bar's total and the dry run must agree on it, and
they read the input in separate passes; a `Classifier` gives the same answer for an entry on
every pass. Duplicate ids: the FIRST occurrence counts; later lines with the same id are
skipped (never merged, never a second record), so the output keeps one line per id and resume
stays unambiguous.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .conversations import expand_conversations
from .input_formats import STRUCTURED_COLUMNS, InputFormat, read_input
from .item_values import entries_from_items
from .options import BatchOptions
from .reader import Entry
from .trace_spans import join_traces

Kind = Literal["judge", "bad", "duplicate", "done"]


def entries_of(options: BatchOptions) -> Iterator[Entry]:
    """The input's entries, in its format (`batch.input_formats`: JSONL, a JSON document or
    array, CSV, Parquet; or the items handed over in memory, `batch.item_values`), a
    conversation line as one entry per turn (`batch.conversations`), a trace's Phoenix spans as
    one entry (`batch.trace_spans`) unless a `--map` or another rubric reads rows as written."""
    if options.items is not None:
        entries = expand_conversations(entries_from_items(options.items, options.max_line_bytes))
    else:
        entries = file_entries(options.input, options.input_format, options.max_line_bytes, options.field_map)
    if options.field_map or options.rubric not in (None, "", "rag"):
        yield from entries
        return
    yield from join_traces(entries, options.max_line_bytes)


def file_entries(path: Path, fmt: InputFormat | None, max_item_bytes: int,
                 field_map: Mapping[str, str]) -> Iterator[Entry]:
    """A file's entries as a batch reads them, for any reader of item files (the batch, the
    pytest helper `testing.items`): a table column that a field map reads as a context may
    hold a JSON list, and a conversation line is one entry per turn.

    Args:
        path: the item file.
        fmt: its format (`input_formats.input_format`), None to tell from its content.
        max_item_bytes: a longer line or row is an entry with its error.
        field_map: {field: the item's key it is read from} (checked).
    """
    mapped_lists = {src for dst, src in field_map.items() if dst in STRUCTURED_COLUMNS}
    yield from expand_conversations(read_input(path, fmt, max_item_bytes, mapped_lists))


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
