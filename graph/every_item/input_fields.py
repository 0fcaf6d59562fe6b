"""Which rubric an item's keys point to, and the item read under that rubric's field names.

Why here and not in each rubric: the choice between rubrics is made over all of them, and the
reading (`schemas.field_aliases`) is the same rule for every rubric that declares other names
for its fields. Both run in the graph's first node, so every entry point gets them.

How the keys decide (docs/input-fields.md): each rubric's `signature_keys` say which rubrics an
item may be (`output_text` coverage, `documents` liverag, `context` or any RAGAS / DeepEval /
LangChain name rag...). Of those, a rubric that cannot read one of the item's known keys is out
(it would drop it); of the rest, the one that reads the fewest keys under another name wins,
since its own names are the stronger sign. A tie is an input error naming the keys and what
each candidate would do with them: `{"question", "answer", "documents", "reference"}` is
liverag's `documents` and rag's `reference`, and the two rubrics have different scales, so
judgegraph asks instead of guessing. Null values say nothing and are left out of the weighing.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ...declarations.rubric_spec import RubricSpec
from ...schemas.field_aliases import (
    META_KEYS,
    FieldMapError,
    FieldReading,
    parse_field_map,
    read_fields,
)
from .. import rubrics

PREFIX = "Input parsing error"
_SHOWN_KEYS = 12
_KEY_CHARS = 40


def own_fields(spec: RubricSpec) -> tuple[str, ...]:
    return tuple(spec.input_model.model_fields)


def accepted_keys(spec: RubricSpec) -> set[str]:
    """Every key the rubric reads: its input's fields and their other names."""
    return set(own_fields(spec)) | {name for names in spec.field_aliases.values() for name in names}


def known_keys() -> set[str]:
    """Every key some rubric reads (what `--map` may map to)."""
    return {key for spec in rubrics.RUBRICS for key in accepted_keys(spec)}


class FieldMap(dict[str, str]):
    """{field: the item's key to read it from}, checked against the fields judgegraph reads.

    Why a type of its own: a map is checked once, where it enters (`--map` in `commands/cli.py`,
    `field_map=` in `graph.api` and the evaluators, a served graph's input in `validate_input`),
    and handed on as this type; `checked_field_map` returns a `FieldMap` as it is, so the batch,
    `run_evaluation` and the graph's first node take it without parsing or checking it again."""


def checked_field_map(spec: str | Mapping[str, str] | None) -> FieldMap:
    """The user's field map, parsed and checked against the fields judgegraph reads;
    `FieldMapError` (one line) otherwise. A `FieldMap` is already checked: it comes back as it is."""
    if isinstance(spec, FieldMap):
        return spec
    mapping = parse_field_map(spec)
    known = known_keys()
    for dst in mapping:
        if dst not in known:
            fields = ", ".join(sorted({f for s in rubrics.RUBRICS for f in own_fields(s)}))
            raise FieldMapError(f"--map {dst}=...: {dst!r} is not a field judgegraph reads (fields: {fields})")
    return FieldMap(mapping)


def keys_text(keys: Iterable[Any]) -> str:
    """Keys for a message: quoted, each cut short, at most a dozen (an item's keys are user data)."""
    keys = list(keys)
    shown = []
    for key in keys[:_SHOWN_KEYS]:
        text = repr(str(key))
        shown.append(text if len(text) <= _KEY_CHARS else text[: _KEY_CHARS - 4] + "...'")
    more = f" and {len(keys) - _SHOWN_KEYS} more" if len(keys) > _SHOWN_KEYS else ""
    return (", ".join(shown) or "none") + more


def _needs(spec: RubricSpec) -> str:
    required = [name for name, info in spec.input_model.model_fields.items() if info.is_required()]
    return f"{spec.name} needs {' + '.join(required) or 'nothing'}"


def _cannot_tell(item: Mapping[str, Any]) -> str:
    found = keys_text(key for key in item if key not in META_KEYS)
    needs = "; ".join(_needs(spec) for spec in rubrics.RUBRICS)
    return (f"{PREFIX}: cannot tell the rubric from the item's keys (found: {found}); {needs}; "
            "RAGAS, DeepEval and LangChain names are read too (docs/input-fields.md); "
            "give a 'rubric' key, --rubric or --map.")


@dataclass(frozen=True)
class _Fit:
    spec: RubricSpec
    read_as: dict[str, str]
    """{other name in the item: the field this rubric would read it as}."""


def _fit(spec: RubricSpec, keys: list[str], known: set[str]) -> _Fit | None:
    """How `spec` would read `keys`, or None when it cannot read one of the known ones."""
    accepted = accepted_keys(spec)
    if any(key in known and key not in accepted for key in keys):
        return None
    own = set(own_fields(spec))
    read_as = {key: next(f for f, names in spec.field_aliases.items() if key in names)
               for key in keys if key in known and key not in own}
    return _Fit(spec, read_as)


def infer_rubric(item: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """(rubric, None) when the item's keys point to one rubric; (None, reason) otherwise."""
    pointed = [spec for spec in rubrics.RUBRICS if any(key in item for key in spec.signature_keys)]
    if not pointed:
        return None, _cannot_tell(item)
    known = known_keys()
    keys = [key for key, value in item.items() if key not in META_KEYS and value is not None]
    fits = [fit for fit in (_fit(spec, keys, known) for spec in pointed) if fit is not None]
    if not fits:
        found = keys_text(key for key in item if key not in META_KEYS)
        unread = "; ".join(
            f"{spec.name} does not read {keys_text(k for k in keys if k in known and k not in accepted_keys(spec))}"
            for spec in pointed)
        return None, (f"{PREFIX}: the item's keys ({found}) do not fit one rubric: {unread}; "
                      "give a 'rubric' key, --rubric or --map (docs/input-fields.md).")
    fewest = min(len(fit.read_as) for fit in fits)
    best = [fit for fit in fits if len(fit.read_as) == fewest]
    if len(best) == 1:
        return best[0].spec.name, None
    found = keys_text(key for key in item if key not in META_KEYS)
    readings = "; ".join(
        f"{fit.spec.name} would read " + ", ".join(f"{keys_text([k])} as {f}" for k, f in fit.read_as.items())
        for fit in best)
    names = " or ".join(repr(fit.spec.name) for fit in best)
    return None, (f"{PREFIX}: the item's keys ({found}) fit more than one rubric: {readings}; "
                  f"give a 'rubric' key ({names}) or --rubric.")


@dataclass(frozen=True)
class ItemReading:
    """The item read for each chosen rubric, and what none of them read."""

    readings: dict[str, FieldReading]
    unused: tuple[str, ...]
    """Keys holding a value that no chosen rubric reads."""
    errors: dict[str, str]
    """Reason per rubric whose fields clash (two keys for one field)."""

    def read_as(self, field_map: Mapping[str, str] | None = None) -> dict[str, str]:
        """{field: the item's key}, over every chosen rubric, for fields read under another
        name; `field_map` (the pairs the user's map applied) gives a mapped field its source."""
        field_map = field_map or {}
        merged: dict[str, str] = {}
        for reading in self.readings.values():
            for name, key in reading.sources.items():
                source = field_map.get(key, key)
                if source != name:
                    merged[name] = source
        return merged


def read_item(item: Mapping[str, Any], names: list[str], mapped: Collection[str] = ()) -> ItemReading:
    """`item` read for each rubric in `names` (`schemas.field_aliases.read_fields`); `mapped`:
    the fields the user's map set, read from their own names only."""
    readings: dict[str, FieldReading] = {}
    errors: dict[str, str] = {}
    unused: set[str] | None = None
    reserved = {name for spec in rubrics.RUBRICS for name in own_fields(spec)}
    for name in names:
        spec = rubrics.get(name)
        reading = read_fields(item, spec.field_aliases, own_fields(spec), spec.context_fields, reserved, mapped)
        if reading.clash is not None:
            field, keys = reading.clash
            label = spec.field_labels.get(field, repr(field))
            holders = f"{keys_text(keys[:1])} and {keys_text(keys[1:])} both" if len(keys) == 2 else f"{keys_text(keys)} all"
            errors[name] = (f"{PREFIX}: {holders} give the {label}; keep one, "
                            f"or choose with --map {field}={keys[-1]}.")
            continue
        readings[name] = reading
        unused = set(reading.unused) if unused is None else unused & set(reading.unused)
    ordered = tuple(key for key in item if unused and key in unused)
    return ItemReading(readings, ordered, errors)
