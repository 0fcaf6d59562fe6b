"""Scores paired with human labels, read from the per-item outputs of runs already made.

Why: the reliability diagrams (`benchmarks.reliability`) are drawn from runs that took hours
with the local judge; they must not ask the judge again, and they must read every per-item shape
the project writes. Three shapes, told apart line by line:

- a batch record (`judgegraph evaluate --details`, `calibrate`, `benchmarks.profile_report`):
  `id` and `result`, which holds `<metric>`. With its `details`, a fitted metric
  (faithfulness, context or answer relevance) can also be recomputed under any calibration
  profile (`fitting.fitted_metrics`): the same judge replies read under the default and a
  fitted profile;
- an item outcome of `benchmarks.judging.run_method` (`benchmarks.multilingual_faithfulness`
  ...): `id`, `score`, `failed`;
- a record of `benchmarks.multilingual_similarity`: `graph` (the graph's score) and `human`
  (people's 0-5 similarity), no id.

The label is the line's own `human` when it has one, else the labels file's (read with
`fitting.labels.read_labels`, matched by id; a line without an id is `line-<n>` there as
here). Labels are rescaled to 0..1 (higher = better) so that they stand on the scores' scale:
binary labels are 0 or 1 already; graded ones are taken as they are when they lie in 0..1, and
otherwise need their scale (`LO-HI`, e.g. 0-5 for STS): a scale guessed from the values seen
would move with the sample.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from judgegraph.batch.writer import iter_records
from judgegraph.calibration.profile import Profile
from judgegraph.fitting.fitted_metrics import FITTED_METRICS
from judgegraph.fitting.labels import label_kind, read_labels
from judgegraph.fitting.recompute import labelled_recordings
from judgegraph.schemas.labels_file import label_value

SCORE_KEYS = ("score", "graph")
"""Where a line that is not a batch record keeps its score: `run_method`'s outcome, then
`multilingual_similarity`'s record."""


class InputError(ValueError):
    """An input that cannot be read as scores and labels; one line, saying what to fix."""


@dataclass(frozen=True)
class Source:
    """One input: `METRIC:NAME:ITEMS[:LABELS[:LO-HI]]` on the command line."""

    metric: str
    name: str
    items: Path
    labels: Path | None = None
    scale: tuple[float, float] | None = None

    @classmethod
    def parse(cls, text: str) -> Source:
        parts = text.split(":")
        if len(parts) < 3 or len(parts) > 5 or not all(parts[:3]):
            raise InputError(f"input {text!r}: expected METRIC:NAME:ITEMS[:LABELS[:LO-HI]]")
        metric, name, items, *rest = parts
        labels = Path(rest[0]) if rest and rest[0] else None
        scale = None
        if len(rest) == 2:
            low, _, high = rest[1].partition("-")
            try:
                scale = (float(low), float(high))
            except ValueError:
                raise InputError(f"input {text!r}: the label scale is LO-HI, e.g. 0-5") from None
            if scale[1] <= scale[0]:
                raise InputError(f"input {text!r}: the label scale {rest[1]} is empty")
        return cls(metric, name, Path(items), labels, scale)

    def recomputable(self) -> bool:
        """A fitted metric in batch records with details: its score can be recomputed under a profile."""
        if self.metric not in FITTED_METRICS or self.labels is None:
            return False
        first = next((record for _, record in iter_records(self.items) if record is not None), None)
        return isinstance(first, dict) and isinstance(first.get("details"), dict)


@dataclass(frozen=True)
class LabelledScores:
    """One set's judged items: scores and labels (0..1) of the items that have both."""

    metric: str
    name: str
    kind: Literal["binary", "graded"]
    scores: list[float]
    labels: list[float]
    failed: int
    """Labelled items the judge gave no score (a failure): left out of the figures, counted."""
    unlabelled: int
    """Items of the per-item file with no label in the labels file."""
    scale: tuple[float, float] | None = None

    @property
    def n(self) -> int:
        return len(self.scores)


def read_scores(source: Source, profile: Profile | None = None) -> LabelledScores:
    """The set `source` names; with `profile`, its fitted metric recomputed under it (raises
    `InputError`, or `LabelsError` / `ProfileError` from the files it reads)."""
    if not source.items.is_file():
        raise InputError(f"{source.name}: no per-item file {source.items}")
    if profile is not None:
        pairs, unlabelled = _recomputed(source, profile), 0
    else:
        pairs, unlabelled = _recorded(source)
    if not pairs:
        raise InputError(f"{source.name}: no item of {source.items.name} has both a score slot and a label")
    labels = _rescaled([label for _, label in pairs], source)
    judged = [(score, label) for (score, _), label in zip(pairs, labels) if score is not None]
    if not judged:
        raise InputError(f"{source.name}: the judge scored none of its {len(pairs)} labelled items")
    kind = "binary" if label_kind(labels) == "binary" else "graded"
    return LabelledScores(source.metric, source.name, kind, [s for s, _ in judged], [y for _, y in judged],
                          failed=len(pairs) - len(judged), unlabelled=unlabelled, scale=source.scale)


def _recomputed(source: Source, profile: Profile) -> list[tuple[float | None, float]]:
    metric = FITTED_METRICS[source.metric]
    labels = read_labels(source.labels, source.metric)
    parameters = profile.section(source.metric).parameters
    return [(metric.fitting.score(recorded, parameters), label)
            for recorded, label in labelled_recordings(source.items, labels, metric.read)]


def _recorded(source: Source) -> tuple[list[tuple[float | None, float]], int]:
    """(score or None, raw label) per labelled line, and the count of lines with no label."""
    wanted = ({entry.id: entry.label for entry in read_labels(source.labels, source.metric).items}
              if source.labels is not None else {})
    pairs, unlabelled = [], 0
    for number, record in iter_records(source.items):
        where = f"{source.items.name} line {number}"
        if record is None:
            raise InputError(f"{where}: not a JSON object")
        score = _score(record, source.metric, where)
        item_id = str(record.get("id", f"line-{number}"))
        label = label_value(record["human"]) if "human" in record else wanted.get(item_id)
        if label is None and source.labels is None:
            raise InputError(f"{where}: no usable `human` label; give a labels file")
        if label is None:
            unlabelled += 1
            continue
        pairs.append((score, label))
    return pairs, unlabelled


def _score(record: dict, metric: str, where: str) -> float | None:
    """The line's score, None where the judge failed on the item."""
    result = record.get("result")
    if isinstance(result, dict):
        value = result.get(metric)
    elif key := next((k for k in SCORE_KEYS if k in record), None):
        value = None if record.get("failed") else record[key]
    else:
        raise InputError(f"{where}: neither a batch record (`result`) nor a score ({', '.join(SCORE_KEYS)})")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _rescaled(labels: list[float], source: Source) -> list[float]:
    low, high = source.scale or (0.0, 1.0)
    outside = [v for v in labels if not low <= v <= high]
    if outside:
        hint = f"outside the scale {low:g}-{high:g}" if source.scale else "outside 0..1: give their scale, e.g. :0-5"
        raise InputError(f"{source.name}: labels from {min(labels):g} to {max(labels):g}, {hint}")
    return [(v - low) / (high - low) for v in labels]
