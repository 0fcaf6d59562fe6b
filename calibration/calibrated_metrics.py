"""**The calibrated metrics**: one line per metric a profile holds a section for.

The profile model (`profile.Profile`: one optional section field per metric, in this order),
the hash check of a loaded profile, the signal hash's sources and the metrics `judgegraph
calibrate` fits (`fitting.fitted_metrics`) are loops over this tuple. A metric's declaration
(`calibrated_metric.CalibratedMetric`) sits next to its decision rule.
"""

from __future__ import annotations

from .calibrated_metric import CalibratedMetric
from .claim_decisions import FAITHFULNESS_CALIBRATION
from .relevance_decisions import ANSWER_RELEVANCE_CALIBRATION, CONTEXT_RELEVANCE_CALIBRATION

CALIBRATED: tuple[CalibratedMetric, ...] = (
    FAITHFULNESS_CALIBRATION,
    CONTEXT_RELEVANCE_CALIBRATION,
    ANSWER_RELEVANCE_CALIBRATION,
)
"""The calibrated metrics, in the profile's field order."""


def calibrated_metric(key: str, metrics: tuple[CalibratedMetric, ...] = CALIBRATED) -> CalibratedMetric:
    """The declaration of the calibrated metric `key`; KeyError names the known ones."""
    for metric in metrics:
        if metric.key == key:
            return metric
    raise KeyError(f"{key!r} is not a calibrated metric ({', '.join(m.key for m in metrics)})")
