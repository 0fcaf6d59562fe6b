"""One labelling session: the results, the order, the labels file, and the next item to show.

The page and the terminal both drive this object, so they write the same lines. The next item is
the first position of the order with no label or skip standing: a resumed session starts where
the last one stopped, and an undone item comes back first.

A label line carries the item's fields as `details.item` recorded them (so `calibrate` can
judge it again), the record's rubric, and `id`, `human`, `position`, the optional `note`, in a
stratified design the `stratum`, in an active design the `inclusion_probability` its item had at
its turn (`design.Design.probabilities`), and `"judge_shown": true` when the person saw the judge's
verdicts, evidence and scores before giving it (`label --show-judge`; labels made blind, the
default, carry no such key). An item labelled again after an undo was seen with the judge
(shown once its first label was saved), so its new label records `judge_shown` too. `estimate`
and `compare` count these labels: one made with the judge in view tends to copy the judge's
errors, which the correction assumes it does not.

The session holds its labels file (`labels_log.hold`: an exclusive lock, a regular file only)
until `close`, or until the process ends.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..graph.metrics_view import record_metrics
from .design import STRATIFIED, UNIFORM, Design, build_design, check_design
from .errors import LabellingError
from ..schemas.labels_file import is_skip
from .labels_log import HeldFile, LabelsLog, create_log, hold, open_log
from .results_index import IndexedRecord, ResultsIndex
from .scales import LabelScale, scales_for

MAX_NOTE_CHARS = 4000
"""A note is a sentence or two; a pasted document is cut here."""
LINE_KEYS = frozenset({"id", "human", "note", "position", "stratum", "skipped", "undo", "design", "metrics", "rubric",
                       "judge_shown", "inclusion_probability"})
"""Keys a label line sets itself: an item's own keys of these names are not copied over them."""


class StaleItem(LabellingError):
    """A label for an item that is no longer the one to label (another tab labelled it)."""


@dataclass(frozen=True)
class Current:
    position: int
    record: IndexedRecord
    stratum: str | None


class Session:
    def __init__(self, index: ResultsIndex, design: Design, log: LabelsLog, *, show_judge: bool = False) -> None:
        self.index, self.design, self.log = index, design, log
        self.show_judge = show_judge
        """The judge's verdicts, evidence and scores are shown before the label (recorded on it)."""
        self.scales: list[LabelScale] = scales_for(list(design.header["metrics"]))
        self.target_width: float | None = None
        """`--target-width W`: `precision` says how many labels in all would give +-W."""
        self._positions = {record.id: position for position, record in enumerate(design.order)}
        self._done: set[str] = set()
        self._seen_judge = {str(row["id"]) for row in log.rows if "human" in row}
        """Ids labelled before (a label since undone): the judge's side was shown after that label."""
        self._recount()

    # state
    def _recount(self) -> None:
        active = self.log.active()
        self._done = {str(row["id"]) for row in active}
        self.labelled = sum(1 for row in active if not is_skip(row))
        self.skipped = len(active) - self.labelled
        self._cursor = 0

    def close(self) -> None:
        """Let another session write the file (its lock is released)."""
        self.log.close()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def n_items(self) -> int:
        return len(self.design.order)

    def current(self) -> Current | None:
        """The first position with no label or skip standing; None when every item has one."""
        while self._cursor < self.n_items and self.design.order[self._cursor].id in self._done:
            self._cursor += 1
        if self._cursor >= self.n_items:
            return None
        return Current(self._cursor, self.design.order[self._cursor], self.design.strata[self._cursor])

    def record(self, current: Current) -> dict:
        return self.index.read(current.record)

    # actions
    def _check_current(self, position: int, item_id: str) -> Current:
        current = self.current()
        if current is None or current.position != position or current.record.id != item_id:
            raise StaleItem(f"item {item_id!r} is not the one to label now (it was labelled or skipped already)")
        return current

    def label(self, position: int, item_id: str, values: dict[str, int], note: str = "") -> dict:
        """Append the label of the current item; `LabellingError` for a value off its scale or a
        metric left out, `StaleItem` when the item is not the current one."""
        current = self._check_current(position, item_id)
        human: dict[str, int] = {}
        for scale in self.scales:
            value = scale.by_value(values.get(scale.metric))
            if value is None:
                allowed = ", ".join(str(v.value) for v in scale.values)
                raise LabellingError(f"{scale.metric}: give one of {allowed}")
            human[scale.metric] = value.value
        row: dict[str, Any] = {"id": item_id, "human": human[self.scales[0].metric] if len(human) == 1 else human}
        if note.strip():
            row["note"] = note.strip()[:MAX_NOTE_CHARS]
        row["position"] = position
        if current.stratum is not None:
            row["stratum"] = current.stratum
        if self.design.probabilities is not None:
            row["inclusion_probability"] = self.design.probabilities[position]
        if self.show_judge or item_id in self._seen_judge:
            row["judge_shown"] = True
        row.update(self._item_fields(self.record(current)))
        self.log.append(row)
        self._done.add(item_id)
        self._seen_judge.add(item_id)
        self.labelled += 1
        return row

    def skip(self, position: int, item_id: str) -> None:
        self._check_current(position, item_id)
        self.log.append({"id": item_id, "skipped": True, "position": position})
        self._done.add(item_id)
        self.skipped += 1

    def undo(self) -> str | None:
        """Cancel the last label or skip still standing; its id (shown next), or None."""
        active = self.log.active()
        if not active:
            return None
        last = active[-1]
        self.log.append({"id": last["id"], "undo": True})
        self._recount()
        return str(last["id"])

    def precision(self) -> str | None:
        """"faithfulness: +-0.12 now; about 140 labels in all for +-0.05": the first metric's
        label-corrected interval so far, as `estimate` computes it (uniform and active designs;
        None before 10 labels, for a stratified design, or without `target_width`)."""
        if self.target_width is None or self.design.header["kind"] == STRATIFIED:
            return None
        from ..estimates.ppi import active_mean, labels_for_half_width, ppi_mean
        from ..schemas.labels_file import label_value

        import numpy as np

        scale = self.scales[0]
        metric = scale.metric
        f_all = np.array([r.scores[metric] for r in self.design.order if r.scores.get(metric) is not None])
        labelled = []
        for row in self.log.active():
            if is_skip(row) or row["id"] not in self._positions:
                continue
            position = self._positions[row["id"]]
            human = row["human"].get(metric) if isinstance(row["human"], dict) else row["human"]
            score = self.design.order[position].scores.get(metric)
            if score is not None and (value := label_value(human)) is not None:
                labelled.append((position, value, score))
        if len(labelled) < 10 or not len(f_all):
            return None
        labelled.sort()
        y = np.array([value for _, value, _ in labelled])
        f = np.array([score for _, _, score in labelled])
        bounds = (float(scale.low), float(scale.high))
        if self.design.probabilities is not None:
            q = [self.design.probabilities[position] for position, _, _ in labelled]
            estimate = active_mean(y, f, f_all, q, scale=bounds)
        else:
            estimate = ppi_mean(y, f, f_all, scale=bounds)
        needed = labels_for_half_width(estimate, self.target_width, len(f_all))
        wanted = (f"no number of labels up to the {len(f_all):,} items" if needed is None else
                  f"about {needed:,} labels in all")
        return f"{metric}: +-{estimate.half_width:.3f} now; {wanted} for +-{self.target_width:g}"

    def _item_fields(self, record: dict) -> dict[str, Any]:
        item = record["details"]["item"]
        fields = {key: value for key, value in item.items() if key not in LINE_KEYS}
        metrics = {metric.key: metric.rubric for metric in record_metrics(record)}
        fields["rubric"] = metrics.get(self.scales[0].metric) or next(iter(metrics.values()), "rag")
        return fields


def start_session(results: Path, labels: Path, *, metrics: list[str] | None, stratified: bool | None,
                  seed: int | None, kind: str | None = None, show_judge: bool = False) -> Session:
    """A session on `results` writing `labels`: a new file with a new design, or an existing one
    resumed (its recorded design, checked against the results and the flags given). The labels
    file is held (locked) by the session until `Session.close`."""
    from .results_index import index_results

    index = index_results(results)
    if not index.records and index.not_records:
        raise LabellingError(f"{results} is not a judgegraph results file: none of its {index.not_records:,} line(s) "
                             "is a record with a 'result' (to judge items: judgegraph evaluate ITEMS --out "
                             "results.jsonl --details)")
    held = hold(labels)
    try:
        if held.size > 0:
            design, log = _resumed(held, index, metrics=metrics, stratified=stratified, seed=seed, kind=kind)
        else:  # a new file, or an empty one: created by the user, or a crash before the design line
            design = _new_design(index, results, metrics=metrics, stratified=stratified, seed=seed,
                                 kind=kind)
            log = create_log(held, design.header)
    except BaseException:
        _release(held)
        raise
    return Session(index, design, log, show_judge=show_judge)


def _resumed(held: HeldFile, index: ResultsIndex, *, metrics: list[str] | None, stratified: bool | None,
             seed: int | None, kind: str | None) -> tuple[Design, LabelsLog]:
    log = open_log(held)
    recorded = log.design
    check_design(recorded, index, str(held.path))
    _check_flags(recorded, held.path, metrics=metrics, stratified=stratified, seed=seed, kind=kind)
    design = build_design(index, list(recorded["metrics"]), str(recorded["kind"]), int(recorded["seed"]))
    if design.header["n_items"] != recorded.get("n_items"):
        raise LabellingError(f"{held.path} records {recorded.get('n_items')} items, these results give "
                             f"{design.header['n_items']}: it was written by another version; use a new file")
    return design, log


def _new_design(index: ResultsIndex, results: Path, *, metrics: list[str] | None, stratified: bool | None,
                seed: int | None, kind: str | None) -> Design:
    chosen = metrics or [m for m in index.metrics_seen]
    if not chosen:
        raise LabellingError(f"{results}: no record holds a metric a person can label "
                             "(faithfulness, context_relevance, answer_relevance, liverag's, coverage)")
    scales_for(chosen)
    if seed is None:
        import secrets

        seed = secrets.randbelow(2**31)
    return build_design(index, chosen, kind or (STRATIFIED if stratified else UNIFORM), seed)


def _release(held: HeldFile) -> None:
    """A start refused: the file is let go, and removed if this start created it (still empty)."""
    try:
        now = os.stat(held.path)
        if held.created and held.size == 0 and (now.st_dev, now.st_ino) == held.identity:
            os.unlink(held.path)
    except OSError:
        pass
    held.close()


def _check_flags(recorded: dict, labels: Path, *, metrics: list[str] | None, stratified: bool | None,
                 seed: int | None, kind: str | None = None) -> None:
    if kind is not None and kind != recorded.get("kind"):
        raise LabellingError(f"{labels} holds a {recorded.get('kind')} design; resume it without --design {kind}, "
                             "or label into a new file")
    kind = recorded.get("kind")
    if stratified is not None and (kind == STRATIFIED) != stratified:
        raise LabellingError(f"{labels} holds a {kind} design; resume it without "
                             f"{'--strata' if stratified else 'that flag'}, or label into a new file")
    if metrics and list(metrics) != list(recorded.get("metrics", [])):
        raise LabellingError(f"{labels} labels {', '.join(recorded.get('metrics', []))}; resume it without "
                             "--metric, or label other metrics into a new file")
    if seed is not None and seed != recorded.get("seed"):
        raise LabellingError(f"{labels} was ordered with seed {recorded.get('seed')}; resume it without --seed")
