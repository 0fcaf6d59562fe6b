"""Hostile results and labels files, by kind of line, for the fuzz suite and the soak: what a
hand-edited, merged or forged file can hold that `report`, `compare` and `calibrate` read back.

Each kind says what the reader must make of its line:
- `RECORD`: a record, read as it is (raw U+2028 / U+0085 inside a string, control and bidi
  characters, an id seen before);
- `NOT_A_RECORD`: left out and counted (not UTF-8, an encoded surrogate, not JSON);
- `ERROR`: the whole command stops with exit 2 and one line naming the file and this line
  (NaN, Infinity, a score out of its scale, a string or a bool where a score goes, usage or
  details of the wrong type);
- `BLANK`: nothing.

`results_line(kind, number, base)` and `labels_line(kind, number)` return the line's bytes
(without the newline).
"""

from __future__ import annotations

import json
from typing import Any

RECORD, NOT_A_RECORD, ERROR, BLANK = "record", "not a record", "error", "blank"

HOSTILE_TEXT = "\x1b]0;pwned\x07\x1b[2J\rgpj\u202eexe.jpg"


def _set(record: dict, path: tuple[Any, ...], value: Any) -> dict:
    data = json.loads(json.dumps(record))
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


def _dumps(value: Any, ascii_only: bool = True) -> bytes:
    return json.dumps(value, ensure_ascii=ascii_only).encode("utf-8")  # NaN / Infinity written bare


RESULTS_KINDS: dict[str, str] = {
    "valid": RECORD, "raw_line_separators": RECORD, "control_and_bidi": RECORD, "duplicate_id": RECORD,
    "nan_score": ERROR, "infinity_score": ERROR, "minus_infinity_score": ERROR, "huge_score": ERROR,
    "negative_score": ERROR, "bigint_score": ERROR, "string_score": ERROR, "bool_score": ERROR,
    "nan_seconds": ERROR, "usage_as_list": ERROR, "verdicts_as_object": ERROR, "calls_as_string": ERROR,
    "invalid_utf8": NOT_A_RECORD, "encoded_surrogate": NOT_A_RECORD, "not_json": NOT_A_RECORD, "blank": BLANK,
}


def results_line(kind: str, number: int, base: dict) -> bytes:
    """One line of a results file; `base` is a valid rag record (with a faithfulness score)."""
    record = _set(base, ("id",), f"r{number}")
    if kind == "valid":
        return _dumps(record)
    if kind == "raw_line_separators":
        return _dumps(_set(record, ("result", "faithfulness_explanation"), "one\u2028two\u2029three\u0085four"),
                      ascii_only=False)
    if kind == "control_and_bidi":
        return _dumps(_set(_set(record, ("id",), f"r{number}{HOSTILE_TEXT}"),
                           ("result", "faithfulness_explanation"), HOSTILE_TEXT), ascii_only=False)
    if kind == "duplicate_id":
        return _dumps(_set(record, ("id",), "r-duplicate"))
    if kind == "blank":
        return b"   "
    if kind == "not_json":
        return b'{"id": "r' + str(number).encode() + b'", "result": {"faithfulness": 0.5'
    if kind == "invalid_utf8":
        return _dumps(record).replace(b'"faithfulness explanation"', b'"bad \xff byte"')
    if kind == "encoded_surrogate":
        return _dumps(record).replace(b'"faithfulness explanation"', b'"bad \xed\xa0\x80 surrogate"')
    hostile = {
        "nan_score": (("result", "faithfulness"), float("nan")),
        "infinity_score": (("result", "faithfulness"), float("inf")),
        "minus_infinity_score": (("result", "faithfulness"), float("-inf")),
        "huge_score": (("result", "faithfulness"), 1e308),
        "negative_score": (("result", "faithfulness"), -5),
        "bigint_score": (("result", "faithfulness"), 10**400),
        "string_score": (("result", "faithfulness"), "0.5"),
        "bool_score": (("result", "faithfulness"), True),
        "nan_seconds": (("usage", "seconds"), float("nan")),
        "usage_as_list": (("usage",), [1, 2]),
        "verdicts_as_object": (("details",), {"verdicts": {"0": "supported"}}),
        "calls_as_string": (("usage", "calls"), "3"),
    }
    path, value = hostile[kind]
    return _dumps(_set(record, path, value))


LABELS_KINDS: dict[str, str] = {
    "valid": RECORD, "raw_u2028": RECORD, "raw_u0085": RECORD, "control_and_bidi": RECORD, "yes_label": RECORD,
    "nan_label": ERROR, "infinity_label": ERROR, "bigint_label": ERROR, "huge_label": ERROR,
    "fraction_out_of_scale": ERROR, "junk_label": ERROR, "invalid_utf8": ERROR, "not_json": ERROR,
    "duplicate_id": ERROR, "blank": BLANK,
}
"""A labels file has no "left out": every line is a label the fit needs, so a line that is not
one stops the run (docs/calibration.md)."""


def labels_line(kind: str, number: int) -> bytes:
    row: dict[str, Any] = {"id": f"l{number}", "question": "Capital of France?", "context": "Paris is the capital.",
                           "answer": "Paris.", "human": number % 2}
    if kind == "valid":
        return _dumps(row)
    if kind == "raw_u2028":
        return _dumps(dict(row, answer="Paris.\u2028It is big."), ascii_only=False)
    if kind == "raw_u0085":
        return _dumps(dict(row, answer="Paris.\u0085It is big."), ascii_only=False)
    if kind == "control_and_bidi":
        return _dumps(dict(row, answer=f"Paris.{HOSTILE_TEXT}"), ascii_only=False)
    if kind == "yes_label":
        return _dumps(dict(row, human="yes"))
    if kind == "blank":
        return b""
    if kind == "not_json":
        return b"human: 1"
    if kind == "invalid_utf8":
        return _dumps(row).replace(b"Paris.", b"Par\xffis.")
    if kind == "duplicate_id":
        return _dumps(dict(row, id="l-duplicate"))
    values = {"nan_label": float("nan"), "infinity_label": float("inf"), "bigint_label": 10**400,
              "huge_label": 1e308, "fraction_out_of_scale": 2.5, "junk_label": "maybe"}
    return _dumps(dict(row, human=values[kind]))
