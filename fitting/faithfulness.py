"""Fitting the faithfulness decisions of a profile on item-level labels.

What is fitted, and why so little:
- **P(supported) per claim**: a logistic regression over three recorded signals (the judge's
  P(supported), P(contradicted), and grounding), monotone where it should be: a coefficient
  with the wrong sign (more P(supported) making support less likely) drops its signal and the
  model is refitted, so a fit never learns that a judge's "yes" means "no" from noise.
- **Whether to keep the start's support rule**: the logistic model replaces the start's rule
  (the default's product P(supported) x grounding) only when it agrees better on held-out
  inner folds of the training labels. A hand-set rule that was itself tuned on similar data
  can beat a fit on 30 labels, and in-sample agreement would always favour the fit.
- **The contradiction and own-answer thresholds, and the second-look band**: by grid search
  over a few values, keeping the one whose recomputed item scores agree best with the labels
  (`model_choice.fit_objective`; ties keep the values nearest the default, so the cheapest band).
The seed's formulas stay: faithfulness is the mean of the claims' P(supported), and a counted
critical contradiction gives 0.0.

Labels are per item, the quantities per claim. An item is faithful when every claim is
supported, so its label speaks about its **weakest claim**: a one-claim item's label is its
claim's label directly, and a multi-claim item contributes one row, its claim with the lowest
P(supported) under the current model (the selection is redone three times as the model
moves). Claims with a number conflict (decided by code) or a failed check are not rows. Graded
labels in 0..1 enter as a weighted pair of rows (label 1 with weight y, label 0 with 1-y).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from ..calibration.claim_decisions import ClaimSignals, claim_features, first_reading_support
from ..calibration.profile import FaithfulnessParameters, LogisticSupport
from .cross_validation import MetricFit
from .labels import LabelKind
from .metric_fitting import MetricFitting
from .model_choice import fit_beats_start, objective_under
from .monotone import FitError, monotone_logistic, unit_targets
from .recompute import RecordedFaithfulness, faithfulness_score, recorded_faithfulness

EXPECTED_SIGN = {"p_supported": 1, "p_contradicted": -1, "grounding": 1}
CONTRADICTION_GRID = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
AGREES_GRID = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
SECOND_LOOK_GRID = (None, 0.7, 0.8, 0.9, 1.0)
"""Tops of the second-look band (None: `supported_at`, no call spent on a claim that counts)."""
WEAKEST_CLAIM_ROUNDS = 3


def _weakest_claim(recorded: RecordedFaithfulness, parameters: FaithfulnessParameters) -> dict | None:
    usable = [c for c in recorded.claims if c.get("error") is None and not c.get("conflict")]
    if not usable:
        return None
    return min(usable, key=lambda c: first_reading_support(ClaimSignals.from_record(c), parameters))


def _monotone_logistic(features: list[dict[str, float]], targets: Sequence[float]) -> LogisticSupport:
    intercept, coefficients = monotone_logistic(features, targets, EXPECTED_SIGN)
    return LogisticSupport(intercept=intercept, coefficients=coefficients)


def fit_support(items: Sequence[RecordedFaithfulness], targets: Sequence[float],
                start: FaithfulnessParameters) -> FaithfulnessParameters:
    """`start` with its support model fitted on the items' weakest claims."""
    parameters = start
    for _ in range(WEAKEST_CLAIM_ROUNDS):
        rows, row_targets = [], []
        for recorded, target in zip(items, targets):
            claim = _weakest_claim(recorded, parameters)
            if claim is not None:
                rows.append(claim_features(ClaimSignals.from_record(claim)))
                row_targets.append(target)
        if len(rows) < 4:
            raise FitError(f"only {len(rows)} item(s) with a checkable claim: a fit needs more labelled items")
        parameters = parameters.model_copy(update={"support": _monotone_logistic(rows, row_targets)})
    return parameters


def fit_faithfulness(items: Sequence[RecordedFaithfulness], labels: Sequence[float], kind: LabelKind,
                     start: FaithfulnessParameters, levels: Sequence[float] = (0.0, 1.0),
                     groups: Sequence[str] | None = None) -> FaithfulnessParameters:
    """Fitted faithfulness parameters for these judged items and their labels (`groups` is not
    read: a faithfulness label speaks for its own answer, not against another of its group)."""
    def fit_on(train_items: Sequence[RecordedFaithfulness], train_labels: Sequence[float],
               _groups: Sequence[str] | None = None) -> FaithfulnessParameters:
        return fit_support(train_items, unit_targets(train_labels, levels), start)

    base = (fit_on(items, labels)
            if fit_beats_start(items, labels, kind, start, fit_on, faithfulness_score, levels) else start)

    def quality(candidate: FaithfulnessParameters) -> float:
        return objective_under(items, labels, kind, [candidate] * len(items), faithfulness_score, levels)

    def distance(candidate: FaithfulnessParameters) -> float:  # ties keep the default's values
        return (abs(candidate.contradiction_at - start.contradiction_at)
                + abs(candidate.own_answer_agrees_at - start.own_answer_agrees_at)
                + abs(candidate.second_look_band_top - start.second_look_band_top))

    candidates = [base.model_copy(update={"contradiction_at": c, "own_answer_agrees_at": a, "second_look_below": b})
                  for c, a, b in itertools.product(CONTRADICTION_GRID, AGREES_GRID, SECOND_LOOK_GRID)]
    return max(candidates, key=lambda candidate: (round(quality(candidate), 9), -distance(candidate)))


FAITHFULNESS_FITTING = MetricFitting(recorded_faithfulness, MetricFit(faithfulness_score, fit_faithfulness))
"""Faithfulness as `calibrate` fits it (`calibration.claim_decisions.FAITHFULNESS_CALIBRATION`)."""
