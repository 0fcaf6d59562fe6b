"""`@items("cases.jsonl")`: one test per item of a file, read as `judgegraph evaluate` reads it.

Why the batch's readers: a file of items that `judgegraph evaluate` judges (JSONL, a JSON
array, CSV, Parquet; RAGAS, DeepEval or LangChain field names; conversations judged turn by
turn) must give the same items to a test, field map and all. A line that cannot be read makes
the test module fail to collect, naming the file and the line: test data that cannot be read
is never silently fewer tests.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any


class ItemFileError(ValueError):
    """An item file that cannot be read, or a line of it; the message names the file and line."""


class FileItem(dict):
    """An item read from a file: the item's own dict, plus where it came from and the field
    map it is read with (`assert_judged` applies it)."""

    def __init__(self, item: Mapping[str, Any], *, source: str, field_map: Mapping[str, str] | None) -> None:
        super().__init__(item)
        self.source = source
        self.field_map = dict(field_map) if field_map else None


def read_items(path: str | Path, *, field_map: str | Mapping[str, str] | None = None,
               input_format: str | None = None) -> list[tuple[str, FileItem]]:
    """(id, item) for every item of `path`, in file order; a conversation line gives one item
    per assistant turn (`<id>/turn-<n>`).

    Args:
        path: a JSONL, JSON, CSV or Parquet file of items.
        field_map: {field: key} or `"field=key,..."`, as the CLI's `--map`.
        input_format: `jsonl`, `json`, `csv` or `parquet`; None: from the file's extension.

    Raises:
        ItemFileError: the file cannot be read, holds no item, or a line of it cannot be read.
    """
    from ..schemas.input_file import input_format as format_of
    from ..batch.reader import DEFAULT_MAX_LINE_BYTES, InputFileError
    from ..batch.triage import file_entries
    from ..graph.every_item.input_fields import checked_field_map

    path = Path(path)
    mapping = checked_field_map(field_map)
    found: list[tuple[str, FileItem]] = []
    try:
        for entry in file_entries(path, format_of(path, input_format), DEFAULT_MAX_LINE_BYTES, mapping):
            if entry.error is not None or entry.item is None:
                raise ItemFileError(f"{path}: {entry.error or f'line {entry.line} holds no item'}")
            item_id = str(entry.id)
            found.append((item_id, FileItem(entry.item, source=f"{path}:{entry.line}", field_map=mapping)))
    except InputFileError as error:
        raise ItemFileError(str(error)) from error
    if not found:
        raise ItemFileError(f"{path} holds no item")
    return found


def items(path: str | Path, *, argname: str = "item", field_map: str | Mapping[str, str] | None = None,
          input_format: str | None = None) -> Any:
    """`pytest.mark.parametrize` over the items of a file: one test per item, its id the test's.

        @judgegraph.testing.items("cases.jsonl")
        def test_answers(item):
            assert_judged(item, faithfulness=0.8)

    Args:
        path: the item file; a relative path is read from the folder of the test module.
        argname: the test's argument that receives each item.
        field_map: as `read_items`; `assert_judged` judges each item with it.
        input_format: as `read_items`.
    """
    import pytest

    from ..text.visible import visible

    file = Path(path)
    if not file.is_absolute():
        caller = sys._getframe(1).f_globals.get("__file__")
        file = (Path(caller).parent if caller else Path.cwd()) / file
    params = [pytest.param(item, id=visible(item_id))
              for item_id, item in read_items(file, field_map=field_map, input_format=input_format)]
    return pytest.mark.parametrize(argname, params)
