"""What a rubric declares: the one type each rubric folder fills in and every consumer reads.

Each rubric folder declares itself once (`nodes/<rubric>/rubric.py`, `RUBRIC = RubricSpec(...)`)
and `graph.rubrics` lists the declarations. The graph builder, input validation, finalize, the
metrics view, the evaluators, the batch records and summary, and the report read them from
there (docs/adding-a-rubric.md). This module imports no rubric and nothing of the graph, so
both sides can import it without a cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from ..schemas.metrics import MetricRecord, Score

TextsToEmbed = Callable[[Any, Any], list[str]]
"""(the item's state after validation, the run's context or None) -> the texts a node will embed."""

MetricKind = Literal["score", "ordinal", "label"]
"""`score`: a number anywhere on its scale (rag's 0..1); `ordinal`: whole steps of its scale
(liverag's -1..2, coverage's 0..5); `label`: a category, no number. A metric that is a score
for some items and a label for others (expected_output) is a `score` with a `label_field`."""


@dataclass(frozen=True)
class MetricSpec:
    """One metric of a rubric: its name in feedback rows and report columns, its scale, and
    where its value sits in the rubric's seed-shaped output."""

    key: str
    kind: MetricKind
    scale: tuple[float, float] | None
    """None when each output carries its own range (expected_output's `min_range`/`max_range`)."""
    field: str
    """Dotted path of the value in the seed output (`"relevance_score"`, `"evaluation.result.score"`):
    the batch summary's column for this metric."""
    label_field: str | None = None
    """Where a categorical result puts its label instead of a score (expected_output's
    `categorical` type), if the metric can be one."""
    from_claims: bool = False
    """Scored from the shared claim pipeline's verdicts: its feedback row lists the claims."""


@dataclass(frozen=True)
class NodeSpec:
    """A node a rubric needs. Nodes shared by rubrics (same name) are added once."""

    name: str
    action: Callable[..., Any]
    destinations: tuple[str, ...] | None = None
    """For nodes that route with `Command(goto=...)`: where they may go. Nodes without
    destinations get a plain edge to `finalize`."""
    embeds: TextsToEmbed | None = None
    """The texts this node will embed for an item, when it embeds any: `embed_item` embeds every
    planned node's texts in one batch before the item's first model call
    (`graph.every_item.item_embeddings`), and the node reads them back from the process's cache."""


ItemBuilder = Callable[[Any, Any, Any, Mapping[str, Any]], dict]
"""LangSmith's `(inputs, outputs, reference_outputs, other kwargs)` -> the rubric's item."""

MetricsReader = Callable[[dict, tuple[str, ...] | None, Mapping[str, Any] | None], list[MetricRecord]]
"""(seed output, selected metrics or None, the run's details or None) -> its metric records.
For an output read back from a results file, where no `Score` travels: the details are the
`--details` / `--trace-out` shape (`nodes`, `claims`, `verdicts`); with them the records carry
the signals the run measured."""

Scores = Mapping[str, Score]
"""One rubric's decided metrics, by metric key, in output order."""

ScoreRecords = Callable[[Scores, dict, tuple[str, ...] | None], list[MetricRecord]]
"""(the run's scores, the output rendered from them, selected metrics or None) -> its metric
records: status, failure cause and signals from the typed scores, the rest as rendered."""


@dataclass(frozen=True)
class RubricSpec:
    """Everything judgegraph knows about one rubric."""

    name: str
    signature_keys: tuple[str, ...]
    """An item holding any of these keys may be this rubric: auto-detection weighs the rubrics
    they point to by the keys each reads (`graph.every_item.input_fields.infer_rubric`)."""
    field_labels: Mapping[str, str]
    """Human names of input fields, for failure reasons ("missing user question")."""
    input_model: type[BaseModel]
    output_models: tuple[type[BaseModel], ...]
    """The pydantic models its outputs are: the judged shape first, then any other failure shape."""
    metrics: tuple[MetricSpec, ...]
    """Its metrics, in output order: one feedback row, report column and summary line each."""
    nodes: tuple[NodeSpec, ...]
    """Every node the rubric may run (entry nodes and fanned-out ones)."""
    plan: Callable[[Any], list[str]]
    """Node names to run for a validated input."""
    decide: Callable[[Mapping[str, Any], Any], Scores]
    """(finished state, validated input) -> one `Score` per metric of its output: each metric
    decided once, by its declaration's `score` (`MetricDeclaration.score`)."""
    build_result: Callable[[Scores, Any, Mapping[str, Any]], BaseModel]
    """(the decided scores, validated input, finished state) -> the typed output, rendered from
    the scores (the state only for notes that are no metric's, such as an earlier turn's)."""
    build_failure: Callable[[str], BaseModel]
    """reason -> the typed failure output, with no model call."""
    read_metrics: MetricsReader
    """Its seed-shaped output, read back from a file -> its metric records (`MetricsReader`)."""
    score_records: ScoreRecords
    """A judged run's scores and output -> its metric records (`ScoreRecords`)."""
    evaluator_item: ItemBuilder
    """The rubric's item from what a LangSmith evaluator is called with."""
    build_error: Callable[[str], BaseModel] | None = None
    """error -> the typed output of an item whose judging broke (a judge or internal failure,
    not the input's fault). None when the input-failure shape already says "not judged"; a
    rubric whose input-failure shape holds a score (coverage's 0 for missing content) must
    declare it, so a crash never reports a number nobody computed."""
    failure_scores: Callable[[str], Scores] | None = None
    """reason -> the scores `build_failure`'s shape stands for, when not every metric failed
    (coverage's missing content is judged, 0). None: every metric failed for the reason."""
    context_fields: tuple[str, ...] = ()
    """Item keys holding retrieved context: the report highlights evidence quotes there."""
    selectable_metrics: bool = False
    """Whether an item's `metrics` key (and an evaluator's `metrics=`) may pick a subset."""
    field_aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Other names each input field is read from, its own name first (`schemas.field_aliases`:
    RAGAS, DeepEval, LangChain). A rubric without them reads its own names only."""

    question_nodes: tuple[str, ...] = ()
    """Its nodes that judge the question (relevance): when a conversation's standalone question
    cannot be written they are not sent, and their metrics fail with the reason
    (`graph.every_item.standalone_question`)."""

    def finalize(self, state: Mapping[str, Any], validated: Any) -> tuple[dict, Scores]:
        """The scores, decided once, and the seed-shaped output rendered from them, serialised
        here, at the graph's edge."""
        scores = self.decide(state, validated)
        return self.build_result(scores, validated, state).model_dump(), scores

    def failed_scores(self, reason: str) -> Scores:
        """The scores of an input that could not be judged for `reason`: the rubric's
        `failure_scores`, else every metric failed with it."""
        if self.failure_scores is not None:
            return self.failure_scores(reason)
        return {metric.key: Score(None, reason, reason, scale=metric.scale) for metric in self.metrics}

    def failed(self, reason: str) -> dict:
        """The seed-shaped failure output for `reason`."""
        return self.build_failure(reason).model_dump()

    def errored(self, error: str) -> dict:
        """The seed-shaped output of an item whose judging broke, with `error` as the reason."""
        return (self.build_error or self.build_failure)(error).model_dump()

    def metric(self, key: str) -> MetricSpec | None:
        return next((spec for spec in self.metrics if spec.key == key), None)
