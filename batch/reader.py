"""Reading a JSONL batch: one entry per non-blank line, never an exception for a bad line.

A batch of thousands of items must not stop at line 17 because someone pasted prose into the
file: each line becomes either an item to judge or an `Entry` that carries the reason it cannot
be judged (not UTF-8, not JSON, not an object, too large, a bad `id`), with its line number, so
the runner can write a failed record and go on. Only a file that cannot be opened or read at all
is the user's problem to fix first (`InputFileError`, exit 2).

What JSON allows but the judge cannot use (a lone surrogate, a 5,000-digit integer, `NaN`,
nesting thousands deep: `schemas.untrusted_json`) is a bad line too, with the line's `id` kept
whenever it can be read, so a resumed run skips it like any written id. A UTF-8 byte-order
mark before the first line is encoding, not data: it is dropped, so the first item keeps its id.

Lines are read in binary with a length cap, so one enormous line (a 2 GB base64 blob) is skipped
in chunks instead of being loaded into memory. A run of blank lines is skipped a buffer at a
time (`_skip_blank_lines`), still counted so line numbers stay true: read one `readline` at a
time, the 10 million blank lines of a 10 KB gzip took a dry run half a minute.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from ..schemas.input_file import InputFileError
from ..schemas.untrusted_json import (
    TooLargeInteger,
    UntrustedJsonError,
    describe_surrogate,
    loads_untrusted,
    value_problem,
)

DEFAULT_MAX_LINE_BYTES = 1_000_000
"""Lines longer than this (1 MB) become failed records without being parsed."""

_AUTOMATIC_ID = re.compile(r"(line|item)-[1-9][0-9]*")
"""The form of the ids given to items without one (`line-<n>`, `item-<n>` in a JSON array). An
explicit id of that form is allowed only on its own line: "line-13" written on line 1 would
take the id of an id-less line 13, which would then be skipped as a duplicate and never judged.
With this rule no two lines can share an id by accident, in this file or after lines are added."""


def _takes_an_automatic_id(item_id: str, fallback: str) -> bool:
    """`item_id` is the automatic id of another line of this input."""
    own, given = _AUTOMATIC_ID.fullmatch(fallback), _AUTOMATIC_ID.fullmatch(item_id)
    return bool(own and given and own.group(1) == given.group(1) and item_id != fallback)

_CHUNK = 1 << 20
PREFIX = "Input parsing error"
"""Same prefix as the graph's own validation reasons, so users grep one phrase."""


@dataclass(frozen=True)
class TurnOf:
    """Which turn of which conversation an entry is (`batch.conversations`): its record says it."""

    conversation: str | int
    """The conversation's id (its line's `id`, or `line-<n>`)."""
    turn: int
    """1-based: the n-th assistant turn judged."""
    turns: int
    """How many turns the conversation has."""

    def as_record(self) -> dict[str, Any]:
        return {"id": self.conversation, "turn": self.turn, "turns": self.turns}


@dataclass(frozen=True)
class Entry:
    """One non-blank input line: an item to judge, or the reason it cannot be judged."""

    line: int
    """1-based line number in the input file."""
    id: str | int
    """The item's own `id`, or `line-<n>` when it has none (or the line is unreadable)."""
    item: dict | None = None
    error: str | None = None
    conversation: TurnOf | None = None
    """Set for a turn of a conversation line (`batch.conversations`)."""

    @property
    def key(self) -> str:
        """The identity used for resume and duplicate detection (`1` and `"1"` are the same)."""
        return id_key(self.id)


def id_key(value: Any) -> str:
    return str(value)


def open_input(path: Path) -> BinaryIO:
    """Open the batch input, or explain in one line why not."""
    try:
        handle = path.open("rb", buffering=_CHUNK)
    except OSError as error:
        raise InputFileError(f"cannot read {path}: {error.strerror or error}") from error
    if path.is_dir():
        handle.close()
        raise InputFileError(f"cannot read {path}: is a directory")
    return handle


def _read_line(handle: BinaryIO, limit: int) -> tuple[bytes, int] | None:
    """The next line (without its newline) and its full size; over-long lines come back empty.

    Reads at most `limit + 1` bytes into memory; the rest of an over-long line is consumed in
    chunks and only counted.
    """
    head = handle.readline(limit + 1)
    if not head:
        return None
    if head.endswith(b"\n") or len(head) <= limit:
        body = head.rstrip(b"\n").rstrip(b"\r")
        return body, len(body)
    size = len(head)
    while True:
        chunk = handle.readline(_CHUNK)
        if not chunk:
            return b"", size
        size += len(chunk.rstrip(b"\n"))
        if chunk.endswith(b"\n"):
            return b"", size


def _skip_blank_lines(handle: BinaryIO) -> int:
    """Consume the blank lines at the handle's position, a buffer at a time; how many there were.
    Stops at the first line that holds anything (it is left to `_read_line`)."""
    skipped = 0
    while True:
        buffered = handle.peek(_CHUNK)  # type: ignore[attr-defined]  # a BufferedReader (open_input)
        blank = len(buffered) - len(buffered.lstrip())  # whitespace, as `bytes.strip` reads it
        end = buffered.rfind(b"\n", 0, blank) + 1  # up to the last whole blank line
        if end == 0:
            return skipped
        skipped += buffered.count(b"\n", 0, end)
        handle.read(end)
        if blank < len(buffered):
            return skipped


def parse_line(number: int, raw: bytes, size: int, max_line_bytes: int) -> Entry:
    """Turn one line into an `Entry`; every problem becomes a reason, never an exception."""
    fallback = f"line-{number}"
    if size > max_line_bytes:
        return Entry(number, fallback, error=(
            f"{PREFIX}: line {number} is {size} bytes, over the limit of {max_line_bytes} "
            "(--max-line-bytes)."
        ))
    if number == 1 and raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8):]  # utf-8-sig: the file's encoding mark, not the item's
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return Entry(number, fallback, error=f"{PREFIX}: line {number} is not UTF-8 text ({error.reason}).")
    try:
        value = loads_untrusted(text)
    except UntrustedJsonError as error:
        return Entry(number, fallback, error=f"{PREFIX}: line {number} {_after_line(str(error))}.")
    return entry_from_value(number, value)


def entry_from_value(number: int, value: Any, *, where: str | None = None, fallback: str | None = None) -> Entry:
    """One parsed input value (a JSONL line, an element of a JSON array, a CSV or Parquet row) as
    an `Entry`; `where` names it in reasons ("line 3", "item 3 of the array"), `fallback` is
    its id when it has none."""
    where = where or f"line {number}"
    fallback = fallback or f"line-{number}"
    if not isinstance(value, dict):
        kind = "null" if value is None else type(value).__name__
        return Entry(number, fallback, error=f"{PREFIX}: {where} must be a JSON object, got {kind}.")
    item_id = value.get("id")
    if item_id is None or item_id == "":
        item_id = fallback
    elif isinstance(item_id, TooLargeInteger):
        return Entry(number, fallback, error=f"{PREFIX}: {where}: {value_problem({'id': item_id})}.")
    elif isinstance(item_id, bool) or not isinstance(item_id, (str, int)):
        return Entry(number, fallback, error=f"{PREFIX}: {where}: 'id' must be a string or an integer.")
    elif isinstance(item_id, str) and _takes_an_automatic_id(item_id, fallback):
        return Entry(number, fallback, error=(
            f"{PREFIX}: {where}: id '{item_id}' is the automatic id of {item_id.replace('-', ' ')} "
            f"(items without an id are called {fallback.split('-')[0]}-<n>); give this item another id."))
    elif isinstance(item_id, str) and (bad_id := describe_surrogate(item_id, "'id'")):
        # Kept (written JSON-escaped, `batch.writer`), so the line is reported and resumed by it.
        return Entry(number, item_id, error=f"{PREFIX}: {where}: {bad_id}.")
    problem = value_problem(value)
    if problem:
        return Entry(number, item_id, error=f"{PREFIX}: {where}: {problem}.")
    return Entry(number, item_id, item=value)


def _after_line(reason: str) -> str:
    """`untrusted_json`'s reason as it reads after "line 3": "is not valid JSON (...)",
    "is nested too deeply to parse", "holds an integer too large to read (...)"."""
    return reason if reason.startswith("holds") else f"is {reason}"


def is_blank(path: Path) -> bool:
    """Whether the input holds nothing but whitespace (read in chunks, stopping at the first
    other byte): an empty input is the user's mistake (exit 2), not a run of 0 items."""
    with open_input(path) as handle:
        while chunk := handle.read(_CHUNK):
            if chunk.strip():
                return False
    return True


def read_entries(path: Path, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Iterator[Entry]:
    """Every non-blank line of `path` as an `Entry`, in file order (streamed)."""
    handle = open_input(path)
    with handle:
        number = 0
        while True:
            try:
                line = _read_line(handle, max_line_bytes)
            except OSError as error:
                raise InputFileError(f"cannot read {path}: {error.strerror or error}") from error
            if line is None:
                return
            number += 1
            raw, size = line
            if size <= max_line_bytes and not raw.strip():
                try:
                    number += _skip_blank_lines(handle)
                except OSError as error:
                    raise InputFileError(f"cannot read {path}: {error.strerror or error}") from error
                continue
            yield parse_line(number, raw, size, max_line_bytes)
