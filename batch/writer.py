"""The results file: append one JSON line per finished item, durably, and resume from it.

Why each record is flushed and fsync'd on its own: a batch of thousands of model calls costs
money and hours; a crash, a kill -9 or a power cut must lose at most the items in flight.
Records are appended with a single `write` of a complete line ending in a newline, so the only
damage a kill can do is a trailing partial line. On start, `prepare_output` cuts such a tail
off (everything after the last newline) before anything is appended, so the file is always a
sequence of complete JSON lines and a re-run skips exactly the ids it holds.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from ..schemas.jsonl import jsonl_lines, line_value
from ..schemas.untrusted_json import UntrustedJsonError
from .provenance import PROVENANCE_KEY
from .reader import id_key
from .summary import holds_a_failure


class OutputFileError(Exception):
    """The results file cannot be read, repaired or appended to; one line, for exit 2."""


@dataclass
class ResumeState:
    """What an existing results file already holds."""

    done: set[str] = field(default_factory=set)
    """Ids (as `id_key`) with a record: a re-run skips them."""
    records: int = 0
    truncated_bytes: int = 0
    """Bytes of a trailing partial line (from a killed run) that were cut off."""
    unreadable_lines: list[int] = field(default_factory=list)
    """Complete lines that do not parse (edited by hand?): left in place, their ids not done."""
    stamps: dict[str, dict | None] = field(default_factory=dict)
    """Each distinct `provenance` the records carry (None: records written without one), keyed
    by its JSON text; the stamps of the records `--retry-failed` drops are not counted."""
    failed: set[str] = field(default_factory=set)
    """Ids whose record failed (`batch.summary.record_failure`, or a metric not judged)."""


def _tail_cut(handle: BinaryIO, size: int) -> int:
    """The offset just after the file's last newline (0 when there is none)."""
    position = size
    block = 1 << 16
    while position > 0:
        start = max(0, position - block)
        handle.seek(start)
        data = handle.read(position - start)
        index = data.rfind(b"\n")
        if index >= 0:
            return start + index + 1
        position = start
    return 0


def iter_records(path: Path) -> Iterator[tuple[int, dict | None]]:
    """(line number, record or None if the line is not a JSON object) for each complete line."""
    with path.open("rb") as handle:
        for line in jsonl_lines(handle):
            if not line.complete:
                return  # a partial tail is not a record
            yield line.number, record_of(line.raw)


def scan_output(path: Path, *, retry_failed: bool = False) -> ResumeState:
    """The ids already in `path`, read-only (used by `--dry-run` too). With `retry_failed`, the
    ids of failed records are not done (a re-run judges them again) and their stamps are not
    counted (their records are about to be replaced). A last line that is a whole record but
    lacks its newline is a record (`prepare_output` ends it). `OutputFileError` when the file
    holds lines and none of them is a record: it is another file (a dataset, a log), and
    appending, cutting its last line or reading its ids as done would damage it or skip items."""
    state = ResumeState()
    if not path.exists():
        return state
    lines = 0
    ours = False
    try:
        with path.open("rb") as handle:
            for line in jsonl_lines(handle):
                if line.blank:
                    continue
                lines += 1
                record = record_of(line.raw)
                if not line.complete and record is None and _starts_a_record(line.raw):
                    ours = ours or lines == 1  # a record cut off by a kill: `prepare_output` cuts it
                    break
                ours = ours or _is_record(record)
                if record is None or "id" not in record:
                    state.unreadable_lines.append(line.number)
                    continue
                _count(state, record, retry_failed)
    except OSError as error:
        raise OutputFileError(f"cannot read {path}: {error.strerror or error}") from error
    if lines and not ours:
        raise OutputFileError(
            f"{path} is not a judgegraph results file: none of its {lines:,} line(s) is a record with an 'id' "
            "and a 'result'; a run appends its records to the results file, so give a new path (or the "
            "results file of an earlier run, to resume it)")
    if retry_failed:
        state.failed -= state.done  # an id with a good record too (a hand-merged file) is done
    return state


def _count(state: ResumeState, record: dict, retry_failed: bool) -> None:
    state.records += 1
    key = id_key(record["id"])
    if holds_a_failure(record):
        state.failed.add(key)
        if retry_failed:
            return
    state.done.add(key)
    stamp = record.get(PROVENANCE_KEY)
    state.stamps.setdefault(json.dumps(stamp, sort_keys=True), stamp if isinstance(stamp, dict) else None)


def _is_record(value: Any) -> bool:
    """A results record: every line the writer writes has an `id` and a `result`."""
    return isinstance(value, dict) and "id" in value and "result" in value


_RECORD_START = b'{"id": '
"""How every line the writer writes begins (`encode_record` of a record whose first key is `id`)."""


def _starts_a_record(raw: bytes, start: bytes = _RECORD_START) -> bool:
    """Whether `raw` may be the beginning of a line the writer was cut off while writing (when it
    does not parse: a whole JSON object is never a cut-off line); `start`: how its lines begin."""
    return raw.startswith(start) or start.startswith(raw)


def prepare_output(path: Path, *, retry_failed: bool = False) -> ResumeState:
    """Check that `path` is a results file (`scan_output`), then end its last line
    (`end_last_line`). Reports the ids already done (with `retry_failed`, failed records' ids
    are not done: see `scan_output`)."""
    state = scan_output(path, retry_failed=retry_failed)
    state.truncated_bytes = end_last_line(path)
    return state


def end_last_line(path: Path, record_start: bytes = _RECORD_START) -> int:
    """End the last line of a JSONL file that records are appended to: a partial record left
    by a killed run is cut off; a whole record missing only its newline gets it, and so does a
    last line that is no record at all (kept as written: the next record must not be fused
    onto it). Returns the bytes cut. Also for files of other records (the benchmarks' per-item
    outcomes, which `scan_output` would not take for results), whose lines begin with
    `record_start` instead of a results record's `{"id": `."""
    try:
        if not path.exists():
            return 0
        size = path.stat().st_size
        with path.open("r+b") as handle:
            cut = _tail_cut(handle, size)
            if cut < size:
                handle.seek(cut)
                tail = handle.read()
                if record_of(tail) is not None or not _starts_a_record(tail, record_start):
                    handle.seek(size)
                    handle.write(b"\n")
                    cut = size
                else:
                    handle.truncate(cut)
                handle.flush()
                os.fsync(handle.fileno())
    except OSError as error:
        raise OutputFileError(f"cannot open {path}: {error.strerror or error}") from error
    return size - cut


def record_of(raw: bytes) -> dict | None:
    """The JSON object on a results line, else None (not JSON, not UTF-8, not an object)."""
    try:
        record = line_value(raw)
    except UntrustedJsonError:
        return None
    return record if isinstance(record, dict) else None


def _lock_or_fail(handle: BinaryIO, path: Path) -> None:
    """An exclusive advisory lock on `handle`, or one line saying another run holds it."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no advisory locks, concurrent runs are the user's care
        return
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as error:
        handle.close()
        raise OutputFileError(f"another judgegraph run is writing to {path}; "
                              "wait for it or use another --out") from error


def has_non_finite(value: Any) -> bool:
    """True when a NaN or infinity hides anywhere in `value` (strict JSON has neither)."""
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(has_non_finite(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(has_non_finite(v) for v in value)
    return False


class NonFiniteRecordError(ValueError):
    """The record holds NaN or infinity, which strict JSON cannot write."""


def encode_record(record: dict) -> bytes:
    """One strict-JSON line; raises `NonFiniteRecordError` for NaN/inf so the caller can write a
    failure instead.

    Text is written as UTF-8 (`ensure_ascii=False`, readable in any editor). A record holding
    a lone surrogate (an `id` read from `"\\ud800"` in the input) has no UTF-8 form, so that
    record alone is written with every non-ASCII character escaped (`ensure_ascii=True`): still
    one valid JSON line, and `json.loads` gives back exactly the id that was read, so resume
    matches it. Escaping was chosen over `surrogateescape`-style byte smuggling, which would
    write bytes that are not UTF-8 and break every other reader of the file."""
    try:
        text = json.dumps(record, ensure_ascii=False, allow_nan=False)
    except ValueError as error:  # json.dumps' only ValueError here: out-of-range floats
        raise NonFiniteRecordError(str(error)) from error
    try:
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(record, ensure_ascii=True, allow_nan=False) + "\n").encode("ascii")


class RecordSink(Protocol):
    """Where a run's records go: the results file (`ResultWriter`) or a list (`KeptRecords`)."""

    def write(self, record: dict) -> None: ...


class KeptRecords:
    """The records of a run without a results file (`evaluate_batch` with no `out=`), kept in a
    list exactly as `ResultWriter` would write them: with the run's provenance, NaN or infinity
    refused the same way (`NonFiniteRecordError`), and read back from their JSON text, so each
    record equals its line in a results file (tuples are lists, keys are text)."""

    def __init__(self, *, provenance: Mapping[str, Any] | None = None) -> None:
        self.provenance = dict(provenance) if provenance is not None else None
        self.records: list[dict] = []

    def write(self, record: dict) -> None:
        if self.provenance is not None:
            record = {**record, PROVENANCE_KEY: self.provenance}
        self.records.append(json.loads(encode_record(record)))


class ResultWriter:
    """Appends records to the results file, each flushed and fsync'd before the next.

    Opening it takes an exclusive advisory lock (`flock`) on the file, so a second run on the
    same `--out` stops with a clear message instead of judging the same ids twice; the kernel
    drops the lock when the process dies, even by kill -9. Open the writer *before*
    `prepare_output`, so the partial-line repair happens under the lock. Only the event-loop
    thread writes, so no thread lock is needed; `durable=False` skips fsync for callers that
    accept losing the OS buffers on a power cut (not used by the CLI). With `provenance` (the
    run's judge, `batch.provenance`), every record written carries it under `"provenance"`:
    the one place a record says which judge wrote it, whichever engine judged the item.
    """

    def __init__(self, path: Path, *, durable: bool = True, provenance: Mapping[str, Any] | None = None) -> None:
        self.path = path
        self.durable = durable
        self.provenance = dict(provenance) if provenance is not None else None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = path.open("ab", buffering=0)
        except OSError as error:
            raise OutputFileError(f"cannot write {path}: {error.strerror or error}") from error
        self._lock()
        self.written = 0

    def _lock(self) -> None:
        _lock_or_fail(self._handle, self.path)

    def drop_records(self, ids: set[str]) -> int:
        """Remove the records of `ids` from the file (`--retry-failed` judges them again), and
        return how many lines went; every other line is kept byte for byte, in order.

        Crash-safe: the kept lines go to a new file beside the results, which is locked,
        fsync'd and renamed over them; this writer then appends to the new file. A crash before
        the rename leaves the old file whole (and a stray `.retry-*` file); after it, the new one."""
        import tempfile

        kept: list[bytes] = []
        dropped = 0
        with self.path.open("rb") as source:
            for raw in source:
                record = record_of(raw)
                if record is not None and "id" in record and id_key(record["id"]) in ids:
                    dropped += 1
                    continue
                kept.append(raw)
        if not dropped:
            return 0
        handle, temp = tempfile.mkstemp(prefix=f".{self.path.name}.retry-", dir=self.path.parent)
        replacement = os.fdopen(handle, "ab", buffering=0)
        try:
            _lock_or_fail(replacement, self.path)
            for raw in kept:
                replacement.write(raw)
            os.fsync(replacement.fileno())
            os.replace(temp, self.path)
        except BaseException:
            replacement.close()
            if os.path.exists(temp):
                os.unlink(temp)
            raise
        self._handle.close()
        self._handle = replacement
        return dropped

    def write(self, record: dict) -> None:
        if self.provenance is not None:
            record = {**record, PROVENANCE_KEY: self.provenance}
        data = encode_record(record)
        view = memoryview(data)
        while view:
            count = self._handle.write(view)
            view = view[count:]
        if self.durable:
            os.fsync(self._handle.fileno())
        self.written += 1

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> "ResultWriter":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
