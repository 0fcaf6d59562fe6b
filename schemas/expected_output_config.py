"""What an `expected_output` evaluation config means, checked before any model call.

Seed 001 lets the user define the scale: an integer range, a menu of category labels, or a
range split into labelled bands. A config that contradicts itself (min above max, bands that
overlap or leave scores without a label, a category listed twice) cannot be judged honestly:
whatever the model answered, code could not tell which label a score carries. So such a
config is an input error that names the problem, and the model is never called.

It sits with the schemas because the input model (`schemas.expected_output`) runs these checks
while it validates an item; it is a leaf (stdlib only), and the rubric's result reads its labels.
"""

from __future__ import annotations

import json
from typing import Any

EVALUATION_TYPES = ("numerical", "categorical", "range_quality")


class ConfigError(ValueError):
    """An `evaluationConfig` that cannot be judged; the message says what is wrong."""


def normalise_evaluation_type(value: str) -> str:
    """`"Range-Quality "` -> `"range_quality"`; unknown names raise `ConfigError`.

    Case, spaces and hyphens are forgiven on input only; the output always carries the
    seed's exact enum value.
    """
    name = "_".join(value.strip().casefold().replace("-", " ").split())
    if name not in EVALUATION_TYPES:
        raise ConfigError(
            f"unknown evaluation type {value!r} (expected one of: {', '.join(EVALUATION_TYPES)})"
        )
    return name


def check_config(evaluation_type: str, raw: Any) -> dict[str, Any]:
    """The config's settings for `evaluation_type`, cleaned; `ConfigError` if unusable.

    Returns a dict with `min_range`, `max_range`, `available_categories`, `range_mappings`
    (list of `{"min", "max", "label"}`, in the user's order) and `criteria`; the keys that
    do not apply to the type are None. Keys of other types are ignored, not rejected, so
    one config can be reused across types.
    """
    if evaluation_type not in EVALUATION_TYPES:
        raise ConfigError(
            f"unknown evaluation type {evaluation_type!r} "
            f"(expected one of: {', '.join(EVALUATION_TYPES)})"
        )
    config = _as_object(raw)
    settings: dict[str, Any] = {
        "min_range": None,
        "max_range": None,
        "available_categories": None,
        "range_mappings": None,
        "criteria": _criteria(config.get("criteria")),
    }
    if evaluation_type == "categorical":
        settings["available_categories"] = _categories(config.get("available_categories"))
        return settings
    low, high = _range(config)
    settings["min_range"], settings["max_range"] = low, high
    if evaluation_type == "range_quality":
        settings["range_mappings"] = _mappings(config.get("range_mappings"), low, high)
    return settings


def label_for(score: int, mappings: list[dict[str, Any]]) -> str | None:
    """The label of the band holding `score` (bands are inclusive at both ends)."""
    for mapping in mappings:
        if mapping["min"] <= score <= mapping["max"]:
            return mapping["label"]
    return None


def _as_object(raw: Any) -> dict[str, Any]:
    """The config as a dict; a JSON string holding an object is accepted too."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as error:
            raise ConfigError(f"the config is not valid JSON ({error.msg})") from error
    if not isinstance(raw, dict):
        raise ConfigError(f"the config must be an object, got {_kind(raw)}")
    return raw


def _criteria(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConfigError(f"criteria must be text, got {_kind(value)}")
    return value.strip() or None


def _integer(value: Any, name: str) -> int:
    """An integer, strictly: `true`, `7.0` and `"7"` are not integers in the seed's sense."""
    if value is None:
        raise ConfigError(f"{name} is missing; it must be an integer")
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be an integer, got {json.dumps(value)}")
    return value


def _range(config: dict[str, Any]) -> tuple[int, int]:
    low = _integer(config.get("min_range"), "min_range")
    high = _integer(config.get("max_range"), "max_range")
    if low > high:
        raise ConfigError(f"min_range {low} is greater than max_range {high}")
    return low, high


def _categories(value: Any) -> list[str]:
    """A non-empty list of distinct, non-blank labels; matching is case-sensitive, so "Good"
    and "good" are two labels, but "Good" twice is a contradiction."""
    if value is None:
        raise ConfigError("available_categories is missing; it must be a non-empty list of labels")
    if not isinstance(value, list):
        raise ConfigError(f"available_categories must be a list of labels, got {_kind(value)}")
    if not value:
        raise ConfigError("available_categories is empty; give at least one label")
    seen: set[str] = set()
    for index, label in enumerate(value):
        if not isinstance(label, str) or not label.strip():
            raise ConfigError(
                f"available_categories[{index}] must be a non-empty string, got {json.dumps(label)}"
            )
        if label in seen:
            raise ConfigError(f"available_categories lists {label!r} more than once")
        seen.add(label)
    return list(value)


def _mappings(value: Any, low: int, high: int) -> list[dict[str, Any]]:
    """Bands that tile `low..high` exactly: every integer score has exactly one label."""
    if value is None:
        raise ConfigError("range_mappings is missing; it must list {min, max, label} bands")
    if not isinstance(value, list):
        raise ConfigError(f"range_mappings must be a list of {{min, max, label}} objects, got {_kind(value)}")
    if not value:
        raise ConfigError("range_mappings is empty; give at least one {min, max, label} band")
    bands = [_band(index, entry, low, high) for index, entry in enumerate(value)]
    ordered = sorted(enumerate(bands), key=lambda pair: (pair[1]["min"], pair[1]["max"]))
    expected_next = low
    previous: tuple[int, dict[str, Any]] | None = None
    for index, band in ordered:
        if previous is not None and band["min"] <= previous[1]["max"]:
            other_index, other = previous
            raise ConfigError(
                f"range_mappings overlap: [{other_index}] {_describe(other)} and "
                f"[{index}] {_describe(band)} both cover {_scores(band['min'], min(band['max'], other['max']))}"
            )
        if band["min"] > expected_next:
            raise ConfigError(
                f"range_mappings leave a gap: no label for {_scores(expected_next, band['min'] - 1)}"
            )
        expected_next = band["max"] + 1
        previous = (index, band)
    if expected_next <= high:
        raise ConfigError(f"range_mappings leave a gap: no label for {_scores(expected_next, high)}")
    return bands


def _band(index: int, entry: Any, low: int, high: int) -> dict[str, Any]:
    where = f"range_mappings[{index}]"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be an object with min, max and label, got {_kind(entry)}")
    band_min = _integer(entry.get("min"), f"{where}.min")
    band_max = _integer(entry.get("max"), f"{where}.max")
    label = entry.get("label")
    if not isinstance(label, str) or not label.strip():
        raise ConfigError(f"{where}.label must be a non-empty string, got {json.dumps(label)}")
    band = {"min": band_min, "max": band_max, "label": label}
    if band_min > band_max:
        raise ConfigError(f"{where} {_describe(band)} has min {band_min} greater than max {band_max}")
    if band_min < low or band_max > high:
        raise ConfigError(
            f"{where} {_describe(band)} falls outside min_range..max_range ({low}-{high})"
        )
    return band


def _describe(band: dict[str, Any]) -> str:
    return f"{band['label']!r} ({band['min']}-{band['max']})"


def _scores(first: int, last: int) -> str:
    return f"score {first}" if first == last else f"scores {first}-{last}"


def _kind(value: Any) -> str:
    names = {str: "a string", int: "a number", float: "a number", bool: "a boolean",
             list: "a list", dict: "an object", type(None): "null"}
    return names.get(type(value), type(value).__name__)
