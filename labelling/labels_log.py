"""The labels file, written: a design line, then one line per label, skip or undo, only ever appended.

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

Reading the file, a resumed one included, is `schemas.labels_file`'s (the one reader of every command);
this module only creates, appends and repairs a cut-off last line.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import LabellingError
from ..schemas.labels_file import DESIGN_KEY, LabelsFileError, active_entries, read_for_resume


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
    """An existing labels file, read and checked (`schemas.labels_file.read_for_resume`); `LabellingError`
    with the line for a line that is not one of the file's kinds. A last line cut off mid-write
    is dropped (truncated away)."""
    try:
        resumed = read_for_resume(path)
    except LabelsFileError as error:
        raise LabellingError(str(error)) from None
    _repair_tail(path, resumed.cut_at)
    return LabelsLog(path, resumed.design, resumed.rows,
                     repaired_tail=resumed.cut_at is not None and resumed.cut_at >= 0)


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
