"""Property: whatever the judge model replies, every rag result is schema-valid (or a clean
failure, which is schema-valid too), no exception escapes, and no NaN or infinity gets out.

A fake chat model returns hypothesis-drawn replies for every LLM step of the graph. Replies are
either free text (prose, empty, JSON scraps, NaN literals, enormous strings) or a *mutation* of
the step's valid reply (truncated, wrong types, extra or missing keys, wrapped in prose or code
fences, oversized fields), so the near-misses that slip past naive parsing are well covered.
Run with 1,000 examples; the item is minimal and repairs are capped at 1 to keep it fast.
"""

from __future__ import annotations

import json
import math
import threading
from functools import lru_cache
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from judgegraph.graph.api import run_evaluation
from judgegraph.run.context import JudgeContext
from judgegraph.schemas.rag import RagResult
from tests.support.fault_server import default_reply, step_and_schema

ITEM = {"question": "Capital of France?", "context": "Paris is the capital of France.",
        "answer": "Paris. It is in Europe.", "reference": "Paris"}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-10**20, max_value=10**20)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


@dataclass(frozen=True)
class Mutation:
    """A change applied to the calling step's valid reply, at call time."""

    kind: str
    position: float = 0.5
    value: Any = None
    key: str = "extra"


mutations = st.builds(
    Mutation,
    kind=st.sampled_from(["valid", "truncate", "wrong_type", "extra_key", "drop_key", "prose",
                          "fence", "huge_field", "nested_wrong", "nan_text", "length"]),
    position=st.floats(min_value=0, max_value=1),
    value=json_values,
    key=st.text(max_size=8),
)

free_text = st.one_of(
    st.text(max_size=300),
    st.just(""),
    st.sampled_from(["null", "[]", "{}", "true", "0", "NaN", "Infinity", '"text"', '{"a":',
                     "```json\n{}\n```", '{"precision": NaN, "recall": Infinity, "reasoning": "r"}',
                     '{"similarity": 1e999, "reasoning": "r"}', "I cannot evaluate this.",
                     '{"claims": "not a list", "declines_to_answer": "maybe"}']),
    st.text(alphabet="{}[]\":,0123456789.eE-tfnul ", max_size=200),
    st.integers(min_value=10_000, max_value=200_000).map(lambda n: "a" * n),
)

replies = st.one_of(free_text, mutations, st.just(Mutation("valid")))
"""A third valid replies, so extraction often succeeds and the claim checks get fuzzed too."""


def _keys(value: Any) -> list[tuple[Any, Any]]:
    """(container, key) pairs for every slot of a JSON value, outermost first."""
    slots: list[tuple[Any, Any]] = []
    if isinstance(value, dict):
        for key, sub in value.items():
            slots.append((value, key))
            slots.extend(_keys(sub))
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            slots.append((value, index))
            slots.extend(_keys(sub))
    return slots


def apply(mutation: Mutation, valid: dict) -> tuple[str, str]:
    """(reply text, finish_reason) for a mutation of `valid`."""
    data = json.loads(json.dumps(valid))
    slots = _keys(data)
    pick = slots[min(int(mutation.position * len(slots)), len(slots) - 1)] if slots else None
    text = json.dumps(data)
    kind = mutation.kind
    if kind == "truncate":
        return text[: int(mutation.position * len(text))], "stop"
    if kind == "length":
        return text[: int(mutation.position * len(text))], "length"
    if kind == "wrong_type" and pick:
        pick[0][pick[1]] = mutation.value
    elif kind == "extra_key":
        data[mutation.key or "extra"] = mutation.value
    elif kind == "drop_key" and isinstance(data, dict) and data:
        data.pop(list(data)[int(mutation.position * len(data)) % len(data)])
    elif kind == "huge_field" and pick:
        pick[0][pick[1]] = "word " * 20_000
    elif kind == "nested_wrong" and pick:
        pick[0][pick[1]] = {"value": mutation.value, "list": [mutation.value] * 3}
    elif kind == "nan_text":
        return text.replace("0.5", "NaN").replace("1", "Infinity", 1), "stop"
    text = json.dumps(data)  # may emit NaN/Infinity literals from drawn floats: on purpose
    if kind == "prose":
        return f"Here is my evaluation:\n{text}\nHope this helps!", "stop"
    if kind == "fence":
        return f"```json\n{text}\n```", "stop"
    return text, "stop"


class FuzzJudge(BaseChatModel):
    """Answers call n with replies[n % len(replies)], shaped for whichever step is calling."""

    replies: list[Any]
    _count: int = PrivateAttr(default=0)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "fuzz-judge"

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        with self._lock:
            reply = self.replies[self._count % len(self.replies)]
            self._count += 1
        finish = "stop"
        if isinstance(reply, Mutation):
            body = {"response_format": kwargs.get("response_format"),
                    "messages": [{"content": m.text} for m in messages]}
            step, schema = step_and_schema(body)
            reply, finish = apply(reply, default_reply(step, schema, body))
        message = AIMessage(content=reply, response_metadata={"finish_reason": finish},
                            usage_metadata={"input_tokens": 7, "output_tokens": 3, "total_tokens": 10})
        return ChatResult(generations=[ChatGeneration(message=message)])


def finite_everywhere(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(finite_everywhere(v) for v in value.values())
    if isinstance(value, list):
        return all(finite_everywhere(v) for v in value)
    return True


@settings(max_examples=1000, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    replies=st.lists(replies, min_size=1, max_size=8),
    claim_check=st.sampled_from(["per-claim", "batch"]),
    max_repairs=st.integers(min_value=0, max_value=1),
)
def test_any_model_reply_gives_a_valid_result_or_a_clean_failure(replies, claim_check, max_repairs):
    context = JudgeContext(model=FuzzJudge(replies=replies), model_id="fuzz", max_repairs=max_repairs,
                           claim_check=claim_check)
    run = run_evaluation(ITEM, model=context)  # an exception here fails the property
    result = RagResult.model_validate(run.result)
    assert list(run.result) == list(RagResult.model_fields)
    assert finite_everywhere(run.result)
    json.dumps(run.result, allow_nan=False)
    if result.evaluation_status == "failed":
        assert result.error or result.reason
    for metric in ("faithfulness", "context_relevance", "answer_relevance", "semantic_similarity"):
        if getattr(result, metric) is None:
            assert getattr(result, f"{metric}_explanation"), f"{metric} is null without a reason"


OTHER_ITEMS = {
    "coverage": {"input": "Summarise.", "reference": "Revenue grew 10% in 2023. Growth is strong.",
                 "output_text": "Revenue grew about 10%."},
    "liverag": {"question": "What colour is the sky?", "answer": "Blue. It is clear.",
                "documents": ["The sky is blue."], "gold_reference": "blue"},
    "expected_output": {"input": "Rate the answer", "actualOutput": "Paris", "expectedOutput": "Paris",
                        "evaluationType": "numerical",
                        "evaluationConfig": {"min_range": 0, "max_range": 10, "criteria": "accuracy"}},
}
"""Items in the seeds' public input formats, for the rubrics other people own."""


@lru_cache(maxsize=None)
def _shapes(name: str) -> list[list[str]]:
    """The top-level keys a rubric may return: its judged shape or its failure shape."""
    from judgegraph.graph import rubrics

    judged = run_evaluation(OTHER_ITEMS[name], model=JudgeContext(
        model=FuzzJudge(replies=[Mutation("valid")]), model_id="fuzz", max_repairs=0)).result
    return [list(judged), list(rubrics.get(name).failed("reason"))]


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    replies=st.lists(replies, min_size=1, max_size=8),
    name=st.sampled_from(sorted(OTHER_ITEMS)),
    claim_check=st.sampled_from(["per-claim", "batch"]),
    max_repairs=st.integers(min_value=0, max_value=1),
)
def test_other_rubrics_never_raise_or_leak_nan(replies, name, claim_check, max_repairs):
    """Same property for every other registered rubric: no exception, no NaN, a known shape."""
    from judgegraph.graph import rubrics

    if name not in rubrics.names():
        return
    context = JudgeContext(model=FuzzJudge(replies=replies), model_id="fuzz", max_repairs=max_repairs,
                           claim_check=claim_check)
    result = run_evaluation(OTHER_ITEMS[name], model=context).result
    assert finite_everywhere(result)
    json.dumps(result, allow_nan=False)
    assert list(result) in _shapes(name)
