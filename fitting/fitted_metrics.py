"""The metrics `judgegraph calibrate` can fit, each as what the command needs of it: how a
judged record is read back, how it is scored and fitted (`cross_validation.MetricFit`), and
the profile section the fit is written in.

Why one table: the command, the cross-validation and the profile treat every metric alike; what
differs (faithfulness per claim, context relevance's recall, answer relevance's directness) is
in the modules named here, so adding a metric is one entry, not a copy of the command.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..calibration.profile import AnswerRelevanceSection, ContextRelevanceSection, FaithfulnessSection
from ..nodes.rag.metrics import DECLARED
from .cross_validation import MetricFit
from .faithfulness import fit_faithfulness
from .recompute import faithfulness_score, recorded_faithfulness
from .recompute_relevance import (
    answer_relevance_score,
    context_relevance_score,
    recorded_answer_relevance,
    recorded_context_relevance,
)
from .relevance import fit_answer_relevance, fit_context_relevance


@dataclass(frozen=True)
class FittedMetric:
    """A metric `judgegraph calibrate` fits: what cross-validation needs of it (`fitting`),
    plus what only the command needs (reading a judged record back, the profile section)."""

    name: str
    read: Callable[[dict], Any]
    """A batch record written with `--details` -> the recorded item (None without details)."""
    fitting: MetricFit[Any, Any]
    section: Callable[..., Any]
    """The profile section class: `section(parameters=..., signal_hash=..., fit=...)`."""


_FITTING: dict[str, tuple[Callable[[dict], Any], MetricFit[Any, Any], Callable[..., Any]]] = {
    "faithfulness": (recorded_faithfulness, MetricFit(faithfulness_score, fit_faithfulness), FaithfulnessSection),
    "context_relevance": (recorded_context_relevance, MetricFit(context_relevance_score, fit_context_relevance),
                          ContextRelevanceSection),
    "answer_relevance": (recorded_answer_relevance, MetricFit(answer_relevance_score, fit_answer_relevance),
                         AnswerRelevanceSection),
}
"""How calibration reads, recomputes and fits each metric a profile holds a section for."""

FITTED_METRICS: dict[str, FittedMetric] = {
    metric.key: FittedMetric(metric.key, *_FITTING[metric.key]) for metric in DECLARED if metric.calibrated
}
"""The rag metrics whose declaration says `calibrate` fits them, in the rubric's order."""
