"""The parsed command-line flags a batch run needs, checked before any work starts.

Why its own module: the flags arrive as an `argparse.Namespace` (from the CLI, or rebuilt in a
Ray actor); everything the run reads from them goes through `BatchOptions`, with the defaults
a caller building `args` by hand would expect, and every flag problem is one `BatchUsageError`
line (exit 2) raised before the results file is touched.
"""

from __future__ import annotations

import argparse
from contextlib import closing
from dataclasses import dataclass, field
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..graph.every_item.input_fields import checked_field_map
from ..schemas.field_aliases import FieldMapError
from ..schemas.input_file import InputFormat, input_format, wide_text_problem
from ..schemas.output_paths import PathClashError, check_distinct, check_replaced, same_file
from .input_formats import check_reader, read_input
from .reader import DEFAULT_MAX_LINE_BYTES, is_blank, open_input


class BatchUsageError(Exception):
    """A problem the user can fix; one line, exit 2."""


@dataclass
class BatchOptions:
    """The batch-relevant flags, with defaults for callers that build `args` by hand."""

    input: Path
    out: Path | None
    rubric: str | None = None
    fmt: str = "jsonl"
    dry_run: bool = False
    cache: Path | None = None
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    details: bool = False
    html: Path | None = None
    input_format: InputFormat | None = None
    """`--input-format`, else from the extension (`schemas.input_file`)."""
    field_map: dict[str, str] = field(default_factory=dict)
    """`--map`, parsed: {field: the items' key to read it from}."""
    retry_failed: bool = False
    force_resume: bool = False
    input_name: str | None = None
    """The input as the user named it (`-`, `items.jsonl.gz`) when `input` is a copy of it
    (`schemas.input_file`), for messages."""
    calibration: Path | None = None
    """`--calibration`: a file the run reads, so no output may be written over it."""
    items: Sequence[Any] | None = None
    """Items handed over in memory (`evaluate_batch`), read in place of `input`
    (`batch.item_values`): each is the line it would be in a JSONL file of them."""

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> "BatchOptions":
        max_bytes = getattr(args, "max_line_bytes", None) or DEFAULT_MAX_LINE_BYTES
        if max_bytes < 1:
            raise BatchUsageError("--max-line-bytes must be at least 1")
        try:
            field_map = checked_field_map(getattr(args, "map", None))
        except FieldMapError as error:
            raise BatchUsageError(str(error)) from error
        path = Path(args.input)
        return cls(
            input=path, out=getattr(args, "out", None), rubric=getattr(args, "rubric", None),
            fmt=getattr(args, "format", None) or "jsonl", dry_run=bool(getattr(args, "dry_run", False)),
            cache=getattr(args, "cache", None), max_line_bytes=max_bytes,
            details=bool(getattr(args, "details", False)), html=getattr(args, "html", None),
            input_format=input_format(path, getattr(args, "input_format", None)), field_map=field_map,
            retry_failed=bool(getattr(args, "retry_failed", False)),
            force_resume=bool(getattr(args, "force_resume", False)),
            input_name=getattr(args, "input_name", None),
            calibration=getattr(args, "calibration", None),
        )


def checked_output(options: BatchOptions) -> Path:
    """`--out`, once it is given, and every other file the run writes (the `--format csv` table,
    `--html`, `--cache`) distinct from the files it reads (the input, `--calibration`) and from
    each other, and `--html` over no file but a page judgegraph wrote (`schemas.output_paths`);
    and the input readable."""
    if options.out is None:
        raise BatchUsageError("a batch needs --out FILE (results JSONL; re-running resumes it)")
    from .csv_export import csv_path_for

    table = csv_path_for(options.out) if options.fmt == "csv" else None
    if table is not None and same_file(table, options.out):
        raise BatchUsageError(f"--out {options.out} with --format csv: the table would be written over the "
                              f"results; give --out a .jsonl name (the table is written beside it as .csv)")
    try:
        check_distinct([("--out", options.out), ("the --format csv table", table), ("--html", options.html),
                        ("--cache", options.cache)],
                       [("the input", options.input), ("--calibration", options.calibration),
                        ("the input", Path(options.input_name) if options.input_name not in (None, "-") else None)])
        check_replaced([("--html", options.html)])
        check_replaced([("the --format csv table", table)], "table")
    except PathClashError as error:
        raise BatchUsageError(str(error)) from error
    check_input(options)
    return options.out


def check_input(options: BatchOptions) -> None:
    """One line (exit 2) before any work when the input cannot be read (UTF-16 text too), holds
    nothing (no byte, or no item: an empty array, a header without rows), or needs a reader
    that is not installed (Parquet without pyarrow). Its first item is read, so a file-wide
    problem (a CSV header that repeats a column) stops the run before `--out` is created."""
    open_input(options.input).close()
    name = options.input_name or options.input
    if is_blank(options.input):
        raise BatchUsageError(f"{name} is empty: no item to judge")
    check_reader(options.input, options.input_format)
    if options.input_format != "parquet":
        with open_input(options.input) as handle:
            wide = wide_text_problem(handle.read(4))
        if wide:
            raise BatchUsageError(f"cannot read {name}: {wide}")
    with closing(read_input(options.input, options.input_format, options.max_line_bytes)) as entries:
        if next(entries, None) is None:  # `[]`, a CSV header alone, a Parquet file of no rows
            raise BatchUsageError(f"{name} holds no item: no item to judge")
