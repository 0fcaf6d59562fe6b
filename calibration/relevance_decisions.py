"""Context and answer relevance: from the judge's graded replies to the seed's inputs.

The seeds' combinations stay in the nodes (w*recall + (1-w)*precision with the goal weights;
parts answered / parts x directness); what a reply is worth comes from the profile:

- recall from P(yes / partly / no) "the context holds what the question needs": by default
  P(yes) + P(partly)/2 (the label values); a fitted profile may instead apply a logistic model
  over P(yes), P(partly) and the question-context embedding closeness, every coefficient >= 0,
  so more "yes" or a closer context never lowers recall;
- parts answered and the directness factor of an answer: from the labels the reply wrote (the
  default), or, for a profile with `answered_from: probabilities`, their expectations under the
  judge's P(answered) per part and P(direct / partial / evasive) from the reply's token
  log-probabilities (a 1.5B judge's written labels tie most answers at 0, 0.75 or 1.0).

The same functions run in the graph and when `judgegraph calibrate` recomputes scores from
recorded signals (`fitting.recompute_relevance`), so a recomputed score equals the live one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .calibrated_metric import CalibratedMetric
from .logistic import logistic
from .sections import (
    AnswerRelevanceParameters,
    AnswerRelevanceSection,
    ContextRelevanceParameters,
    ContextRelevanceSection,
    LogisticRecall,
)
from .signal_hash import SHARED_PROMPTS, TEXT_RULES


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


@dataclass(frozen=True)
class AnswerSignals:
    """What was measured about one answer's reply, as recorded in the step's trace detail."""

    answered: tuple[float, ...]
    """P(answered) for each question part, in the reply's order (1/0 without log-probabilities)."""
    directness: Mapping[str, float]
    """P(direct / partial / evasive) (1/0 without log-probabilities)."""


def parts_answered(signals: AnswerSignals) -> float:
    """The number of parts answered that the seed's formula takes: the expected number under
    P(answered) (a count when the signals are the written labels)."""
    return float(sum(signals.answered))


def directness_factor(signals: AnswerSignals, parameters: AnswerRelevanceParameters) -> float:
    """The seed's directness factor, its expectation under P(direct / partial / evasive)."""
    total = sum(signals.directness.values()) or 1.0
    return sum(p * parameters.directness_factor[level] for level, p in signals.directness.items()) / total


CONTEXT_RELEVANCE_CALIBRATION = CalibratedMetric(
    key="context_relevance",
    section=ContextRelevanceSection,
    signal_sources=(
        "nodes/rag/context_relevance.py", "nodes/rag/question_closeness.py", "text/segmentation.py",
        "run/context_view.py",
        "llm/verdict_probabilities.py", "llm/embeddings.py", *TEXT_RULES, *SHARED_PROMPTS,
        "prompts/judge_context_relevance.j2",
    ),
    fit=".fitting.relevance:CONTEXT_RELEVANCE_FITTING",
)
"""Context relevance is fitted per context: the recall model `context_recall` reads."""

ANSWER_RELEVANCE_CALIBRATION = CalibratedMetric(
    key="answer_relevance",
    section=AnswerRelevanceSection,
    signal_sources=("nodes/rag/answer_relevance.py", "run/context_view.py", "llm/verdict_probabilities.py",
                    "llm/boolean_probabilities.py", *SHARED_PROMPTS, "prompts/judge_answer_relevance.j2",
                    "prompts/judge_answer_relevance_labels.j2", "nodes/rag/answer_relevance_explanation.py"),
    fit=".fitting.relevance:ANSWER_RELEVANCE_FITTING",
)
"""Answer relevance is fitted per answer: the directness factors and where parts answered come from."""
