"""JSON Lines as every judgegraph reader of a file it did not write itself reads them.

Why one reader: JSONL means one JSON value per line, and a line ends at "\\n" and nowhere else.
`str.splitlines()` also ends lines at U+2028, U+2029, U+0085, "\\x0b", "\\x0c" and "\\x1c".."\\x1e",
which JSON allows raw inside a string, so it cuts a valid record in two; and decoding a file with
`errors="replace"` turns bytes that are not UTF-8 into U+FFFD, so an id or a label is silently
changed. Reading in binary and splitting on b"\\n" only, then decoding each line strictly, gives
every reader (batch input, results files, labels files) the same lines, the same line numbers
and the same one-line reasons.

A line's value is parsed by `schemas.untrusted_json` (the batch input's rules), and what JSON
allows but no score can be (`NaN`, `Infinity`, an integer too long to convert, a lone surrogate,
pathological nesting) is named with its field by `line_problem`, so a caller can say
"results.jsonl line 7: 'result.faithfulness' is NaN" instead of reading NaN as a score.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from .untrusted_json import UntrustedJsonError, loads_untrusted, value_problem


@dataclass(frozen=True)
class JsonlLine:
    number: int
    """1-based, counting every "\\n"-ended line (blank ones too), as editors number them."""
    raw: bytes
    """The line without its "\\n" (and without a "\\r" before it)."""
    complete: bool
    """False for a last line with no newline: a file still being written, or cut off."""
    offset: int = 0
    """Where `raw` starts in the file, in bytes, so the line can be read again (`line_at`)."""

    @property
    def blank(self) -> bool:
        return not self.raw.strip()


def jsonl_lines(handle: BinaryIO) -> Iterator[JsonlLine]:
    """The lines of a binary file, split on b"\\n" only; a UTF-8 byte-order mark before the first
    line is the file's encoding mark and is dropped."""
    position = 0
    for number, raw in enumerate(handle, start=1):
        offset, position = position, position + len(raw)
        complete = raw.endswith(b"\n")
        body = _body(raw)
        if number == 1 and body.startswith(codecs.BOM_UTF8):
            body = body[len(codecs.BOM_UTF8):]
            offset += len(codecs.BOM_UTF8)
        yield JsonlLine(number, body, complete, offset)


def _body(raw: bytes) -> bytes:
    """A line without its "\\n" (and a "\\r" before it)."""
    body = raw[:-1] if raw.endswith(b"\n") else raw
    return body[:-1] if body.endswith(b"\r") else body


def line_at(handle: BinaryIO, offset: int) -> bytes:
    """The line whose `JsonlLine.offset` is `offset`, as `jsonl_lines` gave it: one record read
    again without holding every record of the file."""
    handle.seek(offset)
    return _body(handle.readline())


def line_value(raw: bytes) -> Any:
    """The JSON value of one line; `UntrustedJsonError` ("not UTF-8 text (...)", "not valid JSON
    (...)") when the line cannot be read at all. Values JSON allows but no reader can use are
    left to `line_problem`, so a caller can still tell a record from garbage."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UntrustedJsonError(f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    return loads_untrusted(text, keys_once=False)  # results and labels: as `json.loads` reads them


def line_problem(value: Any, *, surrogates: bool = True) -> str | None:
    """Why a parsed line holds a value no reader may use (NaN, Infinity, an integer too long
    to read, a lone surrogate, nesting too deep), naming the field; None when clean.
    `surrogates=False` for results files, which keep an unjudgeable id JSON-escaped."""
    return value_problem(value, surrogates=surrogates)
