"""The graph's typed state, and what goes in and comes out.

Fields written by parallel tasks (verdicts, judgments, trace) have reducers, so fanned-out
nodes add to them instead of overwriting each other.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Generic, NotRequired, TypedDict, TypeVar

from pydantic import BaseModel

from ..calibration.profile import Profile
from ..llm.structured import StepOutcome
from ..schemas.claims import CheckedClaim, ExtractedClaims
from ..schemas.conversation import StandaloneQuestion
from ..schemas.metrics import Score
from ..schemas.trace import TraceEvent


V = TypeVar("V")
Signals = TypeVar("Signals")
Parameters = TypeVar("Parameters")


def merge_dicts(left: Mapping[str, V] | None, right: Mapping[str, V] | None) -> dict[str, V]:
    return {**(left or {}), **(right or {})}


def add_counts(left: dict[str, int] | None, right: dict[str, int] | None) -> dict[str, int]:
    total = dict(left or {})
    for key, count in (right or {}).items():
        total[key] = total.get(key, 0) + count
    return total


@dataclass(frozen=True)
class MeasuredSignals(Generic[Signals, Parameters]):
    """What a node measured for its metric, for `finalize` to decide it from: the metric's
    typed signals (`ContextRelevanceSignals`, ...) and the parameters of the profile that reads
    them. The parameters travel with the signals because with `--escalate-to` the judge that
    decided may not be the run's first: its own profile reads its reply (`run.escalation`),
    and `finalize` only knows the run's."""

    signals: Signals
    parameters: Parameters


class JudgeInput(TypedDict, total=False):
    """What a caller passes in."""

    item: Any
    """The item as parsed from JSON: a dict for a well-formed item, anything else otherwise."""
    rubric: str | list[str] | None
    """The rubric(s) to apply when the item does not name one (the CLI's `--rubric`)."""
    field_map: dict[str, str] | None
    """{field: the item's key to read it from} (the CLI's `--map`), for names judgegraph does
    not read by itself (`schemas.field_aliases`)."""


class JudgeOutput(TypedDict, total=False):
    """What a caller gets back."""

    result: dict
    """The rubric's seed-shaped output; with several rubrics, one such output per rubric name.
    Plain JSON on purpose: the typed output models are serialised at the graph's edge
    (`RubricSpec.finalize`), in the seeds' shapes."""
    results: dict[str, dict]
    """Each requested rubric's seed-shaped output, by rubric name."""
    metric_scores: dict[str, dict[str, Score]]
    """Each requested rubric's metrics as decided, by rubric name then metric key: what the
    outputs were rendered from, and what the run's metric records are made from."""
    trace: list[TraceEvent]
    claims: ExtractedClaims | None
    verdicts: list[CheckedClaim]
    rubrics: list[str]
    profile_id: str | None
    """The calibration profile that decided the scores (`JudgeContext.profile`); written once,
    by `finalize`."""


class JudgeState(JudgeInput, JudgeOutput, total=False):
    """Everything the nodes share."""

    inputs: dict[str, BaseModel]
    """Validated input model per rubric that passed validation (the rubric's `input_model`)."""
    input_errors: dict[str, str]
    """Reason per rubric whose input failed validation."""
    verdicts: Annotated[list[CheckedClaim], operator.add]
    judgments: Annotated[dict[str, StepOutcome], merge_dicts]
    """Outcome per single-call step (context relevance, answer relevance, ...)."""
    measured: Annotated[dict[str, MeasuredSignals], merge_dicts]
    """Signals a node measured for a metric, by metric key, where the metric's signals are
    more than its step's reply (context and answer relevance: the probabilities and the profile
    that read them); every metric is decided from the finished state, once, at `finalize`."""
    trace: Annotated[list[TraceEvent], operator.add]
    standalone: StandaloneQuestion | None
    """A conversation's last user turn and the standalone question written for it (or why
    none could be), by `write_standalone_question`; absent for an item without history."""
    results: Annotated[dict[str, dict], merge_dicts]
    fanout_expected: Annotated[dict[str, int], merge_dicts]
    """Tasks a fanning-out node sent, per target node (e.g. {"check_claim": 3})."""
    fanout_done: Annotated[dict[str, int], add_counts]
    """Tasks finished, per target node. `finalize` waits until done == expected, because a
    deferred node does not wait for Send tasks scheduled in the same step (langgraph 1.2)."""


class FinishedState(JudgeState, total=False):
    """What `finalize` hands each rubric's `decide`: the finished state, and the
    calibration profile the run decides with (`run.context.run_profile`). Not a channel of
    the graph: the profile lives in the run's context, this only carries it to the scoring."""

    profile: Profile


class ClaimTask(TypedDict):
    """The payload `extract_claims` sends to each `check_claim` task: one claim and what its check
    reads. Declared here, beside the state, because the producer and the consumer both build on it."""

    index: int
    claim: str
    claims_in_answer: int
    question: str
    answer: str
    passages: list[str]
    language: NotRequired[str | None]
    """The item's language (`ClaimSubject.language`): the text rules' stopwords, decimal
    commas and articles, and the prompt's language line."""
    second_reading: NotRequired[bool]
    """Whether a one-claim answer the check does not support may get the judge's own answer
    (`nodes.claims.second_reading`): only the rag rubric counts it, so only when rag is requested."""
