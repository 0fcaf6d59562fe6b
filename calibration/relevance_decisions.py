"""Context and answer relevance: from the judge's graded replies to the seed's inputs.

The seeds' combinations stay in the nodes (w*recall + (1-w)*precision with the goal weights;
parts answered / parts x directness); what a reply is worth comes from the profile:

- recall from P(yes / partly / no) "the context holds what the question needs": by default
  P(yes) + P(partly)/2 (the label values); a fitted profile may instead apply a logistic model
  over P(yes), P(partly) and the question-context embedding closeness, every coefficient >= 0,
  so more "yes" or a closer context never lowers recall;
- the directness factor of an answer that is direct, partial or evasive.

The same functions run in the graph and when `judgegraph calibrate` recomputes scores from
recorded signals (`calibration.recompute_relevance`), so a recomputed score equals the live one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .logistic import logistic
from .profile import AnswerRelevanceParameters, ContextRelevanceParameters, LogisticRecall


@dataclass(frozen=True)
class RecallSignals:
    """What was measured about one context, as recorded in the step's trace detail."""

    probabilities: Mapping[str, float]
    """P(yes / partly / no) from the reply's token log-probabilities (1/0 without them)."""
    closeness: float | None = None
    """The closest context line's embedding similarity to the question (0..1); None when not
    measured (no embedder, or neither the profile nor `record_all_signals` asked for it)."""


def recall_features(signals: RecallSignals) -> dict[str, float]:
    """The signals a fitted recall model may read, by name (`profile.RecallFeature`); closeness
    only when it was measured."""
    features = {"p_yes": float(signals.probabilities.get("yes", 0.0)),
                "p_partly": float(signals.probabilities.get("partly", 0.0))}
    if signals.closeness is not None:
        features["closeness"] = float(signals.closeness)
    return features


def context_recall(signals: RecallSignals, parameters: ContextRelevanceParameters) -> float | None:
    """Recall, 0..1; None when the profile's model reads a signal this run did not measure."""
    model = parameters.recall
    if isinstance(model, LogisticRecall):
        features = recall_features(signals)
        if any(name not in features for name in model.coefficients):
            return None
        return logistic(model.intercept, model.coefficients, features)
    value = sum(p * parameters.answer_in_context_value.get(label, 0.0) for label, p in signals.probabilities.items())
    return min(1.0, max(0.0, value))


def directness_factor(directness: str, parameters: AnswerRelevanceParameters) -> float:
    return parameters.directness_factor[directness]
