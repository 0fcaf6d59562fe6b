"""What makes a metric calibrated, declared once, next to its decision rule.

A calibrated metric is one a profile holds a section for and `judgegraph calibrate` fits: its
key (the profile's field and the `calibrate --metric` name), its section class (the parameters
its decision reads, with the hash and fit record), the files whose content defines what its
signals mean (the signal hash a fitted section is checked against), and where its fit lives.

Why here, below the nodes: a profile is parsed and hash-checked in this layer, so the profile
model and the hash check loop over these declarations (`calibrated_metrics.CALIBRATED`). The fit
re-scores recorded runs with the nodes' rules, so it lives in `fitting/`, above the nodes; the
declaration names it by reference (`fit`) and `fitting.fitted_metrics` resolves it.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from .signal_hash import signal_hash


@dataclass(frozen=True)
class CalibratedMetric:
    key: str
    section: type[BaseModel]
    """The profile section: `section(parameters=..., signal_hash=..., fit=...)`."""
    signal_sources: tuple[str, ...]
    """Package files whose content defines what its recorded signals mean."""
    fit: str
    """"module:attribute" of its `fitting.metric_fitting.MetricFitting` (how a judged record is
    read back, re-scored and fitted); a module starting with "." is in this package
    (".fitting.faithfulness"), else it is imported by its full name."""

    @property
    def signal_hash(self) -> str:
        """The hash a section fitted on this code's signals records."""
        return signal_hash(self.key, self.signal_sources)
