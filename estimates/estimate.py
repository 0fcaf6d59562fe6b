"""`judgegraph estimate RESULTS --labels LABELS`: what the judge says, what the labels say,
and what both together say, per metric (and per group of items).

Why plain data out: the command's table, its `--json`, `judgegraph.estimate(...)` and the HTML
report read the same `MetricEstimate` rows, so they cannot disagree.

What the inputs hold beyond usable pairs is named, never absorbed (docs/estimates.md): label
ids the results do not have (listed, unused), items whose metric failed (counted, left out of
both the judge's side and the labels'), fewer than `MIN_LABELS` labels (refused, saying how
many more), labels of one value (estimated, with what that does to the interval), a file
with no recorded design (estimated, warning that the interval assumes a random sample), a
metric the results do not have (refused).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..schemas.labels_file import (
    Design,
    LabelsFile,
    LabelsFileError,
    provenance_notes,
    ids_text,
    labelled_metrics,
    metric_values,
    read_labels_file,
    unknown_ids,
)
from .ppi import (
    MeanEstimate,
    StratumError,
    active_mean,
    effective_labels,
    labels_for_half_width,
    labels_only,
    more_labels_to_halve,
    ppi_mean,
    stratified_means,
)
from .results_scores import ResultsScores, ResultsScoresError, metrics_of, read_scores

MIN_LABELS = 10
"""Fewer labels than this give a variance estimate too rough for a 95 % interval to mean 95 %."""


class EstimateError(ValueError):
    """Input an estimate cannot be made from; one line, for exit 2."""


@dataclass
class MetricEstimate:
    metric: str
    n_items: int
    """Items whose metric the judge scored (failed ones left out)."""
    n_labels: int
    """Labelled items among them, with a label for this metric."""
    judge_mean: float | None
    labels_only: MeanEstimate | None
    corrected: MeanEstimate | None
    design: str
    """"uniform", "stratified", "active" or "none" (a file without a design line, read as uniform)."""
    failed: int = 0
    effective_labels: float | None = None
    more_labels_to_halve: int | None = None
    labels_for_target: int | None = None
    """With `--target-width W`: about how many labels in all give an interval of +-W."""
    target_width: float | None = None
    by: str | None = None
    group: str | None = None
    notes: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "metric": self.metric, "n_items": self.n_items, "n_labels": self.n_labels,
            "judge_mean": None if self.judge_mean is None else round(self.judge_mean, 6),
            "labels_only": self.labels_only.as_json() if self.labels_only else None,
            "corrected": self.corrected.as_json() if self.corrected else None,
            "effective_labels": None if self.effective_labels is None else round(self.effective_labels, 1),
            "more_labels_to_halve": self.more_labels_to_halve,
            **({"target_width": self.target_width, "labels_for_target": self.labels_for_target}
               if self.target_width is not None else {}),
            "lambda": None if self.corrected is None or self.corrected.lam is None else round(self.corrected.lam, 6),
            "design": self.design, "failed": self.failed,
        }
        if self.by is not None:
            data["by"] = self.by
            data["group"] = self.group
        if self.notes:
            data["notes"] = list(self.notes)
        return data


@dataclass
class EstimateRun:
    rows: list[MetricEstimate]
    notes: list[str]
    """What the inputs held that was left out or assumed, one line each (stderr)."""

    def as_json(self) -> list[dict[str, Any]]:
        return [row.as_json() for row in self.rows]


def _metrics(labels: LabelsFile, asked: list[str] | None) -> list[str]:
    if asked:
        return list(dict.fromkeys(asked))
    named = labelled_metrics(labels)
    if named:
        return named
    if labels.design is not None and labels.design.metrics:
        return list(labels.design.metrics)
    raise EstimateError(f"{labels.name} gives bare labels, which apply to the metric you name: give --metric")


def _strata(design: Design, scores: ResultsScores) -> np.ndarray:
    """Each record's stratum index by the design's score (-1 when it has none)."""
    strata_scores = scores.columns[design.strata_metric].values()  # type: ignore[index]
    out = np.full(len(strata_scores), -1, dtype=int)
    last = len(design.strata) - 1
    for index, stratum in enumerate(design.strata):
        inside = (strata_scores >= stratum.low) & ((strata_scores < stratum.high)
                                                   | ((strata_scores == stratum.high) if index == last else False))
        out[inside & (out == -1)] = index
    return out


@dataclass
class _Pairs:
    judged: np.ndarray
    """Record indices whose metric was judged (and, stratified, that fall in a stratum)."""
    labelled: np.ndarray
    """Record indices of the usable labels (in the order drawn, for an active design)."""
    y: np.ndarray
    draw_probabilities: np.ndarray | None = None
    """An active design's q_k per label, in the order drawn (None for the other designs)."""


def _estimate(metric: str, scores: np.ndarray, pairs: _Pairs, strata: np.ndarray | None,
              design_kind: str, failed: int, scale: tuple[float, float] | None = None,
              target_width: float | None = None) -> MetricEstimate:
    f_all = scores[pairs.judged]
    n = len(pairs.y)
    row = MetricEstimate(metric, len(f_all), n, float(f_all.mean()) if len(f_all) else None, None, None,
                         design_kind, failed)
    if n < MIN_LABELS:
        row.notes.append(f"{n} usable label(s); an estimate needs at least {MIN_LABELS} ({MIN_LABELS - n} more)")
        return row
    f_lab = scores[pairs.labelled]
    scale = scale or (float(min(pairs.y.min(), f_all.min())), float(max(pairs.y.max(), f_all.max())))
    if pairs.draw_probabilities is not None:
        only = active_mean(pairs.y, f_lab, f_all, pairs.draw_probabilities, lam=0.0, scale=scale)
        corrected = active_mean(pairs.y, f_lab, f_all, pairs.draw_probabilities, scale=scale)
    elif strata is None:
        only, corrected = labels_only(pairs.y, len(f_all), scale), ppi_mean(pairs.y, f_lab, f_all, scale=scale)
    else:
        only, corrected = stratified_means(pairs.y, f_lab, strata[pairs.labelled], f_all, strata[pairs.judged],
                                           scale)
    row.labels_only, row.corrected = only, corrected
    row.effective_labels = effective_labels(n, only, corrected)
    row.more_labels_to_halve = more_labels_to_halve(n, len(f_all), corrected)
    if target_width is not None:
        row.target_width = target_width
        row.labels_for_target = labels_for_half_width(corrected, target_width, len(f_all))
    distinct = np.unique(pairs.y)
    if len(distinct) == 1 and not corrected.exact:
        row.notes.append(f"every label is {distinct[0]:g}: the labels show no spread, so the intervals are "
                         f"widened by pseudo-labels at both ends of the scale (with {n} labels all "
                         f"{distinct[0]:g}, another value may still be up to about {3 / n:.0%} of the items)")
    return row


def estimate_files(results: Path, labels: Path, metrics: list[str] | None = None,
                   by: str | None = None, target_width: float | None = None, *,
                   accept_other_results: bool = False) -> EstimateRun:
    """The estimates of `metrics` (default: those the labels name) over `results` with
    `labels`; `EstimateError` (one line) when they cannot be made, labels drawn from another
    results file included (its recorded sha256 differs) unless `accept_other_results`."""
    try:
        labels_file = read_labels_file(Path(labels))
    except LabelsFileError as error:
        raise EstimateError(str(error)) from None
    notes = list(labels_file.notes)
    chosen = _metrics(labels_file, metrics)
    try:
        values = {metric: metric_values(labels_file, metric, len(chosen) > 1) for metric in chosen}
    except LabelsFileError as error:
        raise EstimateError(str(error)) from None
    design = labels_file.design
    read = list(chosen)
    if design is not None and design.kind == "stratified" and design.strata_metric not in read:
        read.append(design.strata_metric)  # type: ignore[arg-type]
    try:
        scores = read_scores(Path(results), read, {label.id for label in labels_file.labels}, by)
    except ResultsScoresError as error:
        raise EstimateError(str(error)) from None
    for metric in read:
        if scores.columns[metric].absent == scores.records:
            known = metrics_of(scores.first_record)
            raise EstimateError(f"no metric {metric!r} in {scores.name} (it has: {', '.join(known) or 'none'})")
    notes += _provenance_notes(labels_file, Path(results), accept_other_results)
    notes += _file_notes(scores, labels_file)
    design_kind = design.kind if design is not None else "none"
    strata = None
    if design is not None and design.kind == "stratified":
        strata = _strata(design, scores)
    drawn = active_draws(labels_file) if design is not None and design.kind == "active" else None
    if drawn is not None and labels_file.skipped:
        notes.append(f"{labels_file.name}: {len(labels_file.skipped):,} item(s) of its active draw were skipped: the "
                     f"estimate reads them as never drawn (exact only if they are like the rest)")
    rows: list[MetricEstimate] = []
    for metric in chosen:
        all_scores = scores.columns[metric].values()
        judged_mask = ~np.isnan(all_scores)
        if strata is not None:
            outside = int((judged_mask & (strata < 0)).sum())
            if outside:
                notes.append(f"{metric}: {outside:,} judged item(s) fall in no stratum of the design (their "
                             f"{design.strata_metric} score is outside every stratum or not judged): left out")  # type: ignore[union-attr]
            judged_mask &= strata >= 0
        labelled, y, failed_labelled = [], [], 0
        for item_id, (value, line) in values[metric].items():
            index = scores.ids.get(item_id)
            if index is None:
                continue
            if not judged_mask[index]:
                failed_labelled += 1
                continue
            scale = scores.columns[metric].scale
            if scale is not None and not scale[0] <= value <= scale[1]:
                raise EstimateError(f"{labels_file.name} line {line}: the label {value:g} is outside {metric}'s "
                                    f"scale {scale[0]:g}..{scale[1]:g}")
            labelled.append(index)
            y.append(value)
        column = scores.columns[metric]
        if column.failed or failed_labelled:
            notes.append(f"{metric}: {column.failed:,} item(s) failed and {column.not_applicable:,} were not "
                         f"applicable ({failed_labelled} of them labelled): left out of the judge's mean and of "
                         f"the labels alike")
        labelled_ids = [item_id for item_id, _ in values[metric].items() if item_id in scores.ids
                        and judged_mask[scores.ids[item_id]]]
        if drawn is not None:
            order = np.argsort([drawn[item_id][0] for item_id in labelled_ids], kind="stable")
            q = np.asarray([drawn[item_id][1] for item_id in labelled_ids], dtype=float)[order]
        else:
            order, q = np.argsort(np.asarray(labelled, dtype=int), kind="stable"), None
        pairs = _Pairs(np.flatnonzero(judged_mask), np.asarray(labelled, dtype=int)[order],
                       np.asarray(y, dtype=float)[order], q)
        try:
            row = _estimate(metric, all_scores, pairs, strata, design_kind, column.failed, column.scale,
                            target_width)
        except StratumError as error:
            name = design.strata[error.stratum].name  # type: ignore[union-attr]
            raise EstimateError(f"{metric}: stratum {name!r} holds items and {error.labels} label(s); a stratified "
                                f"estimate needs at least 2 in every stratum") from None
        if row.corrected is None:
            raise EstimateError(f"{metric}: {row.notes[-1]}")
        rows.append(row)
        if by is not None:
            rows += _group_rows(metric, all_scores, pairs, strata, design_kind, scores, by, column.scale)
    return EstimateRun(rows, notes)


def active_draws(labels: LabelsFile) -> dict[str, tuple[int, float]]:
    """id -> (its place in the draw, q_k) for each label of an active design (`EstimateError`
    for a label line without them: the estimate needs both)."""
    drawn = {}
    for label in labels.labels:
        q = label.row.get("inclusion_probability")
        if (label.position is None or isinstance(q, bool) or not isinstance(q, (int, float))
                or not 0.0 < float(q) <= 1.0):
            raise EstimateError(f"{labels.name} line {label.line}: a label of an active design needs its "
                                f"'position' and an 'inclusion_probability' in (0, 1]")
        drawn[label.id] = (label.position, float(q))
    return drawn


def _group_rows(metric: str, all_scores: np.ndarray, pairs: _Pairs, strata: np.ndarray | None, design_kind: str,
                scores: ResultsScores, by: str, scale: tuple[float, float] | None) -> list[MetricEstimate]:
    groups = np.frombuffer(scores.groups, dtype=np.int32) if scores.groups is not None else np.zeros(0, dtype=np.int32)
    rows = []
    for index, name in enumerate(scores.group_names):
        keep_all = groups[pairs.judged] == index
        keep_labelled = groups[pairs.labelled] == index
        sub = _Pairs(pairs.judged[keep_all], pairs.labelled[keep_labelled], pairs.y[keep_labelled])
        if not len(sub.judged):
            continue
        if pairs.draw_probabilities is not None:
            row = MetricEstimate(metric, len(sub.judged), len(sub.y), float(all_scores[sub.judged].mean()), None, None,
                                 design_kind)
            row.notes.append("an active draw is estimated over all its items, not per group")
            row.by, row.group = by, name
            rows.append(row)
            continue
        try:
            row = _estimate(metric, all_scores, sub, strata, design_kind, 0, scale)
        except StratumError as error:
            row = MetricEstimate(metric, len(sub.judged), len(sub.y), float(all_scores[sub.judged].mean()), None, None,
                                 design_kind)
            row.notes.append(f"stratum {error.stratum} of this group holds {error.labels} label(s); a stratified "
                             f"estimate needs at least 2 in every stratum")
        row.by, row.group = by, name
        rows.append(row)
    return rows


def _provenance_notes(labels: LabelsFile, results: Path, accept_other_results: bool) -> list[str]:
    """Refuses labels drawn from other results (unless accepted); notes labels made with the
    judge in view (`schemas.labels_file.provenance_notes`)."""
    try:
        return provenance_notes(labels, results, accept_other_results)
    except LabelsFileError as error:
        raise EstimateError(str(error)) from None


def _file_notes(scores: ResultsScores, labels: LabelsFile) -> list[str]:
    notes = []
    missing = unknown_ids(labels, scores.ids)
    if missing:
        notes.append(f"{len(missing):,} labelled id(s) are not in {scores.name}, unused: {ids_text(missing)}")
    if labels.design is None:
        notes.append(f"{labels.name} records no design (a hand-made file): the intervals assume its labelled "
                     f"items are a uniform random sample of {scores.name}")
    elif labels.design.n_items is not None and labels.design.n_items != scores.records:
        notes.append(f"{labels.name} was drawn from {labels.design.n_items:,} items, {scores.name} holds "
                     f"{scores.records:,} records: was it judged again or extended?")
    if scores.unreadable_lines:
        notes.append(f"{scores.name}: {len(scores.unreadable_lines):,} line(s) are not result records: left out")
    if scores.truncated_tail:
        notes.append(f"{scores.name}: its last line is cut off (a run still writing, or killed): left out")
    if scores.duplicate_ids:
        notes.append(f"{scores.name}: {scores.duplicate_ids:,} repeated id(s): the first record of each is used")
    return notes
