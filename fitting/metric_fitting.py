"""What `judgegraph calibrate` needs of a calibrated metric besides its declaration: how a judged
record is read back and how it is re-scored and fitted.

Why apart from the declaration (`calibration.calibrated_metric`): re-scoring a recorded run uses
the nodes' rules, so it sits in this layer, above the nodes; the declaration names the metric's
`MetricFitting` by reference (`CalibratedMetric.fit`) and `fitted_metrics` resolves it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .cross_validation import MetricFit


@dataclass(frozen=True)
class MetricFitting:
    read: Callable[[dict], Any]
    """A batch record written with `--details` -> the recorded item (None without details)."""
    fitting: MetricFit[Any, Any]
    """How recorded items are scored under parameters and fitted (`cross_validation`)."""
