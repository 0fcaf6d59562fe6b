"""`--format csv`: the results JSONL as a flat table, for spreadsheets.

Written from the whole results file after each run (so it includes resumed records), to a
temporary file renamed into place: a reader never sees half a table. Its rows are in input order
(`records.input_position`), whatever order the items finished in: the table is read beside the
input. The results file is read twice, never held whole: once for the columns and each record's
position and byte offset, then record by record in input order. Nested result keys are
flattened with dots (`result.evaluation.result.score`); lists are written as JSON text.

Spreadsheets run a cell that starts with `=`, `+`, `-` or `@` as a formula (and treat a leading
tab or carriage return the same way), and ids, questions, answers and explanations are text
from files judgegraph did not write: `=HYPERLINK(...)` in an answer would run on the reader's
machine. Every text cell, and every column name, that starts with one of those characters is
written with a single quote before it, as OWASP's CSV-injection advice says; the spreadsheet
shows the text, and a reader can still see the quote. Numbers (scores, counts, a negative
difference) are JSON numbers in the record and are written as numbers, untouched.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Any

from ..schemas.jsonl import jsonl_lines, line_at
from .records import input_position
from .writer import record_of

LEADING = ("id", "line", "rubric")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""OWASP's list of first characters a spreadsheet reads as the start of a formula."""


def neutralised(value: Any) -> Any:
    """A text cell safe to open in a spreadsheet: a leading formula character gets a `'` before
    it. Anything that is not text (numbers, booleans) is returned as it is."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def flatten(value: Any, prefix: str, into: dict[str, Any]) -> None:
    if isinstance(value, dict) and value:
        for key, sub in value.items():
            flatten(sub, f"{prefix}.{key}" if prefix else str(key), into)
    elif isinstance(value, (list, dict)):
        into[prefix] = json.dumps(value, ensure_ascii=False)
    else:
        into[prefix] = "" if value is None else neutralised(value)


def flat_row(record: dict) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for key, value in record.items():
        flatten(value, key, row)
    return row


def csv_path_for(out: Path) -> Path:
    return out.with_suffix(".csv") if out.suffix else out.with_name(out.name + ".csv")


def write_csv(jsonl: Path, target: Path) -> int:
    """Write `target` from every record of `jsonl`; returns the number of rows."""
    columns: dict[str, None] = dict.fromkeys(LEADING)
    order: list[tuple[tuple[int, int], int]] = []
    with jsonl.open("rb") as results:
        for line in jsonl_lines(results):
            if not line.complete:
                break  # a partial tail is not a record
            record = record_of(line.raw)
            if record is not None:
                columns.update(dict.fromkeys(flat_row(record)))
                order.append((input_position(record), line.offset))
        order.sort(key=lambda entry: entry[0])  # stable: equal positions keep file order
        temporary = target.with_name(f".{target.name}.tmp")
        # backslashreplace: an id with a lone surrogate (batch.writer) is written as \udXXX.
        with temporary.open("w", encoding="utf-8", errors="backslashreplace", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(columns), extrasaction="ignore")
            writer.writerow({name: neutralised(name) for name in columns})
            for _, offset in order:
                writer.writerow(flat_row(record_of(line_at(results, offset)) or {}))
    os.replace(temporary, target)
    return len(order)
