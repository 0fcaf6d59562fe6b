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
import csv
import datetime
import decimal
import json
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any, Literal

from ..schemas.field_aliases import CONTEXT_NAMES
from ..schemas.untrusted_json import UntrustedJsonError, loads_untrusted
from .reader import PREFIX, Entry, InputFileError, entry_from_value, open_input, read_entries

InputFormat = Literal["jsonl", "json", "csv", "parquet"]
INPUT_FORMATS: tuple[str, ...] = ("jsonl", "json", "csv", "parquet")
_EXTENSIONS: dict[str, InputFormat] = {
    ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv", ".parquet": "parquet", ".pq": "parquet",
}

STRUCTURED_COLUMNS: frozenset[str] = frozenset(
    {*CONTEXT_NAMES, "metrics", "evaluationConfig", "conversationHistory"})
"""Columns whose cells may hold a JSON list or object; other cells are text as written."""

PARQUET_EXTRA = "reading Parquet needs pyarrow, which the [ray] extra installs: pip install 'judgegraph[ray]' (or pip install pyarrow)"


def input_format(path: Path, requested: str | None) -> InputFormat | None:
    """The format to read `path` as: `--input-format`, else its extension; None when neither
    says (read as one JSON document, else JSONL)."""
    if requested:
        return requested  # type: ignore[return-value]  # argparse's choices checked it
    return _EXTENSIONS.get(path.suffix.lower())


def is_batch_format(fmt: InputFormat | None) -> bool:
    """Formats that always hold a batch (a `.json` file may hold one item)."""
    return fmt in ("jsonl", "csv", "parquet")


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
    """A JSON document: one object is one item, an array is one item per element. When it does
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
            raise InputFileError(f"cannot read {path} as JSON: {reason}") from error
        yield from read_entries(path, max_item_bytes)
        return
    if not isinstance(value, list):
        if isinstance(value, dict) and _json_size(value) > max_item_bytes:
            yield Entry(1, "line-1", error=_too_large("the item", _json_size(value), max_item_bytes))
            return
        yield entry_from_value(1, value)
        return
    for number, element in enumerate(value, start=1):
        where = f"item {number} of the array"
        size = _json_size(element)
        if size > max_item_bytes:
            yield Entry(number, f"item-{number}", error=_too_large(where, size, max_item_bytes))
            continue
        yield entry_from_value(number, element, where=where, fallback=f"item-{number}")


def _cell_value(column: str, text: str, structured: Collection[str]) -> tuple[Any, str | None]:
    """(value, problem) of one CSV cell: a list or object when its column may hold one and the
    cell is written as one, else the text itself."""
    stripped = text.strip()
    if column not in structured or not stripped or stripped[0] not in "[{":
        return text, None
    try:
        return loads_untrusted(stripped), None
    except UntrustedJsonError as error:
        json_problem = str(error)
    try:  # pandas writes a list column as Python's repr: ['a', "b's"]
        value = ast.literal_eval(stripped)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None, f"column {column!r} looks like a list or object but is not JSON ({json_problem})"
    if not isinstance(value, (list, dict)):
        return None, f"column {column!r} looks like a list or object but is not JSON ({json_problem})"
    return value, None


def read_csv(path: Path, max_row_bytes: int, structured: Collection[str]) -> Iterator[Entry]:
    """A CSV file with a header row: one item per row, `line` being the file line the row
    starts on. Cells are UTF-8 text; a row that is not, or is longer than `max_row_bytes`,
    or has more cells than the header, is a failed entry of its own."""
    open_input(path).close()
    previous_limit = csv.field_size_limit()
    csv.field_size_limit(max(previous_limit, max_row_bytes + 1))  # a long context is a long cell
    try:
        with path.open(encoding="utf-8-sig", errors="surrogateescape", newline="") as handle:
            rows = csv.reader(handle)
            try:
                header = next(rows, None)
            except csv.Error as error:
                raise InputFileError(f"cannot read {path} as CSV: {error}") from error
            if header is None:
                return
            repeated = sorted({name for name in header if header.count(name) > 1})
            if repeated:
                raise InputFileError(f"cannot read {path} as CSV: the header repeats column(s) {', '.join(map(repr, repeated))}")
            end = rows.line_num
            while True:
                start = end + 1
                try:
                    row = next(rows)
                except StopIteration:
                    return
                except csv.Error as error:
                    end = rows.line_num
                    yield Entry(start, f"line-{start}", error=f"{PREFIX}: line {start} is not a CSV row ({error}).")
                    continue
                end = rows.line_num
                if not any(cell.strip() for cell in row):
                    continue
                yield _csv_entry(start, header, row, max_row_bytes, structured)
    except OSError as error:
        raise InputFileError(f"cannot read {path}: {error.strerror or error}") from error
    finally:
        csv.field_size_limit(previous_limit)


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
        value, problem = _cell_value(column, text, structured)
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
