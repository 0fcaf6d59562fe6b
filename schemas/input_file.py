"""The input file of `evaluate`, as both modes read it: its format by name, and a copy that
can be read more than once (`-`, pipes and gzip spooled first).

Why below the batch: a one-item `evaluate` and a batch start the same way (the name says
whether the input is a batch, `is_batch_format`; a pipe or a gzip'd file is copied once), so
the one-item path reads its input here without entering `batch/`, and the batch's readers
(`batch.input_formats`, `batch.reader`) raise this module's `InputFileError`.

Why a copy: a batch reads its input in several passes (the progress bar's count, the run, the dry

run, Ray's actors), and a pipe (`-`, `/dev/stdin`, `<(...)`) can be read only once: the second
pass found it empty and the batch wrote 0 records with exit 0. A gzip'd file read as text was
"not UTF-8" and its bytes became bogus records. So before anything reads it, such an input is
copied (decompressed) once into a private temporary file, which the process removes at exit;
a regular, uncompressed file is read where it is. What cannot be copied (a truncated gzip, a
pipe that breaks) is one line, exit 2: an input is read whole or refused, never half-read.

The copy keeps the format the name says: `items.jsonl.gz` becomes a `.jsonl` file, so
`--input-format` is only needed where no name says it (`-`).

Why the copy is bounded: it was not, and a 1 MB `.gz` of newlines (gzip packs about a thousand
to one) became 1 GiB on disk before a line was read; a gzip bomb filled the disk, and a pipe
that never ends (`yes |`) did the same. So the copy stops, and the input is refused in one line
(exit 2), past `MAX_COPY_BYTES`, and a gzip'd file past `MAX_GZIP_RATIO` times the compressed
bytes read so far (once it is over `RATIO_FLOOR_BYTES`). Real JSON lines compress some 5 to 20
to one; a file past the ratio can still be judged: decompressed by the user into a regular
file, which is read where it is, never copied. A refused copy is removed at once.
"""

from __future__ import annotations

import atexit
import gzip
import os
import stat
import sys
import tempfile
import zlib
from pathlib import Path
from typing import BinaryIO, Literal

from .untrusted_json import UntrustedJsonError, loads_untrusted

STDIN = "-"
GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 20

MAX_COPY_BYTES = 2 << 30
"""The most a pipe or a gzip'd input is copied to (2 GiB): thousands of times what a judge gets
through in a day's run; a larger input is a regular file, read where it is."""
MAX_GZIP_RATIO = 100
"""Decompressed bytes per compressed byte past which a gzip'd input is refused (a bomb)."""
RATIO_FLOOR_BYTES = 64 << 20
"""Below 64 MiB decompressed, no ratio is checked: a small, very repetitive file is no threat."""

InputFormat = Literal["jsonl", "json", "csv", "parquet"]
INPUT_FORMATS: tuple[str, ...] = ("jsonl", "json", "csv", "parquet")
_EXTENSIONS: dict[str, InputFormat] = {
    ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv", ".parquet": "parquet", ".pq": "parquet",
}


class InputFileError(Exception):
    """The input file cannot be opened or read; one line, for exit 2."""


def input_format(path: Path, requested: str | None) -> InputFormat | None:
    """The format to read `path` as: `--input-format`, else its extension; None when neither
    says (read as one JSON document, else JSONL)."""
    if requested:
        return requested  # type: ignore[return-value]  # argparse's choices checked it
    return _EXTENSIONS.get(path.suffix.lower())


_WIDE_MARKS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
               (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


def wide_text_problem(head: bytes) -> str | None:
    """Why a text input that starts with `head` cannot be read, when it is UTF-16 or UTF-32 (its
    byte-order mark says so; Windows PowerShell's `>` writes UTF-16): every line or row of it
    would fail on its own as "not UTF-8" or "a lone surrogate", with no word about the cause."""
    for mark, name in _WIDE_MARKS:
        if head.startswith(mark):
            return f"it is {name} text (it starts with a {name} byte-order mark); judgegraph reads UTF-8: save it as UTF-8"
    return None


JSONL_HINT = "it holds one JSON value per line (JSONL): read it with --input-format jsonl --out results.jsonl"


def looks_like_jsonl(data: bytes) -> bool:
    """Whether a document that does not parse as one JSON value is JSON lines: its first
    non-blank line parses alone, and so does another. Lets a `.json` file of JSONL be refused
    with the flag that reads it, not with the parser's "Extra data at line 2"."""
    parsed = 0
    for raw in data.splitlines():
        if not raw.strip():
            continue
        try:
            loads_untrusted(raw.decode("utf-8-sig"))
        except (UnicodeDecodeError, UntrustedJsonError):
            return False
        parsed += 1
        if parsed == 2:
            return True
    return False


def is_batch_format(fmt: InputFormat | None) -> bool:
    """Formats that always hold a batch (a `.json` file may hold one item)."""
    return fmt in ("jsonl", "csv", "parquet")


def _is_stream(path: Path) -> bool:
    """A pipe, FIFO or character device: readable once."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def _starts_as_gzip(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(2) == GZIP_MAGIC
    except OSError:
        return False  # the readers say why, in their own words


def _inner_suffix(name: str) -> str:
    """The suffix that says the format: `items.jsonl.gz` -> `.jsonl`; none for `-`."""
    path = Path(name)
    if path.suffix.lower() == ".gz":
        path = path.with_suffix("")
    return path.suffix if name != STDIN else ""


def _remove_at_exit(path: Path) -> None:
    def remove() -> None:
        try:
            path.unlink()
        except OSError:
            pass
    atexit.register(remove)


class _Counted:
    """A stream that counts the bytes read from it: the compressed side of a gzip copy."""

    def __init__(self, source: BinaryIO) -> None:
        self.source, self.count = source, 0

    def read(self, size: int = -1) -> bytes:
        data = self.source.read(size)
        self.count += len(data)
        return data


def _over_the_bound(name: str, written: int, compressed: _Counted | None) -> str | None:
    """Why the copy must stop here (module docstring), or None."""
    if written > MAX_COPY_BYTES:
        kind = "decompresses to" if compressed is not None else "holds"
        return (f"cannot read {name}: it {kind} more than {MAX_COPY_BYTES:,} bytes, the limit for a piped or "
                "gzip'd input; save it as a regular, uncompressed file and pass that")
    if compressed is not None and written > RATIO_FLOOR_BYTES and written > MAX_GZIP_RATIO * compressed.count:
        return (f"cannot read {name} as gzip: it decompresses to over {MAX_GZIP_RATIO} times its size (a "
                "compression bomb?); if it is real, decompress it yourself and pass the file")
    return None


def _copy(source: BinaryIO, name: str, suffix: str, *, gzipped: bool) -> Path:
    handle, temporary = tempfile.mkstemp(prefix="judgegraph-input-", suffix=suffix)
    path = Path(temporary)
    _remove_at_exit(path)
    try:
        with os.fdopen(handle, "wb") as out:
            compressed = _Counted(source) if gzipped else None
            reader: BinaryIO = gzip.GzipFile(fileobj=compressed, mode="rb") if compressed else source  # type: ignore[assignment,arg-type]
            written = 0
            while chunk := reader.read(_CHUNK):
                written += len(chunk)
                refusal = _over_the_bound(name, written, compressed)
                if refusal is not None:
                    raise InputFileError(refusal)
                out.write(chunk)
    except InputFileError:
        path.unlink(missing_ok=True)  # the disk is given back now, not at exit
        raise
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:
        path.unlink(missing_ok=True)
        raise InputFileError(f"cannot read {name} as gzip: {error or 'the file ends early'}") from error
    except OSError as error:
        path.unlink(missing_ok=True)
        raise InputFileError(f"cannot read {name}: {error.strerror or error}") from error
    return path


def readable_input(name: str) -> tuple[str, bool]:
    """(a path to read the input from as often as needed, whether it is a copy). `name` is the
    command line's input: `-` is stdin, a pipe is read once, gzip is decompressed (by its
    content, so a `.gz` name that is not gzip is refused and a gzip without the name is read)."""
    if name == STDIN:
        return str(_copy(sys.stdin.buffer, "stdin (-)", "", gzipped=False)), True
    path = Path(name)
    if _is_stream(path):
        try:
            with path.open("rb") as source:
                peek = source.read(2)
                copy = _copy_with_head(source, peek, name)
        except OSError as error:
            raise InputFileError(f"cannot read {name}: {error.strerror or error}") from error
        return str(copy), True
    if _starts_as_gzip(path):
        with path.open("rb") as source:
            return str(_copy(source, name, _inner_suffix(name), gzipped=True)), True
    if path.suffix.lower() == ".gz" and path.is_file():
        raise InputFileError(f"cannot read {name} as gzip: it does not start with gzip's header")
    return name, False


class _Prefixed:
    """A stream with its first bytes (already read to look for gzip's header) put back."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self.head, self.rest = head, rest

    def read(self, size: int = -1) -> bytes:
        if self.head:
            if size is None or size < 0:
                data, self.head = self.head + self.rest.read(), b""
                return data
            data, self.head = self.head[:size], self.head[size:]
            return data if len(data) == size else data + self.rest.read(size - len(data))
        return self.rest.read(size)


def _copy_with_head(source: BinaryIO, head: bytes, name: str) -> Path:
    stream = _Prefixed(head, source)
    return _copy(stream, name, _inner_suffix(name), gzipped=head == GZIP_MAGIC)  # type: ignore[arg-type]
