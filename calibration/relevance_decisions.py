"""Context and answer relevance: from the judge's graded replies to the seed's inputs.

The seeds' combinations stay in the nodes (w*recall + (1-w)*precision with the goal weights;
parts answered / parts x directness); what a reply is worth comes from the profile.
"""

from __future__ import annotations

from collections.abc import Mapping

from .profile import AnswerRelevanceParameters, ContextRelevanceParameters


def context_recall(probabilities: Mapping[str, float], parameters: ContextRelevanceParameters) -> float:
    """Recall from P(yes / partly / no) "the context holds what the question needs", 0..1."""
    value = sum(p * parameters.answer_in_context_value.get(label, 0.0) for label, p in probabilities.items())
    return min(1.0, max(0.0, value))


def directness_factor(directness: str, parameters: AnswerRelevanceParameters) -> float:
    return parameters.directness_factor[directness]
