"""`compare --labels-a LA --labels-b LB`: the paired difference of each metric's mean,
corrected by people's labels (docs/compare.md, "With labels").

Why two files: a label is a person's judgement of one answer, and BEFORE and AFTER hold two
answers to each question. LA's ids are items of BEFORE (labels of its answers), LB's of
AFTER. When both files label the same items (the workflow: draw the sample once, label each
run's answer to it), the difference is corrected item by item (`estimates.difference`,
paired); when they share fewer than `MIN_LABELS` items, each run is corrected on its own and
the interval says it is unpaired (wider). Labels files and their values are read by
`schemas.labels_file`, as `estimate` reads them, so a file `estimate` refuses is refused here
too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..estimates.difference import (
    DifferenceEstimate,
    difference_of,
    difference_scale,
    paired_difference,
    unpaired_difference,
)
from ..estimates.estimate import MIN_LABELS, EstimateError, active_draws
from ..estimates.ppi import MeanEstimate, active_mean, ppi_mean
from ..schemas.labels_file import (
    LabelsFile,
    LabelsFileError,
    OtherResultsError,
    provenance_notes,
    ids_text,
    labelled_metrics,
    metric_values,
    read_labels_file,
    unknown_ids,
)
from .compare_runs import Comparison, MetricComparison
from .run_file import ComparisonError


@dataclass
class CorrectedDifference:
    """One metric's label-corrected after - before over the items both runs judged."""

    metric: str
    n_items: int
    n_labels_before: int
    n_labels_after: int
    n_labels_paired: int
    """Items labelled in both runs (the paired estimate's labels; 0 when unpaired)."""
    judge_difference: float
    estimate: DifferenceEstimate
    notes: list[str] = field(default_factory=list)

    @property
    def paired(self) -> bool:
        return self.estimate.paired

    @property
    def interval(self) -> tuple[float, float]:
        return self.estimate.corrected.low, self.estimate.corrected.high

    def as_json(self) -> dict[str, Any]:
        return {
            "metric": self.metric, "paired": self.paired, "n_items": self.n_items,
            "n_labels_before": self.n_labels_before, "n_labels_after": self.n_labels_after,
            "n_labels_paired": self.n_labels_paired, "judge_difference": round(self.judge_difference, 6),
            "labels_only": self.estimate.labels_only.as_json(), "corrected": self.estimate.corrected.as_json(),
            "lambda": None if self.estimate.corrected.lam is None else round(self.estimate.corrected.lam, 6),
            "notes": list(self.notes),
        }


def _read(path: Path, flag: str) -> LabelsFile:
    try:
        labels = read_labels_file(Path(path))
    except LabelsFileError as error:
        raise ComparisonError(f"{flag}: {error}") from None
    if labels.design is not None and labels.design.kind == "stratified":
        raise ComparisonError(f"{flag}: {labels.name} was drawn with a stratified design, which compare does not "
                              f"correct for: estimate each run with `judgegraph estimate`")
    if not labels.labels:
        raise ComparisonError(f"{flag}: {labels.name} holds no label")
    return labels


def _chosen(files: list[LabelsFile], comparison: Comparison) -> list[MetricComparison]:
    """The compared score/ordinal metrics the labels are for: those their per-metric objects (or
    designs) name; bare labels apply to the one metric compared (`--metrics M`)."""
    named = list(dict.fromkeys(m for f in files for m in labelled_metrics(f)))
    named = named or list(dict.fromkeys(m for f in files if f.design for m in f.design.metrics))
    numeric = [m for m in comparison.metrics if m.pairs.kind != "label"]
    if not named:
        if len(numeric) != 1:
            raise ComparisonError("--labels-a/--labels-b give bare labels, which apply to one metric: give "
                                  "--metrics M (or label per metric, {\"faithfulness\": 1})")
        return numeric
    chosen = [m for m in numeric if m.key in named]
    if not chosen:
        raise ComparisonError(f"the labels are for {', '.join(map(repr, named))}, which this comparison does not "
                              f"compare (it has: {', '.join(m.key for m in comparison.metrics)})")
    return chosen


def _values(labels: LabelsFile, metric: str, several: bool, flag: str) -> dict[str, tuple[float, int]]:
    try:
        return metric_values(labels, metric, several)
    except LabelsFileError as error:
        raise ComparisonError(f"{flag}: {error}") from None


def _check_provenance(labels: LabelsFile, results: Path, flag: str, accept_other_results: bool) -> list[str]:
    """Refuses labels drawn from other results than the run they correct (unless accepted);
    warns of labels made with the judge in view (`schemas.labels_file.provenance_notes`)."""
    try:
        return provenance_notes(labels, results, accept_other_results, flag)
    except OtherResultsError as error:
        raise ComparisonError(str(error)) from None
    except LabelsFileError as error:
        raise ComparisonError(f"{flag}: {error}") from None


def add_label_corrections(comparison: Comparison, labels_before: Path, labels_after: Path, *,
                          accept_other_results: bool = False) -> None:
    """Set `corrected` on each labelled metric of `comparison` and add what was left out to its
    notes; `ComparisonError` (one line) when the labels cannot correct it, labels drawn from
    other results than their run included (unless `accept_other_results`)."""
    before_file, after_file = _read(labels_before, "--labels-a"), _read(labels_after, "--labels-b")
    for labels, run, flag in ((before_file, comparison.before, "--labels-a"),
                              (after_file, comparison.after, "--labels-b")):
        comparison.notes += _check_provenance(labels, run.path, flag, accept_other_results)
    for labels, run, flag in ((before_file, comparison.before, "--labels-a"),
                              (after_file, comparison.after, "--labels-b")):
        missing = unknown_ids(labels, run.ids)
        if len(missing) == len(labels.labels):
            raise ComparisonError(f"{flag}: none of the {len(missing):,} id(s) labelled in {labels.name} is an item "
                                  f"of {run.name} ({ids_text(missing)}); {flag} labels the answers of "
                                  f"{'BEFORE' if flag == '--labels-a' else 'AFTER'}")
        if missing:
            comparison.notes.append(f"{labels.name}: {len(missing):,} labelled id(s) are not in {run.name}, unused: "
                                    f"{ids_text(missing)}")
    for labels in (before_file, after_file):
        if labels.design is None:
            comparison.notes.append(f"{labels.name} records no design (a hand-made file): the corrected interval "
                                    f"assumes its labelled items are a uniform random sample")
    chosen = _chosen([before_file, after_file], comparison)
    draws = (_draws(before_file, "--labels-a"), _draws(after_file, "--labels-b"))
    for metric in chosen:
        several = len(chosen) > 1
        metric.corrected = _correct(metric, _values(before_file, metric.key, several, "--labels-a"),
                                    _values(after_file, metric.key, several, "--labels-b"),
                                    before_file.name, after_file.name, draws)


Draws = dict[str, tuple[int, float]]
"""An active design's labels: id -> (its place in the draw, q_k)."""


def _draws(labels: LabelsFile, flag: str) -> Draws | None:
    if labels.design is None or labels.design.kind != "active":
        return None
    try:
        return active_draws(labels)
    except EstimateError as error:
        raise ComparisonError(f"{flag}: {error}") from None


def _run_estimate(y: dict[int, float], rows: list[int], f: np.ndarray, ids: list[str], draws: Draws | None,
                  scale: tuple[float, float] | None, lam: float | None = None) -> MeanEstimate:
    """One run's corrected mean over the items both runs judged: PPI++, or for an active draw
    Des Raj's estimator on its labels in the order drawn (drawn items not judged in both runs
    are read as never drawn, as `estimate` reads skips)."""
    if draws is None:
        index = np.asarray(rows, dtype=int)
        return ppi_mean(np.array([y[i] for i in rows]), f[index], f, lam=lam, scale=scale)
    ordered = sorted(rows, key=lambda i: draws[ids[i]][0])
    index = np.asarray(ordered, dtype=int)
    return active_mean(np.array([y[i] for i in ordered]), f[index], f, [draws[ids[i]][1] for i in ordered],
                       lam=lam, scale=scale)


def _correct(metric: MetricComparison, before: dict[str, tuple[float, int]], after: dict[str, tuple[float, int]],
             before_name: str, after_name: str,
             draws: tuple[Draws | None, Draws | None] = (None, None)) -> CorrectedDifference:
    pairs = metric.pairs.numeric
    position = {item_id: index for index, item_id in enumerate(pairs.ids)}
    f_before = np.array(pairs.before, dtype=float)
    f_after = np.array(pairs.after, dtype=float)
    in_before = sorted((position[i] for i in before if i in position))
    in_after = sorted((position[i] for i in after if i in position))
    notes = []
    outside = sum(1 for i in before if i not in position) + sum(1 for i in after if i not in position)
    if outside:
        notes.append(f"{outside:,} label(s) are on items not judged in both runs (failed, not applicable or "
                     f"only in one file): left out, as the judge's side leaves them out")
    ids = pairs.ids
    both = sorted(set(in_before) & set(in_after))
    y_before = {index: before[ids[index]][0] for index in in_before}
    y_after = {index: after[ids[index]][0] for index in in_after}
    active = draws[0] is not None or draws[1] is not None
    if active and len(in_before) >= MIN_LABELS and len(in_after) >= MIN_LABELS:
        notes.append("an active draw: each run is corrected on its own draw (inverse-probability weighted), and the "
                     "interval is unpaired")
        scale = _scale(metric, before, after)
        across = difference_scale(scale)
        estimate = DifferenceEstimate(False, *(
            difference_of(_run_estimate(y_after, in_after, f_after, ids, draws[1], scale, lam),
                          _run_estimate(y_before, in_before, f_before, ids, draws[0], scale, lam), across)
            for lam in (0.0, None)))
        paired_n = 0
    elif len(both) >= MIN_LABELS and not active:
        one_side = len(in_before) + len(in_after) - 2 * len(both)
        if one_side:
            notes.append(f"{one_side:,} label(s) are on items labelled in one run only: left out of the paired "
                         f"estimate")
        rows = np.asarray(both, dtype=int)
        estimate = paired_difference(np.array([y_before[i] for i in both]), np.array([y_after[i] for i in both]),
                                     f_before[rows], f_after[rows], f_before, f_after, _scale(metric, before, after))
        paired_n = len(both)
    elif len(in_before) >= MIN_LABELS and len(in_after) >= MIN_LABELS:
        notes.append(f"{len(both)} item(s) are labelled in both runs (a paired estimate needs {MIN_LABELS}): each "
                     f"run is corrected on its own, and the interval is unpaired (wider)")
        rows_b, rows_a = np.asarray(in_before, dtype=int), np.asarray(in_after, dtype=int)
        estimate = unpaired_difference(np.array([y_before[i] for i in in_before]), f_before[rows_b], f_before,
                                       np.array([y_after[i] for i in in_after]), f_after[rows_a], f_after,
                                       _scale(metric, before, after))
        paired_n = 0
    else:
        short = [f"{name} has {n}" for name, n in ((before_name, len(in_before)), (after_name, len(in_after)))
                 if n < MIN_LABELS]
        raise ComparisonError(f"{metric.key}: a label-corrected difference needs at least {MIN_LABELS} usable labels "
                              f"per run on items both runs judged ({'; '.join(short)}), or {MIN_LABELS} items "
                              f"labelled in both runs ({len(both)})")
    if paired_n:
        alike = len({y_after[i] - y_before[i] for i in both}) == 1
    else:
        alike = len({*(y_before[i] for i in in_before), *(y_after[i] for i in in_after)}) == 1
    if alike:
        notes.append(f"the labels show no spread (every labelled difference is the same): the interval is widened by "
                     f"pseudo-labels at both ends of the scale, and only more labels can narrow it")
    return CorrectedDifference(metric.key, len(pairs), len(in_before), len(in_after), paired_n,
                               float((f_after - f_before).mean()), estimate, notes)


def _scale(metric: MetricComparison, before: dict[str, tuple[float, int]],
           after: dict[str, tuple[float, int]]) -> tuple[float, float] | None:
    """The metric's declared scale, else the range its scores and labels span."""
    if metric.pairs.scale is not None:
        return (float(metric.pairs.scale[0]), float(metric.pairs.scale[1]))
    values = [*metric.pairs.numeric.before, *metric.pairs.numeric.after, *(v for v, _ in before.values()),
              *(v for v, _ in after.values())]
    return (float(min(values)), float(max(values))) if values else None
