"""What a metric is and does, declared once, in the module that computes it.

`MetricSpec` says what a metric is (key, kind, scale, where its value sits in the output);
`MetricDeclaration` adds what it does: its nodes and the one(s) the plan sends for it, how its score is
taken from a finished run, its decision as a pure function of its signals and the profile's
parameters (`decide`: what a test or `judgegraph calibrate` calls with signals alone), how its
metric record's signals are read from a run's details, the source files its signal hash
covers, and, when `judgegraph calibrate` fits it, its calibration declaration.

Why: a rubric's plan, its scorers, its metric records' signals, the signal hash and the fitted
metrics are loops over the declarations, so adding a metric is one module and one line in its
rubric's tuple (docs/adding-a-metric.md), not an entry in five name-keyed tables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from ..calibration.calibrated_metric import CalibratedMetric
from ..calibration.profile import Profile
from ..schemas.metrics import Score
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
    score: Callable[[Mapping[str, Any], Any, Profile], Score]
    """(finished state, validated input, the run's profile) -> the metric: its decision, made
    once, here, from the signals its steps wrote in the state (the step's reply, the claims'
    verdicts, or what a node measured with the deciding judge's parameters, `measured`); no
    node decides a metric. Named `score_<metric>`."""
    decide: Callable[[Signals, Parameters], Score]
    """The decision from the metric's signals and the profile's parameters, pure. Named
    `decide_<metric>`."""
    read_signals: Callable[[RunDetails], dict[str, Any]]
    """A results file's details -> what its metric record carries as `signals` (empty without
    them): for an output read back from a file, where no `Score` travels."""
    record_signals: Callable[[Mapping[str, Any], Any], dict[str, Any]] | None = None
    """(finished state, validated input) -> what its metric record carries as `signals`, from the
    typed state its steps wrote (`Score.signals` of a finished run); the same values
    `read_signals` reads from the run's details. None: the decision's own `Score.signals`."""
    calibration: CalibratedMetric | None = None
    """Its calibration declaration when `judgegraph calibrate` fits it (a profile holds a section
    for it: `calibration.calibrated_metrics`); its signal sources are that declaration's."""
    signal_sources: tuple[str, ...] = ()
    """Package files whose content defines what its signals mean (`calibration.signal_hash`);
    a calibrated metric's come from its `calibration`, so it does not repeat them."""
    needs_context: bool = False
    """Judges the answer or the question against the item's context: not judged for an item
    that gives none (`RagInput.context_given`), its explanation says so."""
    reads_question: bool = False
    """Judges the question (relevance): when a conversation's standalone question cannot be
    written, its entry nodes are not sent and it fails with that reason
    (`graph.every_item.standalone_question`)."""
    label: str = ""
    """Its name in prose, where a rubric's output names it in a sentence (liverag's notes:
    "Relevance: 2 — ...")."""
    applies: Callable[[Any], bool] | None = None
    """(validated input) -> whether an item that does not name the metric in its `metrics` is
    judged for it (citations: the answer carries markers). None: every item. A metric that
    does not apply is not judged and its keys are absent from the output, so an item's output
    holds only what was judged for it (the rag seed's 11 keys stay exactly the seed's)."""
    output_block: tuple[str, Any] | None = None
    """(field, model): an output field after the metric's score and explanation holding its
    per-item breakdown, taken from `Score.breakdown` (citations: each sentence with
    its markers and verdicts; coverage: its rationale bullets, `list[str]`); metrics sharing a
    block write it once."""

    def __post_init__(self) -> None:
        if self.calibration is not None:
            if self.signal_sources and self.signal_sources != self.calibration.signal_sources:
                raise ValueError(f"{self.key}: its signal sources are its calibration's; do not repeat them")
            if self.calibration.key != self.key:
                raise ValueError(f"{self.key}: its calibration declares {self.calibration.key!r}")
            object.__setattr__(self, "signal_sources", self.calibration.signal_sources)

    @property
    def key(self) -> str:
        return self.spec.key

    @property
    def calibrated(self) -> bool:
        """Fitted by `judgegraph calibrate` (it declares its `calibration`)."""
        return self.calibration is not None


def decided(metric: MetricDeclaration, state: Mapping[str, Any], item: Any, profile: Profile | None) -> Score:
    """The metric of a finished run, decided once (`score`), with its record's signals from the
    typed state (`record_signals`): what every consumer of the run reads."""
    score = metric.score(state, item, profile)
    signals = metric.record_signals(state, item) if metric.record_signals is not None else score.signals
    return replace(score, signals=signals, scale=score.scale or metric.spec.scale)


def declared_nodes(metrics: tuple[MetricDeclaration, ...]) -> tuple[NodeSpec, ...]:
    """Every metric's nodes, in metric order, each once: a rubric's `RubricSpec.nodes`."""
    unique: dict[str, NodeSpec] = {}
    for metric in metrics:
        for node in metric.nodes:
            unique.setdefault(node.name, node)
    return tuple(unique.values())


def entry_nodes(metrics: tuple[MetricDeclaration, ...]) -> list[str]:
    """The entry nodes of `metrics`, in metric order, each once: what a plan sends for them."""
    return list(dict.fromkeys(node for metric in metrics for node in metric.entry_nodes))


def question_nodes(metrics: tuple[MetricDeclaration, ...]) -> tuple[str, ...]:
    """The entry nodes of the metrics that judge the question (`MetricDeclaration.reads_question`):
    a rubric's `RubricSpec.question_nodes`."""
    return tuple(entry_nodes(tuple(metric for metric in metrics if metric.reads_question)))
