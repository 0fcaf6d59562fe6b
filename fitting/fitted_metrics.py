"""The metrics `judgegraph calibrate` can fit, each as what the command needs of it: how a
judged record is read back, how it is scored and fitted (`cross_validation.MetricFit`), and
the profile section the fit is written in.

Why a loop: every calibrated metric is declared once (`calibration.calibrated_metrics.CALIBRATED`),
and its declaration names its fitting (`CalibratedMetric.fit`, "module:attribute" in this
package or by its full name), so the command, the cross-validation and the profile treat every metric alike and
adding a metric adds no entry here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..calibration.calibrated_metric import CalibratedMetric
from ..calibration.calibrated_metrics import CALIBRATED
from .cross_validation import MetricFit
from .metric_fitting import MetricFitting

PACKAGE = __name__.rsplit(".", 2)[0]
"""The package a relative fit reference (".fitting.faithfulness") is in (`judgegraph`)."""


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
    signal_hash: str
    """The hash the fitted section records (`CalibratedMetric.signal_hash`)."""


def resolved_fitting(reference: str) -> MetricFitting:
    """The `MetricFitting` a declaration's "module:attribute" reference names; TypeError when
    it names something else."""
    module, _, attribute = reference.partition(":")
    found = getattr(importlib.import_module(module, package=PACKAGE), attribute)
    if not isinstance(found, MetricFitting):
        raise TypeError(f"{reference} is a {type(found).__name__}, not a MetricFitting")
    return found


def fitted_metrics(metrics: tuple[CalibratedMetric, ...] = CALIBRATED) -> dict[str, FittedMetric]:
    """Every calibrated metric as `calibrate` fits it, by key, in the declarations' order."""
    fitted = {}
    for metric in metrics:
        fitting = resolved_fitting(metric.fit)
        fitted[metric.key] = FittedMetric(metric.key, fitting.read, fitting.fitting, metric.section, metric.signal_hash)
    return fitted


FITTED_METRICS: dict[str, FittedMetric] = fitted_metrics()
"""The calibrated metrics `judgegraph calibrate` fits, in the profile's order."""
