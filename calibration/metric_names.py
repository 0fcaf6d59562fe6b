"""The calibrated metrics' names, for the command line: read from their declarations, when first
asked.

Why not the tuple itself: the command line checks `calibrate --metric` against these names,
and building the parser (every `judgegraph --help`, `calibrate --help` included) must not load
pydantic, which the declarations' section classes are. So the names are a sequence that reads
`calibrated_metrics.CALIBRATED` the first time a name is looked up (a `--metric` given, an
invalid one named), never while the parser is built; no second list is kept beside the
declarations.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache


@cache
def _declared() -> tuple[str, ...]:
    from .calibrated_metrics import CALIBRATED  # deferred: see the module docstring

    return tuple(metric.key for metric in CALIBRATED)


class CalibratedMetricNames(Sequence[str]):
    """The keys of the calibrated metrics, in the profile's order, read on first use."""

    def __getitem__(self, index):  # type: ignore[override]
        return _declared()[index]

    def __len__(self) -> int:
        return len(_declared())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, (tuple, list, CalibratedMetricNames)) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(_declared())

    def __repr__(self) -> str:
        return repr(_declared())


CALIBRATED_METRICS = CalibratedMetricNames()
"""**The calibrated metrics**' names: one per metric a profile holds a section for."""
