"""The simple way in: `evaluate(item, model=...)` returns the rubric's seed-shaped output.

`run_evaluation` returns the whole run (result, trace, claims, verdicts) for callers that want
to show or store how the score came about.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from typing_extensions import TypedDict

from ..llm.embedding_availability import warn_if_embeddings_missing
from ..run.judge_builder import ModelSpec, build_judge
from ..run.state import JudgeInput, JudgeOutput
from ..schemas.claims import CheckedClaim, ExtractedClaims
from ..schemas.metrics import Score
from ..schemas.trace import TraceEvent
from .builder import build_graph
from .every_item.input_fields import checked_field_map


OFF_LOOP_TEXT_CHARS = 10_000
"""An item holding at least this many characters of text is judged off the event loop.

Why: the code-side text rules (sentences, words, numbers, refusal cues, evidence lines) are
linear in the item's text but not free, and under `ainvoke` they run on the event loop between
model calls; for a long item that is long enough to hold up every other item of a batch. Such an
item is judged with the blocking path (`run_evaluation`) in a worker thread, the loop meanwhile
serving the other items. Shorter items stay on the loop: their text work costs less than the
thread hop."""


MAX_ITEM_TEXT_CHARS = 1_000_000
"""The most characters of text `evaluate`, `run_evaluation` and `arun_evaluation` judge in one
item unless told otherwise (`max_item_chars=`): the batch's and the CLI's 1 MB line limit, as
text. Why a limit: the text rules are linear in the item and every prompt grows with it, so a
20 MB passage holds a caller (a served graph, an evaluator) for many minutes of CPU. The batch
and the CLI pass None: they bound each item's bytes as they read it (`--max-line-bytes`)."""


class ItemTooLargeError(ValueError):
    """An item holds more text than the caller's limit; nothing was judged."""


def check_item_size(chars: int, limit: int | None,
                    remedy: str = "raise it with max_item_chars=, or None for no limit") -> None:
    """Raise `ItemTooLargeError` when `chars` is over `limit`.

    Args:
        chars: the item's characters of text (`text_chars`).
        limit: the most allowed; None: no limit.
        remedy: what the caller can do about it, ending the message.
    """
    if limit is not None and chars > limit:
        raise ItemTooLargeError(f"the item holds {chars:,} characters of text, over the limit of {limit:,}: "
                                f"nothing was judged ({remedy})")


def text_chars(value: Any) -> int:
    """The characters of text in a parsed JSON value (strings, at any depth, keys included),
    and in the LangChain `Document`s an item from Python may hold as its context.

    Args:
        value: a parsed JSON value (dicts, lists, tuples, strings, numbers, None), or one
            holding `Document`s (their `page_content`).
    """
    total = 0
    pending = [value]
    while pending:
        current = pending.pop()
        if isinstance(current, str):
            total += len(current)
        elif isinstance(current, dict):
            pending.extend(current.keys())
            pending.extend(current.values())
        elif isinstance(current, list | tuple):
            pending.extend(current)
        elif isinstance(getattr(current, "page_content", None), str):
            total += len(current.page_content)
    return total


def _config(max_concurrency: int | None, callbacks: list[BaseCallbackHandler] | None = None) -> RunnableConfig:
    """The run's config: LangGraph's default (unbounded fan-out) unless a limit is given; the
    caller's callback handlers, which observe the run (`telemetry.step_clock`) and change nothing."""
    config: RunnableConfig = {"max_concurrency": max_concurrency} if max_concurrency else {}
    if callbacks:
        config["callbacks"] = callbacks
    return config


@lru_cache(maxsize=1)
def default_graph() -> CompiledStateGraph:
    """The compiled graph, built once per process."""
    return build_graph().compile()


class Usage(TypedDict):
    """What judging an item cost: model calls and tokens, summed over its trace."""

    calls: int
    input_tokens: int
    output_tokens: int


@dataclass
class EvaluationRun:
    """One item's result plus everything that explains it."""

    result: dict
    results: dict[str, dict]
    rubrics: list[str]
    trace: list[TraceEvent] = field(default_factory=list)
    claims: ExtractedClaims | None = None
    verdicts: list[CheckedClaim] = field(default_factory=list)
    profile_id: str | None = None
    """The calibration profile that decided the scores (`JudgeContext.profile`)."""
    scores: dict[str, dict[str, Score]] = field(default_factory=dict)
    """Each rubric's metrics as decided (`schemas.metrics.Score`), by rubric then metric key:
    what `result` was rendered from and what its metric records are made from
    (`graph.metrics_view.run_metrics`)."""

    @property
    def usage(self) -> Usage:
        return {
            "calls": sum(e.calls for e in self.trace),
            "input_tokens": sum(e.input_tokens for e in self.trace),
            "output_tokens": sum(e.output_tokens for e in self.trace),
        }

    @property
    def input_fields(self) -> dict[str, Any]:
        """How the item was read (the first node's trace detail): `rubric_from` ("item",
        "requested" or "keys"), and when there is anything to say, `read_as` ({field: the
        item's key}), `unused_keys` and `map_notes`."""
        first = next((event for event in self.trace if event.node == "validate_input"), None)
        if first is None:
            return {}
        return {key: value for key, value in first.detail.items() if key != "rubrics"}

    def trace_json(self) -> dict[str, Any]:
        """The trace as written by `--trace-out`: nodes in order, claims with their verdicts."""
        return {
            "rubrics": self.rubrics,
            "profile": self.profile_id,
            "usage": self.usage,
            "nodes": [event.model_dump() for event in self.trace],
            "claims": self.claims.model_dump() if self.claims else None,
            "verdicts": [
                v.model_dump() | {"effective_verdict": v.effective_verdict}
                for v in sorted(self.verdicts, key=lambda v: v.index)
            ],
        }


def _run(output: JudgeOutput) -> EvaluationRun:
    return EvaluationRun(
        result=output["result"],
        results=output.get("results", {}),
        rubrics=output.get("rubrics", []),
        trace=output.get("trace", []),
        claims=output.get("claims"),
        verdicts=sorted(output.get("verdicts", []), key=lambda v: v.index),
        profile_id=output.get("profile_id"),
        scores=output.get("metric_scores", {}),
    )


def graph_input(item: Any, rubric: str | list[str] | None, field_map: str | Mapping[str, str] | None) -> JudgeInput:
    """The graph's input; a field map the reader cannot use raises `FieldMapError` (a
    ValueError) here, in the caller's code, before anything runs.

    Args:
        item: the item as parsed from JSON (anything: an invalid item gets a failed result).
        rubric: the rubric(s) to apply when the item names none (the CLI's `--rubric`).
        field_map: {field: the item's key to read it from}, or its `"field=key,..."` text.
    """
    state: JudgeInput = {"item": item, "rubric": rubric}
    if field_map:
        state["field_map"] = checked_field_map(field_map)
    return state


def run_evaluation(
    item: Any,
    *,
    model: ModelSpec = None,
    rubric: str | list[str] | None = None,
    max_concurrency: int | None = None,
    field_map: str | Mapping[str, str] | None = None,
    callbacks: list[BaseCallbackHandler] | None = None,
    max_item_chars: int | None = MAX_ITEM_TEXT_CHARS,
    **settings: Any,
) -> EvaluationRun:
    """Judge one item and keep everything that explains its score.

    With no model, the default judge is resolved (see `llm.models.default_model`).

    Args:
        item: the item as parsed from JSON, in any field names judgegraph reads (RAGAS,
            DeepEval, LangChain; docs/input-fields.md); an invalid item gets a failed result.
        model: a chat model, a full `JudgeContext`, a model named as the CLI names it
            (`"openai:gpt-4o-mini"`, `"local"`, or one served at `base_url=`), or None for the
            default judge (`JUDGEGRAPH_MODEL`, `OPENAI_BASE_URL`, else the embedded model).
        rubric: the rubric(s) to apply when the item names none; None: found from its keys.
        max_concurrency: the most steps of the item run at once, at each level: LangGraph's
            nodes, and the claim checks inside the claims node (1: one call at a time; N:
            at most 2N - 1 calls; docs/architecture.md, "The claims node"); None: no limit.
        field_map: {field: the item's key to read it from}, or its `"field=key,..."` text,
            for names judgegraph does not read by itself.
        callbacks: LangChain callback handlers given the run's config (they observe it: the
            OpenTelemetry export's step clock, `telemetry.step_clock`).
        max_item_chars: the most characters of text the item may hold (`MAX_ITEM_TEXT_CHARS`);
            over it, `ItemTooLargeError` is raised and nothing is judged; None: no limit.
        **settings: `JudgeContext` fields for a model given as a chat model or a name
            (`max_repairs=`, `claim_check=`, `calibration=`...), `base_url=`, `model_id=`.

    Returns:
        The `EvaluationRun`: result, trace, claims, verdicts and the profile that decided.
    """
    if max_item_chars is not None:  # the async twin, the batch and the CLI have bounded it already
        check_item_size(text_chars(item), max_item_chars)
    config = _config(max_concurrency, callbacks)
    context = build_judge(model, **settings)
    warn_if_embeddings_missing(context)
    output = default_graph().invoke(
        graph_input(item, rubric, field_map), config=config, context=context
    )
    return _run(output)


async def arun_evaluation(
    item: Any,
    *,
    model: ModelSpec = None,
    rubric: str | list[str] | None = None,
    max_concurrency: int | None = None,
    field_map: str | Mapping[str, str] | None = None,
    callbacks: list[BaseCallbackHandler] | None = None,
    max_item_chars: int | None = MAX_ITEM_TEXT_CHARS,
    **settings: Any,
) -> EvaluationRun:
    """The async twin of `run_evaluation`, for batches; a long item (`OFF_LOOP_TEXT_CHARS`) is
    judged in a worker thread, so its text work never blocks the event loop.

    Args:
        item: the item as parsed from JSON, in any field names judgegraph reads (RAGAS,
            DeepEval, LangChain; docs/input-fields.md); an invalid item gets a failed result.
        model: a chat model, a full `JudgeContext`, a model named as the CLI names it
            (`"openai:gpt-4o-mini"`, `"local"`, or one served at `base_url=`), or None for the
            default judge (`JUDGEGRAPH_MODEL`, `OPENAI_BASE_URL`, else the embedded model).
        rubric: the rubric(s) to apply when the item names none; None: found from its keys.
        max_concurrency: the most steps of the item run at once, at each level: LangGraph's
            nodes, and the claim checks inside the claims node (1: one call at a time; N:
            at most 2N - 1 calls; docs/architecture.md, "The claims node"); None: no limit.
        field_map: {field: the item's key to read it from}, or its `"field=key,..."` text,
            for names judgegraph does not read by itself.
        callbacks: LangChain callback handlers given the run's config (they observe it: the
            OpenTelemetry export's step clock, `telemetry.step_clock`).
        max_item_chars: the most characters of text the item may hold (`MAX_ITEM_TEXT_CHARS`);
            over it, `ItemTooLargeError` is raised and nothing is judged; None: no limit.
        **settings: `JudgeContext` fields for a model given as a chat model or a name
            (`max_repairs=`, `claim_check=`, `calibration=`...), `base_url=`, `model_id=`.
    """
    chars = text_chars(item)
    check_item_size(chars, max_item_chars)
    if chars >= OFF_LOOP_TEXT_CHARS:
        return await asyncio.to_thread(run_evaluation, item, model=model, rubric=rubric,
                                       max_concurrency=max_concurrency, field_map=field_map,
                                       callbacks=callbacks, max_item_chars=None, **settings)
    config = _config(max_concurrency, callbacks)
    context = build_judge(model, **settings)
    warn_if_embeddings_missing(context)
    output = await default_graph().ainvoke(
        graph_input(item, rubric, field_map), config=config, context=context
    )
    return _run(output)


def evaluate(item: Any, *, model: ModelSpec = None, **kwargs: Any) -> dict:
    """Judge one item and return the rubric's seed-shaped output.

    The item may use RAGAS, DeepEval or LangChain field names and hold LangChain `Document`s
    as its context (docs/input-fields.md); `field_map={"question": "prompt"}` reads any other
    name. `model` may be a chat model or a name as the CLI takes it (`"openai:gpt-4o-mini"`).

    Args:
        item: the item as parsed from JSON.
        model: a chat model, a full `JudgeContext`, a model name, or None for the default judge.
        **kwargs: `run_evaluation`'s other keywords (`rubric=`, `max_concurrency=`,
            `field_map=`) and `JudgeContext` settings.
    """
    return run_evaluation(item, model=model, **kwargs).result
