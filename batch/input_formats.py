"""A batch's items from the files people have: JSONL, a JSON array, CSV, Parquet.

Why one module: RAGAS exports CSV and Parquet (through pandas), DeepEval saves a JSON array of
test cases, LangChain apps dump JSON; the batch reads each as a stream of `reader.Entry`s, so
triage, resume, the runner and the dry run treat every format alike and one bad row is one
failed record, never the file's end. The format comes from `--input-format`, else from the
extension; a file of another extension is read as today: one JSON document if it parses as
one, else JSONL lines.

Rows of a table are items with one column per field. A field that holds a list (a context's
passages, `metrics`) or an object (`evaluationConfig`) is written in its cell as JSON
(`["passage one", "passage two"]`); a Python list as pandas writes it (`['a', "b's"]`) is read
too, as a literal, never evaluated. An empty cell is an absent field. docs/input-fields.md says
it for users.
"""

from __future__ import annotations

import ast
import codecs
import csv
import datetime
import decimal
import io
import json
import tokenize
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from ..schemas.export_documents import document_rows
from ..schemas.export_shapes import EXPORT_CONTEXT_COLUMNS
from ..schemas.field_aliases import CONTEXT_NAMES
from ..schemas.input_file import JSONL_HINT, InputFileError, InputFormat, looks_like_jsonl
from ..schemas.untrusted_json import UntrustedJsonError, loads_untrusted
from .reader import PREFIX, Entry, entry_from_value, open_input, read_entries

STRUCTURED_COLUMNS: frozenset[str] = frozenset(
    {*CONTEXT_NAMES, *EXPORT_CONTEXT_COLUMNS, "metrics", "evaluationConfig", "conversationHistory"})
"""Columns whose cells may hold a JSON list or object; other cells are text as written."""

PARQUET_EXTRA = "reading Parquet needs pyarrow, which the [ray] extra installs: pip install 'judgegraph[ray]' (or pip install pyarrow)"


def read_input(path: Path, fmt: InputFormat | None, max_item_bytes: int,
               list_columns: Collection[str] = ()) -> Iterator[Entry]:
    """Every item of `path` as an `Entry`, in file order. `list_columns`: more table columns
    that may hold a JSON list (the sources a `--map` reads as a context)."""
    if fmt == "jsonl":
        yield from read_entries(path, max_item_bytes)
    elif fmt == "csv":
        yield from read_csv(path, max_item_bytes, STRUCTURED_COLUMNS | set(list_columns))
    elif fmt == "parquet":
        yield from read_parquet(path, max_item_bytes)
    else:
        yield from read_json_document(path, max_item_bytes, strict=fmt == "json")


def _too_large(where: str, size: int, limit: int) -> str:
    return f"{PREFIX}: {where} is {size} bytes, over the limit of {limit} (--max-line-bytes)."


def _json_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass"))


def read_json_document(path: Path, max_item_bytes: int, *, strict: bool) -> Iterator[Entry]:
    """A JSON document: one object is one item, an array is one item per element, a table
    (`schemas.export_documents`: pandas' orientations, DeepEval's test run) one item per row. When it does
    not parse as JSON it is read as JSONL (a `.json` file of JSON lines), unless `strict`
    (`--input-format json`), which makes it one line on stderr, exit 2."""
    handle = open_input(path)
    try:
        with handle:
            data = handle.read()
    except OSError as error:
        raise InputFileError(f"cannot read {path}: {error.strerror or error}") from error
    try:
        value = loads_untrusted(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, UntrustedJsonError) as error:
        if strict:
            reason = f"not UTF-8 text ({error.reason})" if isinstance(error, UnicodeDecodeError) else str(error)
            if looks_like_jsonl(data):
                reason = JSONL_HINT
            raise InputFileError(f"cannot read {path} as JSON: {reason}") from error
        yield from read_entries(path, max_item_bytes)
        return
    table = document_rows(value)
    if table is not None and table.problem:
        raise InputFileError(f"cannot read {path} as a {table.shape}: {table.problem}")
    if table is not None:
        shape = table.shape.split(' (')[0]
        yield from _bounded_entries(table.rows, lambda n: f"row {n} of the {shape}", "row", max_item_bytes)
        return
    if not isinstance(value, list):
        if isinstance(value, dict) and _json_size(value) > max_item_bytes:
            yield Entry(1, "line-1", error=_too_large("the item", _json_size(value), max_item_bytes))
            return
        yield entry_from_value(1, value)
        return
    yield from _bounded_entries(value, lambda n: f"item {n} of the array", "item", max_item_bytes)


def _bounded_entries(values: list, where: Callable[[int], str], kind: str, max_item_bytes: int) -> Iterator[Entry]:
    """One entry per value of a JSON document's rows or array, numbered from 1 (`where(n)` names
    it in messages, `<kind>-<n>` is its id when it has none); a value over `max_item_bytes` is an
    entry with its error, as an over-long JSONL line is."""
    for number, value in enumerate(values, start=1):
        size = _json_size(value)
        if size > max_item_bytes:
            yield Entry(number, f"{kind}-{number}", error=_too_large(where(number), size, max_item_bytes))
            continue
        yield entry_from_value(number, value, where=where(number), fallback=f"{kind}-{number}")


def cell_value(column: str, text: str, structured: Collection[str]) -> tuple[Any, str | None]:
    """(value, problem) of one CSV cell: a list or object when its column may hold one and the
    cell is written as one, else the text itself."""
    stripped = text.strip()
    if column not in structured or not stripped or stripped[0] not in "[{":
        return text, None
    try:
        return loads_untrusted(stripped), None
    except UntrustedJsonError as error:
        json_problem = str(error)
    numpy_list = numpy_list_repr(stripped)
    if numpy_list is not None:  # a Parquet frame's list cell, written by pandas: ['a' 'b']
        return numpy_list, None
    if adjacent_strings(stripped):  # Python would fuse 'a' 'b' into 'ab': never read it so
        return None, f"column {column!r} holds strings with no comma between them, which would be read fused"
    try:  # pandas writes a list column as Python's repr: ['a', "b's"]
        value = ast.literal_eval(stripped)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None, f"column {column!r} looks like a list or object but is not JSON ({json_problem})"
    if not isinstance(value, (list, dict)):
        return None, f"column {column!r} looks like a list or object but is not JSON ({json_problem})"
    return value, None


def _tokens(text: str) -> list[tokenize.TokenInfo] | None:
    try:
        return [token for token in tokenize.generate_tokens(io.StringIO(text).readline)
                if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER, tokenize.INDENT,
                                      tokenize.DEDENT, tokenize.COMMENT)]
    except (tokenize.TokenError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def adjacent_strings(text: str) -> bool:
    """Whether two string literals follow each other with nothing between them."""
    tokens = _tokens(text) or []
    return any(a.type == tokenize.STRING and b.type == tokenize.STRING for a, b in zip(tokens, tokens[1:]))


def numpy_list_repr(text: str) -> list[str] | None:
    """numpy's `str` of an array of strings, `['a' 'b']` (space-separated, wrapped over lines
    when long): what pandas writes into a CSV cell for a list column of a frame read from
    Parquet. Its strings, each read as a literal; None for anything else."""
    tokens = _tokens(text)
    if not tokens or len(tokens) < 4 or tokens[0].string != "[" or tokens[-1].string != "]":
        return None
    inner = tokens[1:-1]
    if not all(token.type == tokenize.STRING for token in inner):
        return None
    try:
        values = [ast.literal_eval(token.string) for token in inner]
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return values if all(isinstance(value, str) for value in values) else None


def repeated_names(names: list[str]) -> list[str]:
    """The column names given more than once, sorted: a row read as a dict keeps the last column
    of such a name and drops the others, so a CSV header, a Parquet file or a DataFrame that
    repeats one is refused."""
    return sorted({name for name in names if names.count(name) > 1})


def read_csv(path: Path, max_row_bytes: int, structured: Collection[str]) -> Iterator[Entry]:
    """A CSV file with a header row: one item per record, `line` being the file line the record
    starts on. Cells are UTF-8 text; a record that is not, or is longer than `max_row_bytes`,
    or has more cells than the header, is a failed entry of its own.

    The file is cut into records first (`csv_records`: a record ends at a line break outside
    quotes), then each record is parsed alone, so a record that fails (a cell over the limit)
    never lets the parser resume inside its quoted cell: the cell's later lines never become
    rows, and every later record keeps its own line and id. A header written with `;` or a tab
    (Excel in many locales) is read with that delimiter."""
    handle = open_input(path)
    try:
        with handle:
            records = csv_records(handle, max_row_bytes)
            first = next(records, None)
            if first is None:
                return
            _, header_text, header_size = first
            if header_size > max_row_bytes:
                raise InputFileError(f"cannot read {path} as CSV: the header is over {max_row_bytes} bytes")
            if any("\udc80" <= char <= "\udcff" for char in header_text):  # every row's keys would be bytes
                raise InputFileError(f"cannot read {path} as CSV: the header is not UTF-8 text; save the file as UTF-8")
            delimiter = header_delimiter(header_text)
            header = _parse_record(header_text, delimiter, max_row_bytes)
            if header is None:
                raise InputFileError(f"cannot read {path} as CSV: the header is not a CSV row")
            repeated = repeated_names(header)
            if repeated:
                raise InputFileError(f"cannot read {path} as CSV: the header repeats column(s) {', '.join(map(repr, repeated))}")
            for start, text, size in records:
                if size > max_row_bytes:
                    yield _oversized_record(start, header, text, size, delimiter, max_row_bytes)
                    continue
                row = _parse_record(text, delimiter, max_row_bytes)
                if row is None:
                    yield Entry(start, f"line-{start}", error=f"{PREFIX}: line {start} is not a CSV row.")
                    continue
                if not any(cell.strip() for cell in row):
                    continue
                yield _csv_entry(start, header, row, max_row_bytes, structured)
    except OSError as error:
        raise InputFileError(f"cannot read {path}: {error.strerror or error}") from error


def header_delimiter(header: str) -> str:
    """`,` unless the header is one column under `,` and several under `;` or a tab: a
    `;`-delimited file read with `,` fails every row with no word about why."""
    if "," in header:
        return ","
    for delimiter in (";", "\t"):
        if delimiter in header:
            return delimiter
    return ","


def csv_records(handle: BinaryIO, limit: int) -> Iterator[tuple[int, str, int]]:
    """(first line, text, size in bytes) of each CSV record of a binary handle. A record ends at a
    line break outside double quotes (RFC 4180: a quote inside a quoted cell is doubled, so the
    count of quotes stays even). A record over `limit` bytes keeps only its first `limit` bytes
    in memory (enough to read its id), and is counted to its end."""
    line_number = 0
    first_line = True
    while True:
        start = line_number + 1
        kept: list[bytes] = []
        kept_size = size = quotes = 0
        last = b""
        while True:
            chunk = handle.readline(_CSV_CHUNK)
            if not chunk:
                break
            if first_line:
                chunk = chunk.removeprefix(codecs.BOM_UTF8)
                first_line = False
            last = chunk
            quotes += chunk.count(b'"')
            size += len(chunk)
            if kept_size <= limit:
                kept.append(chunk[: limit + 1 - kept_size])
                kept_size += len(kept[-1])
            if chunk.endswith(b"\n"):
                line_number += 1
                if quotes % 2 == 0:
                    break
        if size == 0:
            return
        if not last.endswith(b"\n"):
            line_number += 1  # the last line, without a line break
        size -= len(last) - len(last.rstrip(b"\r\n"))
        text = b"".join(kept).decode("utf-8", "surrogateescape")
        yield start, text[:-1] if size > limit else text.rstrip("\r\n"), size


_CSV_CHUNK = 1 << 20


def _parse_record(text: str, delimiter: str, limit: int) -> list[str] | None:
    """One record's cells, or None when the text is not one CSV record."""
    previous = csv.field_size_limit()
    csv.field_size_limit(max(previous, limit + 1))
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    except csv.Error:
        return None
    finally:
        csv.field_size_limit(previous)
    if len(rows) > 1:
        return None
    return rows[0] if rows else []


def _oversized_record(line: int, header: list[str], head: str, size: int, delimiter: str, limit: int) -> Entry:
    """A record over the limit: failed on its own, under its own id when its head holds it
    (the id cell comes before the cell that was cut)."""
    fallback = f"line-{line}"
    closed = head + '"' if head.count('"') % 2 else head  # the cut cell closed, to read the ones before
    cells = _parse_record(closed, delimiter, limit) or []
    column = header.index("id") if "id" in header else None
    if column is not None and column < len(cells) - 1 and cells[column].strip():
        fallback = cells[column]
    return Entry(line, fallback, error=_too_large(f"line {line}", size, limit))


def _csv_entry(line: int, header: list[str], row: list[str], max_row_bytes: int,
               structured: Collection[str]) -> Entry:
    where, fallback = f"line {line}", f"line-{line}"
    size = sum(len(cell.encode("utf-8", "surrogateescape")) for cell in row)
    if size > max_row_bytes:
        return Entry(line, fallback, error=_too_large(where, size, max_row_bytes))
    if any("\udc80" <= char <= "\udcff" for cell in row for char in cell):
        return Entry(line, fallback, error=f"{PREFIX}: {where} is not UTF-8 text.")
    if "id" in header and header.index("id") < len(row) and row[header.index("id")].strip():
        fallback = row[header.index("id")]  # a row that fails keeps its id, for resume
    if len(row) > len(header):
        return Entry(line, fallback, error=(
            f"{PREFIX}: {where} has {len(row)} cells, the header has {len(header)} columns."))
    item: dict[str, Any] = {}
    for column, text in zip(header, row):
        if text == "":
            continue  # an empty cell is an absent field
        value, problem = cell_value(column, text, structured)
        if problem:
            return Entry(line, fallback, error=f"{PREFIX}: {where}: {problem}.")
        item[column] = value
    return entry_from_value(line, item, where=where, fallback=fallback)


def _plain(value: Any) -> Any:
    """A Parquet cell as a JSON value: dates as ISO text, decimals and other scalars as text."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {str(key): _plain(sub) for key, sub in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(sub) for sub in value]
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, decimal.Decimal):
        return str(value)
    return str(value)


def check_reader(path: Path, fmt: InputFormat | None) -> None:
    """`InputFileError` now, before any work, when the format's reader is missing."""
    if fmt == "parquet":
        _parquet_module(path)


def _parquet_module(path: Path) -> Any:
    try:
        import pyarrow.parquet as parquet
    except ImportError as error:
        raise InputFileError(f"cannot read {path}: {PARQUET_EXTRA}") from error
    return parquet


def read_parquet(path: Path, max_row_bytes: int) -> Iterator[Entry]:
    """A Parquet file: one item per row (`line` is the 1-based row number), read in record
    batches so a large file is never held whole. Needs pyarrow, which judgegraph does not
    require: without it, one line naming the extra that brings it."""
    parquet = _parquet_module(path)
    open_input(path).close()
    try:
        table = parquet.ParquetFile(path)
    except Exception as error:  # noqa: BLE001 - pyarrow raises its own error types for bad files
        raise InputFileError(f"cannot read {path} as Parquet: {str(error).splitlines()[0]}") from error
    names = list(table.schema_arrow.names)
    repeated = repeated_names(names)
    if repeated:  # a row read as a dict keeps the last column of a name and drops the others
        raise InputFileError(f"cannot read {path} as Parquet: it repeats column(s) {', '.join(map(repr, repeated))}")
    number = 0
    for rows in _row_batches(path, table):
        for row in rows:
            number += 1
            where, fallback = f"row {number}", f"row-{number}"
            value = _plain(row)
            size = _json_size(value)
            if size > max_row_bytes:
                yield Entry(number, fallback, error=_too_large(where, size, max_row_bytes))
                continue
            yield entry_from_value(number, value, where=where, fallback=fallback)


def _row_batches(path: Path, table: Any) -> Iterator[list[dict]]:
    batches = table.iter_batches(batch_size=512)
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except Exception as error:  # noqa: BLE001 - a corrupt page: pyarrow's own error types
            raise InputFileError(f"cannot read {path} as Parquet: {str(error).splitlines()[0]}") from error
        yield batch.to_pylist()
