"""The order items are labelled in: a seeded random permutation, so any prefix is a random sample.

Why a permutation and not "the next item in the file": the labels are a sample from which
`estimate` infers the whole batch's mean, and its interval is valid only if the sample is random.
Labelling in a seeded random order makes every prefix of the labels file (the first 20, the
first 57, wherever the person stopped) a uniform random sample of the items; the seed is
recorded in the file's first line, so the order is known and resumable without storing it.

`--strata` (the stratified design) labels more where the judge is unsure. The items are cut
into strata by the judge's score on the first labelled metric, relative to its scale: `low`
(below a quarter of the way up), `unsure` (a quarter to three quarters, both ends included)
and `high` (above three quarters). Each stratum is shuffled on its own, and the strata are
interleaved so that label k falls on an item of stratum h about k x p_h x N_h times, where
p_h, recorded as the stratum's `inclusion_probability`, is UNSURE_OVERSAMPLING times larger
for `unsure` than for the others and the p_h sum to 1 over all items. A prefix of n labels
therefore includes n_h items of stratum h, each item of it with probability n_h / N_h (about
n x p_h) until the stratum is used up, and within a stratum any prefix is uniform: what a
stratified estimator needs. The interleaving is deterministic given the counts, so the order
is again recomputed from the seed.

`--design active` labels first where the judge is unsure, item by item (Zrnic and Candes 2024):
the order is a successive draw without replacement, each next item drawn among those left with
probability proportional to its weight, which grows with the judge's uncertainty on it
(`estimates.active_draw`: sqrt(g (1 - g)) of its score on the first metric, mixed with a uniform
floor). Position k records q_k, the probability its item had of being drawn at its turn, and the
label line carries it as `inclusion_probability`; `estimate` inverts it (Des Raj's ordered
estimator), so any prefix is again a valid sample. The clocks come from the seed, so the order
is recomputed, not stored.

Items that are not labelled: those whose labelled metrics were all not judged (failed or not
applicable) and, in a stratified design, those with no judge score on the first metric: they
have no judge score to correct. `n_items` counts the items in the order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from ..estimates.active_draw import UNIFORM_SHARE, draw_probabilities, successive_order, uncertainty_weights
from .errors import LabellingError
from .results_index import IndexedRecord, ResultsIndex
from .scales import SCALES

UNIFORM = "uniform"
STRATIFIED = "stratified"
ACTIVE = "active"
KINDS = (UNIFORM, STRATIFIED, ACTIVE)
ORDER = "seeded permutation"
UNSURE_OVERSAMPLING = 3
"""How many times more likely an item the judge is unsure about is to be labelled next."""
STRATUM_EDGES = (0.25, 0.75)
"""Where `unsure` starts and ends, as shares of the way up the metric's scale."""


@dataclass(frozen=True)
class Stratum:
    name: str
    low: float
    high: float
    weight: int
    """Its oversampling rate: UNSURE_OVERSAMPLING for `unsure`, 1 for the others."""

    def holds(self, score: float) -> bool:
        if self.name == "low":
            return score < self.high
        if self.name == "high":
            return score > self.low
        return self.low <= score <= self.high


@dataclass(frozen=True)
class Design:
    header: dict[str, Any]
    """The `design` object of the file's first line."""
    order: list[IndexedRecord]
    """The items, in the order they are labelled."""
    strata: list[str | None]
    """Each position's stratum (None in a uniform design)."""
    probabilities: list[float | None] | None = None
    """An active design's q_k per position (None for the other designs)."""


def _strata(metric: str) -> list[Stratum]:
    scale = SCALES[metric]
    low, span = float(scale.low), float(scale.high - scale.low)
    start, end = (low + edge * span for edge in STRATUM_EDGES)
    return [Stratum("low", low, start, 1), Stratum("unsure", start, end, UNSURE_OVERSAMPLING),
            Stratum("high", end, float(scale.high), 1)]


def eligible(index: ResultsIndex, metrics: list[str], kind: str) -> list[IndexedRecord]:
    """The records the design orders (see the module's docstring), in file order."""
    if kind in (STRATIFIED, ACTIVE):
        return [r for r in index.records if r.scores.get(metrics[0]) is not None]
    return [r for r in index.records if any(r.scores.get(metric) is not None for metric in metrics)]


def build_design(index: ResultsIndex, metrics: list[str], kind: str, seed: int) -> Design:
    """The order of `index`'s items for `metrics`; `LabellingError` when none can be labelled or
    some judged one carries no item to show."""
    items = eligible(index, metrics, kind)
    without_item = [r.line for r in items if not r.has_item]
    if without_item:
        lines = ", ".join(map(str, without_item[:5])) + (", ..." if len(without_item) > 5 else "")
        raise LabellingError(f"{index.path}: {len(without_item):,} judged record(s) hold no item to show (lines "
                             f"{lines}): judge with --details to label them")
    if not items:
        raise LabellingError(f"{index.path}: no record has a judged {' or '.join(metrics)} score to label")
    header: dict[str, Any] = {"kind": kind, "seed": seed, "results": str(index.path.resolve()),
                              "results_sha256": index.sha256, "n_items": len(items), "order": ORDER}
    rng = random.Random(seed)
    if kind == UNIFORM:
        order = items[:]
        rng.shuffle(order)
        header["metrics"] = metrics
        return Design(header, order, [None] * len(order))
    if kind == ACTIVE:
        scale = SCALES[metrics[0]]
        weights = uncertainty_weights([r.scores[metrics[0]] for r in items], (float(scale.low), float(scale.high)))
        drawn = successive_order(weights, rng)
        header["order"] = "successive draw weighted by the judge's uncertainty"
        header["weights"] = {"metric": metrics[0], "uniform_share": UNIFORM_SHARE}
        header["metrics"] = metrics
        return Design(header, [items[i] for i in drawn], [None] * len(drawn),
                      draw_probabilities([weights[i] for i in drawn]))
    members = {stratum: [r for r in items if stratum.holds(r.scores[metrics[0]])] for stratum in _strata(metrics[0])}
    members = {stratum: records for stratum, records in members.items() if records}
    for records in members.values():
        rng.shuffle(records)
    total_weight = sum(stratum.weight * len(records) for stratum, records in members.items())
    header["strata"] = [{"name": s.name, "low": s.low, "high": s.high, "n_items": len(records),
                         "inclusion_probability": s.weight / total_weight} for s, records in members.items()]
    header["metrics"] = metrics
    order, strata = _interleave(members)
    return Design(header, order, strata)


def _interleave(members: dict[Stratum, list[IndexedRecord]]) -> tuple[list[IndexedRecord], list[str | None]]:
    """Each next label from the stratum furthest behind its share of the labels so far (shares
    proportional to weight x size, among the strata not yet used up)."""
    taken = {stratum: 0 for stratum in members}
    order: list[IndexedRecord] = []
    names: list[str | None] = []
    total = sum(len(records) for records in members.values())
    for position in range(1, total + 1):
        open_strata = [s for s in members if taken[s] < len(members[s])]
        weight = sum(s.weight * len(members[s]) for s in open_strata)
        done = sum(taken[s] for s in members if taken[s] >= len(members[s]))
        chosen = max(open_strata, key=lambda s: (position - done) * s.weight * len(members[s]) / weight - taken[s])
        order.append(members[chosen][taken[chosen]])
        names.append(chosen.name)
        taken[chosen] += 1
    return order, names


def check_design(recorded: dict[str, Any], index: ResultsIndex, labels_path: str) -> None:
    """A resumed labels file must describe these results: the same bytes, hence the same order."""
    if recorded.get("results_sha256") != index.sha256:
        raise LabellingError(f"{labels_path} was started on other results (its design records sha256 "
                             f"{str(recorded.get('results_sha256'))[:12]}..., {index.path} is {index.sha256[:12]}...): "
                             "the order would differ; label these results into a new file")
