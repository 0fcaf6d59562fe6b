"""Items handed over in memory (a list of dicts, a DataFrame's rows) as the batch's entries.

Why its own module: `evaluate_batch` must judge an in-memory item exactly as the CLI's batch
judges the same item written to a JSONL file, one item per line. So each item is first turned
into the JSON value that file would hold, then read by the same function that reads a parsed
line (`reader.entry_from_value`: ids, the `id` checks, NaN and surrogates, nesting); its
position is its `line` (1-based) and `line-<n>` its id when it has none.

What a JSON file cannot hold is read as the JSON it stands for, never as an error:
- a missing value at the top of an item (None, a float NaN, pandas' NA and NaT, numpy's NaT) is
  an absent field, as an empty CSV cell is (a DataFrame marks an empty cell with NaN or None);
- numpy's scalars are Python's numbers and booleans, a numpy array is a list, a tuple is a list,
  a date or a timestamp is its ISO text, a Decimal is its text (as a Parquet cell is read);
- deeper in an item, a missing value is JSON's null.
Anything else (a LangChain `Document` in a context) is passed on as it is, as `evaluate` takes it.
numpy and pandas are never imported here: their values are recognised by their type's module.
"""

from __future__ import annotations

import datetime
import decimal
import json
import math
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .reader import PREFIX, Entry, entry_from_value

_ABSENT = object()
"""The marker of a missing value (None, NaN, NA, NaT) while a value is converted."""


def _module(value: Any) -> str:
    return type(value).__module__ or ""


def _is_missing(value: Any) -> bool:
    """None, a float NaN (Python's or numpy's), pandas' NA / NaT, numpy's NaT."""
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    module = _module(value)
    if module.startswith("pandas"):
        return type(value).__name__ in ("NAType", "NaTType")
    if module == "numpy":
        kind = getattr(getattr(value, "dtype", None), "kind", "")
        if kind in "fc" and kind:
            return bool(value != value)  # noqa: PLR0124 - NaN is the one value unequal to itself
        if kind in "mM" and kind:
            return str(value) == "NaT"
    return False


def json_value(value: Any) -> Any:
    """`value` as the JSON value it stands for; missing values nested in it become None."""
    converted = _converted(value)
    return None if converted is _ABSENT else converted


def _converted(value: Any) -> Any:
    if value is None or type(value) in (str, bool, int):
        return value
    if isinstance(value, float):  # numpy's float64 is a float: it is written as Python's
        return _ABSENT if math.isnan(value) else float(value)
    if isinstance(value, str):  # numpy's str_ is a str
        return str(value)
    if isinstance(value, Mapping):
        return {str(key): json_value(sub) for key, sub in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(sub) for sub in value]
    module = _module(value)
    if module == "numpy" or module.startswith("pandas"):
        return _numpy_or_pandas(value)
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    return value


def _numpy_or_pandas(value: Any) -> Any:
    """A numpy or pandas value: scalars as Python's, arrays and Series as lists, timestamps
    as ISO text; missing values as `_ABSENT`."""
    if _is_missing(value):
        return _ABSENT
    if hasattr(value, "isoformat"):  # pandas' Timestamp (a datetime), numpy's datetime64 below
        return value.isoformat()
    if hasattr(value, "tolist"):  # numpy scalars and arrays, pandas' Series and arrays
        kind = getattr(getattr(value, "dtype", None), "kind", "")
        if kind in ("m", "M"):
            return str(value)
        plain = value.tolist()
        return [json_value(sub) for sub in plain] if isinstance(plain, list) else _converted(plain)
    return value


def item_value(item: Any) -> Any:
    """One in-memory item as the JSON value of its line: a mapping without its missing values
    (an absent field, as an empty CSV cell), anything else converted as it stands."""
    if isinstance(item, Mapping):
        kept = {}
        for key, sub in item.items():
            if _is_missing(sub):
                continue
            kept[str(key)] = json_value(sub)
        return kept
    return json_value(item)


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass"))


def entries_from_items(items: Iterable[Any], max_item_bytes: int) -> Iterator[Entry]:
    """Each item as the `Entry` its line would be in a JSONL file of these items, in order."""
    for number, item in enumerate(items, start=1):
        value = item_value(item)
        size = _size(value)
        if size > max_item_bytes:
            yield Entry(number, f"line-{number}", error=(
                f"{PREFIX}: line {number} is {size} bytes, over the limit of {max_item_bytes} (max_item_bytes)."))
            continue
        yield entry_from_value(number, value)
