"""What a metric is and does, declared once, in the module that computes it.

`MetricSpec` says what a metric is (key, kind, scale, where its value sits in the output);
`MetricDeclaration` adds what it does: its nodes and the one(s) the plan sends for it, how its score is
taken from a finished run, its decision as a pure function of its signals and the profile's
parameters (`decide`: what a test or `judgegraph calibrate` calls with signals alone), how its
metric record's signals are read from a run's details, the source files its signal hash
covers, and whether `judgegraph calibrate` fits it.

Why: a rubric's plan, its scorers, its metric records' signals, the signal hash and the fitted
metrics are loops over the declarations, so adding a metric is one module and one line in its
rubric's tuple (docs/adding-a-metric.md), not an entry in five name-keyed tables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from ..calibration.profile import Profile
from ..schemas.metrics import MetricScore
from .rubric_spec import MetricSpec, NodeSpec

Signals = TypeVar("Signals")
Parameters = TypeVar("Parameters")

RunDetails = Mapping[str, Any] | None
"""A run's details (`--details` / `--trace-out`: `nodes`, `claims`, `verdicts`), or None."""


@dataclass(frozen=True)
class MetricDeclaration(Generic[Signals, Parameters]):
    """One metric of a rubric: what it is (`spec`) and what it does."""

    spec: MetricSpec
    entry_nodes: tuple[str, ...]
    """The node(s) the plan sends when the metric is requested (fanned-out nodes follow)."""
    nodes: tuple[NodeSpec, ...]
    """Every node the metric may run (its entry nodes and the ones they fan out to); a node
    shared with another metric or rubric (same name) is added to the graph once."""
    score: Callable[[Mapping[str, Any], Any, Profile], MetricScore]
    """(finished state, validated input, the run's profile) -> the metric: its decision, made
    once (in its node, or here from the state's signals). Named `score_<metric>`."""
    decide: Callable[[Signals, Parameters], MetricScore]
    """The decision from the metric's signals and the profile's parameters, pure. Named
    `decide_<metric>`."""
    read_signals: Callable[[RunDetails], dict[str, Any]]
    """The run's details -> what its metric record carries as `signals` (empty without them)."""
    signal_sources: tuple[str, ...] = ()
    """Package files whose content defines what its signals mean (`calibration.signal_hash`)."""
    calibrated: bool = False
    """Fitted by `judgegraph calibrate` (a profile holds a section for it)."""
    applies: Callable[[Any], bool] | None = None
    """(validated input) -> whether an item that does not name the metric in its `metrics` is
    judged for it (citations: the answer carries markers). None: every item. A metric that
    does not apply is not judged and its keys are absent from the output, so an item's output
    holds only what was judged for it (the rag seed's 11 keys stay exactly the seed's)."""
    output_block: tuple[str, type[BaseModel]] | None = None
    """(field, model): an output field after the metric's score and explanation holding its
    per-item breakdown, taken from `MetricScore.signals[field]` (citations: each sentence with
    its markers and verdicts); metrics sharing a block write it once."""

    @property
    def key(self) -> str:
        return self.spec.key
