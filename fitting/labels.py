"""Reading a labels file for `judgegraph calibrate`: items to judge, each with a human label.

Format (docs/calibration.md): JSON Lines, one rag item per line (`question`, `context`,
`answer`, optional `reference` / `evaluation_goal`), plus `human`, the label, and optionally
`id` and `group`. `human` is a number or a boolean (higher = better: faithful, relevant), or an object with
one of the keys below (the bench-data samples' own shapes are read as they are). The kind of
label is inferred from the values: only 0 and 1 -> binary; whole numbers with more than two
levels (1..5 ratings) -> ordinal; anything else -> graded.

The file may be one `judgegraph label` wrote (`estimates.labels_file`: a design line, skipped
items, undone labels, `human` objects with a value per metric); calibrate reads the labels
that stand. A line that is not a JSON object, or has no usable label, stops the run with its line number:
a fit on silently dropped rows would describe other data than the user's. Lines are JSON Lines
as `schemas.jsonl` reads them (split on "\\n" only, strict UTF-8), and a label that is NaN,
Infinity, beyond +-1000, or a fraction outside 0..1 is an error on its line, not a number to fit.

A file written by `judgegraph label` (docs/labelling.md) is read as it means: its design line is
not an item, skips are not labels, an undo cancels that id's last label, and a `human` object
keyed by metric (`{"faithfulness": 1, "context_relevance": 0}`) gives the fitted metric's value
(`labelling.labels_log.StandingEntries`, the one reading of those lines).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..estimates.labels_file import LabelLine, LabelsFileError, human_for, read_labels_file

LabelKind = Literal["binary", "graded", "ordinal"]
LABEL_KEYS = ("label", "faithful", "binary_faithful", "relevant", "score_0_1", "score")
"""Keys of a `human` object read as "higher = better", in this order."""
INVERTED_KEYS = ("hallucination", "hallucinated")
"""Keys read as "yes / true = bad" (HaluEval's `hallucination: "yes"`)."""
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


MAX_LABEL = 1000
"""The largest label magnitude read: rating scales run 1..5 or 0..100, never to 1e308 (which
turns every step of the fit into infinities)."""


class LabelValueError(ValueError):
    """A `human` value that is a number but no label (NaN, Infinity, out of range)."""


def _truth(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, float) and not math.isfinite(value):
        raise LabelValueError(f"{'NaN' if math.isnan(value) else 'Infinity'} is not a label")
    if isinstance(value, (int, float)):
        if not -MAX_LABEL <= value <= MAX_LABEL:  # compared before float(): 10**400 has no float
            shown = str(value) if len(str(value)) <= 24 else f"a number of {len(str(value)):,} digits"
            raise LabelValueError(f"{shown} is outside the labels' range -{MAX_LABEL}..{MAX_LABEL}")
        return float(value)
    if isinstance(value, str) and value.strip().casefold() in ("yes", "true", "no", "false"):
        return float(value.strip().casefold() in ("yes", "true"))
    return None


def label_value(human: Any, metric: str | None = None) -> float | None:
    """The label as a number, higher = better; None when `human` holds none. An object keyed by
    metric names (`judgegraph label`'s several metrics) gives `metric`'s value."""
    direct = _truth(human)
    if direct is not None or not isinstance(human, dict):
        return direct
    if metric is not None and metric in human:
        return _truth(human[metric])
    for key in LABEL_KEYS:
        if key in human and (value := _truth(human[key])) is not None:
            return value
    for key in INVERTED_KEYS:
        if key in human and (value := _truth(human[key])) is not None and value in (0.0, 1.0):
            return 1.0 - value
    return None


def label_kind(values: list[float]) -> LabelKind:
    distinct = set(values)
    if distinct <= {0.0, 1.0}:
        return "binary"
    if all(v == int(v) for v in distinct) and len(distinct) > 2:
        return "ordinal"
    return "graded"


def _design_of(path: Path):
    """The file's design line, to name the metrics it labels when a line has none for ours."""
    try:
        return read_labels_file(path).design
    except LabelsFileError:
        return None


def read_labels(path: Path, metric: str) -> Labels:
    """The labelled items of `path`, each set to judge only `metric` (raises `LabelsError`).

    The file is read as `judgegraph label` writes it (`estimates.labels_file`): a design line
    first, skipped items and undone labels left out, a per-metric `human` object read for
    `metric`."""

    design = _design_of(path)
    other_metrics = design is not None and bool(design.metrics) and metric not in design.metrics

    def problem(line: LabelLine) -> str | None:
        if other_metrics and not (isinstance(line.human, dict) and metric in line.human):
            return f"its labels are for {', '.join(design.metrics)}, not {metric} (its design line)"
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
