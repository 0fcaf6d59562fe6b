"""The labels file: a design line, then one line per label, skip or undo, only ever appended.

Why append-only with an fsync per line: a label is a person's minute of attention. Each one is
on disk before the page or the terminal moves on, so a closed tab, a crash, a power cut or
Ctrl-C loses nothing, and nothing already written is ever rewritten. An undo is a line of its
own (`{"id", "undo": true}`) that cancels that id's last entry, so the file is also the log of
what happened.

The lines (docs/labelling.md):
- first: `{"design": {...}}` (`labelling.design`);
- a label: `{"id", "human", "note"?, "position", "stratum"?, ...the item's fields, "rubric"}`:
  what `calibrate` reads, `human` a bare value for one metric, else `{metric: value}`;
- a skip: `{"id", "skipped": true, "position"}`;
- an undo: `{"id", "undo": true}`: cancels the id's last label or skip still standing (an undo
  with nothing to cancel cancels nothing).

`active_entries` is the one reading of those rules, for every reader of the file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..schemas.jsonl import jsonl_lines, line_problem, line_value
from ..schemas.untrusted_json import UntrustedJsonError
from .errors import LabellingError

DESIGN_KEY = "design"


def is_design(row: Any) -> bool:
    return isinstance(row, dict) and isinstance(row.get(DESIGN_KEY), dict) and "human" not in row


def is_skip(row: dict) -> bool:
    return row.get("skipped") is True


def is_undo(row: dict) -> bool:
    return row.get("undo") is True


class StandingEntries:
    """The labels and skips still standing, line by line: an undo cancels its id's last one.
    Incremental, so a reader can check each line as it reads it (a label given twice for one
    id is an error only while the first still stands)."""

    def __init__(self) -> None:
        self._rows: list[dict | None] = []
        self._last_of: dict[str, list[int]] = {}

    def add(self, row: dict) -> None:
        if is_design(row):
            return
        key = str(row.get("id"))
        if is_undo(row):
            if self._last_of.get(key):
                self._rows[self._last_of[key].pop()] = None
            return
        self._last_of.setdefault(key, []).append(len(self._rows))
        self._rows.append(row)

    def has_label(self, item_id: str) -> bool:
        return any(not is_skip(self._rows[i]) for i in self._last_of.get(item_id, ()))  # type: ignore[arg-type]

    def entries(self) -> list[dict]:
        """In the order they were given (the design and the undo lines themselves left out)."""
        return [row for row in self._rows if row is not None]


def active_entries(rows: Iterable[dict]) -> list[dict]:
    """The labels and skips still standing after the undos, in the order they were given."""
    standing = StandingEntries()
    for row in rows:
        standing.add(row)
    return standing.entries()


@dataclass
class LabelsLog:
    path: Path
    design: dict[str, Any]
    rows: list[dict] = field(default_factory=list)
    """Every line after the design, as read or appended."""
    repaired_tail: bool = False
    """A cut-off last line (a write the previous session did not finish) was dropped on opening."""

    def append(self, row: dict) -> None:
        """Write `row` as one line and make it durable (flush and fsync) before returning."""
        data = (json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
        _append_durably(self.path, data)
        self.rows.append(row)

    def active(self) -> list[dict]:
        return active_entries(self.rows)


def _append_durably(path: Path, data: bytes) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        view = memoryview(data)
        while view:
            written = os.write(descriptor, view)
            view = view[written:]
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def create_log(path: Path, design: dict[str, Any]) -> LabelsLog:
    """A new labels file holding the design line (refused if `path` exists)."""
    data = (json.dumps({DESIGN_KEY: design}, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError as error:
        raise LabellingError(f"cannot create {path}: {error.strerror or error}") from error
    try:
        os.write(descriptor, data)
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    _sync_directory(path.parent)
    return LabelsLog(path, design)


def _sync_directory(directory: Path) -> None:
    """The new file's name is durable too (POSIX: fsync the directory); a no-op where unsupported."""
    try:
        descriptor = os.open(directory or Path("."), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def open_log(path: Path) -> LabelsLog:
    """An existing labels file, read and checked; `LabellingError` with the line for a line that
    is not one of the file's kinds. A last line cut off mid-write is dropped (truncated away)."""
    try:
        handle = path.open("rb")
    except OSError as error:
        raise LabellingError(f"cannot read {path}: {error.strerror or error}") from error
    design: dict[str, Any] | None = None
    rows: list[dict] = []
    cut_at: int | None = None
    offset = 0
    with handle:
        for line in jsonl_lines(handle):
            start = offset
            offset += len(line.raw) + (1 if line.complete else 0)
            if line.blank:
                continue
            try:
                row = line_value(line.raw)
            except UntrustedJsonError as error:
                if not line.complete:
                    cut_at = start
                    break
                raise LabellingError(f"{path} line {line.number}: {error}") from None
            problem = _row_problem(row, first=design is None)
            if problem:
                raise LabellingError(f"{path} line {line.number}: {problem}")
            if design is None:
                design = row[DESIGN_KEY]
            else:
                rows.append(row)
            if not line.complete:
                cut_at = -1  # a whole last line without its newline: the newline is added
    if design is None:
        raise LabellingError(f"{path} holds no design line: it was not written by `judgegraph label` "
                             "(give a new file to start labelling)")
    _repair_tail(path, cut_at)
    return LabelsLog(path, design, rows, repaired_tail=cut_at is not None and cut_at >= 0)


def _repair_tail(path: Path, cut_at: int | None) -> None:
    if cut_at is None:
        return
    try:
        if cut_at >= 0:
            os.truncate(path, cut_at)
        else:
            _append_durably(path, b"\n")
    except OSError as error:
        raise LabellingError(f"cannot repair the cut-off last line of {path}: {error.strerror or error}") from error


def _row_problem(row: Any, *, first: bool) -> str | None:
    if not isinstance(row, dict):
        return "not a JSON object"
    if first:
        return None if is_design(row) else "the first line is not a design line ({\"design\": {...}})"
    problem = line_problem(row)
    if problem:
        return problem
    if is_design(row):
        return "a second design line"
    if not isinstance(row.get("id"), str):
        return "no 'id' (a string)"
    if not (is_undo(row) or is_skip(row) or "human" in row):
        return "neither a label ('human'), a skip ('skipped') nor an undo ('undo')"
    return None
