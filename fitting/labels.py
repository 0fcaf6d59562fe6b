"""Reading a labels file for `judgegraph calibrate`: items to judge, each with a human label.

Format (docs/calibration.md): JSON Lines, one rag item per line (`question`, `context`,
`answer`, optional `reference` / `evaluation_goal`), plus `human`, the label, and optionally
`id` and `group`. `human` is a number or a boolean (higher = better: faithful, relevant), or an
object with one of the keys `LABEL_KEYS` / `INVERTED_KEYS` (the bench-data samples' own shapes
are read as they are). The kind of label is inferred from the values: only 0 and 1 -> binary;
whole numbers with more than two levels (1..5 ratings) -> ordinal; anything else -> graded.

The file is read by `schemas.labels_file`, the one reader of every command, and the values by
its rules (`label_value`): a file `judgegraph label` wrote is read as it means (its design line
is not an item, skips are not labels, an undo cancels that id's last label, a `human` object
keyed by metric gives the fitted metric's value). A line that is not a JSON object, or has no
usable label, stops the run with its line number: a fit on silently dropped rows would describe
other data than the user's. Lines are JSON Lines as `schemas.jsonl` reads them (split on "\\n"
only, strict UTF-8), and a label that is NaN, Infinity, beyond +-1000, or a fraction outside
0..1 is an error on its line, not a number to fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..schemas.labels_file import (
    INVERTED_KEYS,
    LABEL_KEYS,
    Design,
    LabelLine,
    LabelsFileError,
    LabelValueError,
    human_for,
    label_value,
    read_labels_file,
)

LabelKind = Literal["binary", "graded", "ordinal"]
NOT_ITEM_KEYS = frozenset({"human", "id", "group", "source", "meta", "note", "position", "stratum"})


class LabelsError(ValueError):
    """A labels file that cannot be used; one line, with the line number."""


@dataclass(frozen=True)
class LabelledItem:
    id: str
    item: dict
    label: float
    group: str | None = None
    """Items of one group (the passages retrieved for one query) stay in one cross-validation
    fold and are compared pairwise (`fitting.cross_validation`)."""


@dataclass(frozen=True)
class Labels:
    items: list[LabelledItem]
    kind: LabelKind
    sha256: str
    """Of the file's bytes: the profile records exactly what it was fitted on."""

    @property
    def values(self) -> list[float]:
        return [entry.label for entry in self.items]

    @property
    def groups(self) -> dict[str, str] | None:
        """Each item id's group (an item without one is a group of its own); None when no item
        names a group."""
        if all(entry.group is None for entry in self.items):
            return None
        return {entry.id: entry.group if entry.group is not None else f"item:{entry.id}" for entry in self.items}


def label_kind(values: list[float]) -> LabelKind:
    distinct = set(values)
    if distinct <= {0.0, 1.0}:
        return "binary"
    if all(v == int(v) for v in distinct) and len(distinct) > 2:
        return "ordinal"
    return "graded"


def read_labels(path: Path, metric: str) -> Labels:
    """The labelled items of `path`, each set to judge only `metric` (raises `LabelsError`).

    The file is read as `judgegraph label` writes it (`schemas.labels_file`): a design line
    first, skipped items and undone labels left out, a per-metric `human` object read for
    `metric`."""

    def problem(line: LabelLine, design: Design | None) -> str | None:
        other_metrics = design is not None and bool(design.metrics) and metric not in design.metrics
        if other_metrics and not (isinstance(line.human, dict) and metric in line.human):
            return f"its labels are for {', '.join(design.metrics)}, not {metric} (its design line)"  # type: ignore[union-attr]
        try:
            value = label_value(human_for(line, metric))
        except LabelValueError as error:
            return f"'human': {error}"
        if value is None:
            return (f"no usable label in `human` (a number, a boolean, or an object with one of "
                    f"{', '.join(LABEL_KEYS + INVERTED_KEYS)}, or with {metric!r})")
        return None

    try:
        labels_file = read_labels_file(path, check=problem)
    except LabelsFileError as error:
        raise LabelsError(str(error)) from None
    entries: list[LabelledItem] = []
    lines: list[int] = []
    for line in labels_file.labels:
        value = label_value(human_for(line, metric))
        assert value is not None  # `problem` refused the line otherwise
        item = {k: v for k, v in line.item.items() if k not in NOT_ITEM_KEYS}
        item.setdefault("rubric", "rag")
        item["metrics"] = [metric]
        group = line.row.get("group")
        entries.append(LabelledItem(line.id, item, value, None if group is None else str(group)))
        lines.append(line.line)
    if len(entries) < 2:
        raise LabelsError(f"{path.name}: {len(entries)} labelled item(s); a fit needs many more (25 or more)")
    values = [entry.label for entry in entries]
    kind = label_kind(values)
    if kind == "graded":  # fractions are shares of "good": docs/calibration.md reads them on 0..1
        outside = next((i for i, v in enumerate(values) if not 0.0 <= v <= 1.0), None)
        if outside is not None:
            raise LabelsError(f"{path.name} line {lines[outside]}: 'human': {values[outside]:g} is outside 0..1; "
                              "labels with fractions are graded on 0..1 (whole-number ratings are read as "
                              "ordinal)")
    return Labels(entries, kind, labels_file.sha256)
