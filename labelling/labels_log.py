"""The labels file, written: a design line, then one line per label, skip or undo, only ever appended.

Why append-only with an fsync per line: a label is a person's minute of attention. Each one is
on disk before the page or the terminal moves on, so a closed tab, a crash, a power cut or
Ctrl-C loses nothing, and nothing already written is ever rewritten. An undo is a line of its
own (`{"id", "undo": true}`) that cancels that id's last entry, so the file is also the log of
what happened.

Why the file is held, not just opened per line: its situation must not break it.
- One writer at a time: the session holds an exclusive `flock` on the file from before it reads
  it until it ends, so a second `judgegraph label` on the same file stops with one line instead
  of labelling the same items again and writing every label twice.
- A person may edit the file while the page runs. Before each append the last byte is read
  (under the lock): a file saved without its final newline gets one first, so the next label
  never glues onto the edited line. An editor that saved by replacing the file (a new inode)
  is noticed and the label is refused with a message, never written into the file it replaced.
- Only a regular file is ever opened, created or written: a `--labels` naming a directory, a
  FIFO, a device (`/dev/null`) or a socket is refused before anything is opened, and nothing
  is ever unlinked or replaced (an empty file gets its design line written into it).

The lines (docs/labelling.md):
- first: `{"design": {...}}` (`labelling.design`);
- a label: `{"id", "human", "note"?, "position", "stratum"?, "judge_shown"?, ...the item's
  fields, "rubric"}`: what `calibrate` reads, `human` a bare value for one metric, else
  `{metric: value}`;
- a skip: `{"id", "skipped": true, "position"}`;
- an undo: `{"id", "undo": true}`: cancels the id's last label or skip still standing (an undo
  with nothing to cancel cancels nothing).

Reading the file, a resumed one included, is `schemas.labels_file`'s (the one reader of every command);
this module only holds, creates, appends and repairs a cut-off last line.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import LabellingError
from ..schemas.labels_file import DESIGN_KEY, LabelsFileError, active_entries, read_for_resume


@dataclass
class HeldFile:
    """The labels file, open for reading and appending, with this process's exclusive lock on it."""

    path: Path
    descriptor: int
    identity: tuple[int, int]
    """(device, inode) when it was opened: a path that names another file later was replaced."""
    created: bool
    """This process created it (an empty file it may remove if the session cannot start)."""

    def __post_init__(self) -> None:
        self._closer = weakref.finalize(self, os.close, self.descriptor)

    @property
    def size(self) -> int:
        return os.fstat(self.descriptor).st_size

    def close(self) -> None:
        """Release the lock (closing the descriptor does)."""
        self._closer()

    @property
    def closed(self) -> bool:
        return not self._closer.alive


@dataclass
class LabelsLog:
    held: HeldFile
    design: dict[str, Any]
    rows: list[dict] = field(default_factory=list)
    """Every line after the design, as read or appended."""
    repaired_tail: bool = False
    """A cut-off last line (a write the previous session did not finish) was dropped on opening."""

    @property
    def path(self) -> Path:
        return self.held.path

    def append(self, row: dict) -> None:
        """Write `row` as one line and make it durable (flush and fsync) before returning;
        `LabellingError` when the file was replaced since the session opened it."""
        data = (json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
        _check_still_the_file(self.held)
        _append_durably(self.held.descriptor, data)
        self.rows.append(row)

    def active(self) -> list[dict]:
        return active_entries(self.rows)

    def close(self) -> None:
        self.held.close()


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _not_regular(path: Path, mode: int) -> LabellingError:
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return LabellingError(f"--labels {path} is {kind}, not a regular file: a labels file is a file of its own "
                          "(nothing was written to it, and it was left as it is)")


def hold(path: Path) -> HeldFile:
    """`path` opened (created when absent) and locked for this session alone; `LabellingError`
    when it is not a regular file, cannot be opened, or another process holds it."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise LabellingError(f"cannot open {path}: {error.strerror or error}") from error
    if mode is not None and not stat.S_ISREG(mode):
        raise _not_regular(path, mode)  # refused before opening: opening a device or a FIFO can act
    flags = os.O_RDWR | os.O_APPEND | os.O_NOCTTY | os.O_NONBLOCK | os.O_CLOEXEC
    created = False
    try:
        if mode is None:
            try:
                descriptor = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644)
                created = True
            except FileExistsError:  # created meanwhile: open what is there, checked below
                descriptor = os.open(path, flags)
        else:
            descriptor = os.open(path, flags)
    except OSError as error:
        raise LabellingError(f"cannot open {path}: {error.strerror or error}") from error
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise _not_regular(path, status.st_mode)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise LabellingError(f"{path} is being written by another `judgegraph label` (one writer at a "
                                     "time): stop that one first, or label into another file") from None
            raise LabellingError(f"cannot lock {path}: {error.strerror or error}") from error
    except BaseException:
        os.close(descriptor)
        raise
    if created:
        _sync_directory(path.parent)
    return HeldFile(path, descriptor, (status.st_dev, status.st_ino), created)


def _check_still_the_file(held: HeldFile) -> None:
    try:
        now = os.stat(held.path)
        same = (now.st_dev, now.st_ino) == held.identity
    except OSError:
        same = False
    if not same:
        raise LabellingError(f"{held.path} was replaced or removed by another program since this session opened it "
                             "(an editor saving it?): this label was not written; stop and start `judgegraph label` "
                             "again to resume from the file as it is now")


def _append_durably(descriptor: int, data: bytes) -> None:
    """Append `data` after the file's last line: a newline first when someone left the file
    without one (an editor's save), so `data` never glues onto their last line."""
    size = os.fstat(descriptor).st_size
    if size and os.pread(descriptor, 1, size - 1) != b"\n":
        data = b"\n" + data
    view = memoryview(data)
    while view:
        written = os.write(descriptor, view)
        view = view[written:]
    os.fsync(descriptor)


def create_log(held: HeldFile, design: dict[str, Any]) -> LabelsLog:
    """The design line written into `held`, an empty file (new, or left empty by the user or by a
    crash before the design line)."""
    data = (json.dumps({DESIGN_KEY: design}, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
    try:
        _append_durably(held.descriptor, data)
    except OSError as error:
        raise LabellingError(f"cannot write {held.path}: {error.strerror or error}") from error
    return LabelsLog(held, design)


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


def open_log(held: HeldFile) -> LabelsLog:
    """An existing labels file, read (under its lock) and checked (`schemas.labels_file.read_for_resume`);
    `LabellingError` with the line for a line that is not one of the file's kinds. A last line
    cut off mid-write is dropped (truncated away)."""
    _check_still_the_file(held)
    try:
        resumed = read_for_resume(held.path)
    except LabelsFileError as error:
        raise LabellingError(str(error)) from None
    _repair_tail(held, resumed.cut_at)
    return LabelsLog(held, resumed.design, resumed.rows,
                     repaired_tail=resumed.cut_at is not None and resumed.cut_at >= 0)


def _repair_tail(held: HeldFile, cut_at: int | None) -> None:
    if cut_at is None:
        return
    try:
        if cut_at >= 0:
            os.ftruncate(held.descriptor, cut_at)
            os.fsync(held.descriptor)
        else:
            _append_durably(held.descriptor, b"")  # the missing newline only
    except OSError as error:
        raise LabellingError(f"cannot repair the cut-off last line of {held.path}: {error.strerror or error}") from error
