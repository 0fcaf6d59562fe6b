"""Fitting the context- and answer-relevance decisions of a profile on item-level labels.

What is fitted, and why so little (the seed's formulas and goal weights stay):
- **Context relevance: recall.** It replaces the start's recall only when it does better on
  held-out inner folds (`model_choice.fit_beats_start`). A logistic regression of the label on P(yes), P(partly) (the
  judge's "the context holds what the question needs") and, when every item recorded it, the
  question-context embedding closeness. Monotone (`fitting.monotone`): every coefficient
  must be >= 0, as more "yes" (at the expense of "no") or a closer context can only mean the
  context holds more of what is needed; a signal that comes out negative on the labels is
  dropped and the model refitted. Precision (the share of words in the lines the judge marked
  useful) is not fitted: the label says whether the context is relevant, not how much of it is.
  **Grouped labels** (the passages retrieved for one query, one marked relevant) say which
  passage of the query is the relevant one, not that the other is irrelevant to everything: a
  signal such as the question-passage closeness separates a query's passages while its level
  differs from query to query. So with groups the direction of the model is fitted on
  within-group contrasts (a conditional logit: the logistic regression of "the first passage
  is the relevant one" on the difference of the two passages' signals, monotone as above), and
  only its scale and intercept on the items, so recall stays a probability-like 0..1 value.
- **Answer relevance: the partial and evasive directness factors, and whether parts answered and
  directness are read from the reply's label probabilities or its written labels**, by a grid
  over 0..1 in steps of 0.05 with partial >= evasive, for each reading, keeping the set whose
  recomputed item scores agree best with the labels by the faithfulness grid's objective
  (`model_choice.fit_objective`: minus the Brier score for binary labels, so a factor comes to
  mean the share of such answers people call relevant; the primary figure otherwise), ties
  keeping the values and the reading nearest the start's. The direct factor stays 1: the seed's
  1.0 is "fully answers the question directly".
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from ..calibration.profile import AnswerRelevanceParameters, ContextRelevanceParameters, LogisticRecall
from ..calibration.relevance_decisions import recall_features
from .cross_validation import MetricFit
from .labels import LabelKind
from .metric_fitting import MetricFitting
from .model_choice import fit_beats_start, fit_objective, within_group_pairs
from .monotone import FitError, monotone_logistic, unit_targets
from .recompute_relevance import (
    RecordedAnswerRelevance,
    RecordedContextRelevance,
    answer_relevance_score,
    context_relevance_score,
    recorded_answer_relevance,
    recorded_context_relevance,
)

RECALL_SIGNS = {"p_yes": 1, "p_partly": 1, "closeness": 1}
"""The signals a fitted recall may read, each with the sign its coefficient must have."""
FACTOR_STEP = 0.05
MIN_ROWS = 4


def fit_context_relevance(items: Sequence[RecordedContextRelevance], labels: Sequence[float], kind: LabelKind,
                          start: ContextRelevanceParameters, levels: Sequence[float] = (0.0, 1.0),
                          groups: Sequence[str] | None = None) -> ContextRelevanceParameters:
    """`start` with its recall replaced by a monotone logistic model fitted on the judged items,
    when that model does better than `start`'s recall on held-out inner folds; else `start`."""
    grouped = groups if kind == "binary" else None

    def fit_on(train_items: Sequence[RecordedContextRelevance], train_labels: Sequence[float],
               train_groups: Sequence[str] | None = None):
        return fit_recall(train_items, train_labels, start, levels, train_groups)

    if not fit_beats_start(items, labels, kind, start, fit_on, context_relevance_score, levels, grouped):
        return start
    return fit_recall(items, labels, start, levels, grouped)


def fit_recall(items: Sequence[RecordedContextRelevance], labels: Sequence[float],
               start: ContextRelevanceParameters, levels: Sequence[float] = (0.0, 1.0),
               groups: Sequence[str] | None = None) -> ContextRelevanceParameters:
    """`start` with its recall replaced by a monotone logistic model fitted on the judged items;
    with `groups` (binary labels), its direction fitted on within-group contrasts first."""
    judged = [(recall_features(r.signals), target, None if groups is None else groups[i])
              for i, (r, target) in enumerate(zip(items, unit_targets(labels, levels))) if r.judgment is not None]
    if len(judged) < MIN_ROWS:
        raise FitError(f"only {len(judged)} item(s) with a judged context: a fit needs more labelled items")
    signs = {name: sign for name, sign in RECALL_SIGNS.items() if all(name in row for row, _, _ in judged)}
    rows, targets = [row for row, _, _ in judged], [t for _, t, _ in judged]
    direction = None if groups is None else _within_group_direction(judged, signs)
    if direction is None:
        intercept, coefficients = monotone_logistic(rows, targets, signs)
    else:
        projected = [{"z": sum(w * row[name] for name, w in direction.items())} for row in rows]
        intercept, scale = monotone_logistic(projected, targets, {"z": 1})
        coefficients = {name: w * scale.get("z", 0.0) for name, w in direction.items()}
    return start.model_copy(update={"recall": LogisticRecall(intercept=intercept, coefficients=coefficients)})


def _within_group_direction(judged: Sequence[tuple[dict[str, float], float, str | None]],
                            signs: dict[str, int]) -> dict[str, float] | None:
    """Monotone weights of the signals from a conditional logit on the groups' (relevant,
    irrelevant) pairs; None when the labels hold fewer than `MIN_ROWS` such pairs, or no signal
    separates them."""
    differences = []
    for good, bad in within_group_pairs([target for _, target, _ in judged], [group for _, _, group in judged]):
        difference = {name: judged[good][0][name] - judged[bad][0][name] for name in signs}
        differences += [(difference, 1.0), ({name: -v for name, v in difference.items()}, 0.0)]
    if len(differences) < 2 * MIN_ROWS:
        return None
    _, weights = monotone_logistic([d for d, _ in differences], [t for _, t in differences], signs)
    return weights or None


def factor_grid(step: float = FACTOR_STEP) -> list[dict[str, float]]:
    """Every directness factor set with direct = 1 >= partial >= evasive >= 0 on the grid."""
    values = [round(i * step, 10) for i in range(int(round(1 / step)) + 1)]
    return [{"direct": 1.0, "partial": partial, "evasive": evasive}
            for partial, evasive in itertools.product(values, values) if evasive <= partial]


def fit_answer_relevance(items: Sequence[RecordedAnswerRelevance], labels: Sequence[float], kind: LabelKind,
                         start: AnswerRelevanceParameters, levels: Sequence[float] = (0.0, 1.0),
                         groups: Sequence[str] | None = None) -> AnswerRelevanceParameters:
    """`start` with the directness factors that agree best with the labels on the grid (`groups`
    is not read: the grid's objective is per item)."""
    judged = [(r, label) for r, label in zip(items, labels) if r.judgment is not None]
    if len(judged) < MIN_ROWS:
        raise FitError(f"only {len(judged)} item(s) with a judged answer: a fit needs more labelled items")
    if len({label for _, label in judged}) < 2:
        raise FitError("every label is the same: a fit needs both good and bad items")

    def quality(candidate: AnswerRelevanceParameters) -> float:
        scores = [answer_relevance_score(r, candidate) for r, _ in judged]
        value = fit_objective(scores, [label for _, label in judged], kind, levels)
        return -math.inf if value is None else value

    def distance(candidate: AnswerRelevanceParameters) -> float:  # ties keep the start's values
        return (sum(abs(candidate.directness_factor[level] - start.directness_factor[level])
                    for level in start.directness_factor) + (candidate.answered_from != start.answered_from))

    candidates = [AnswerRelevanceParameters(directness_factor=factors, answered_from=reading, reply=start.reply)
                  for reading in ("probabilities", "labels") for factors in factor_grid()]
    return max(candidates, key=lambda candidate: (round(quality(candidate), 9), -distance(candidate)))


CONTEXT_RELEVANCE_FITTING = MetricFitting(recorded_context_relevance,
                                          MetricFit(context_relevance_score, fit_context_relevance))
"""Context relevance as `calibrate` fits it (`calibration.relevance_decisions.CONTEXT_RELEVANCE_CALIBRATION`)."""

ANSWER_RELEVANCE_FITTING = MetricFitting(recorded_answer_relevance,
                                         MetricFit(answer_relevance_score, fit_answer_relevance))
"""Answer relevance as `calibrate` fits it (`calibration.relevance_decisions.ANSWER_RELEVANCE_CALIBRATION`)."""
