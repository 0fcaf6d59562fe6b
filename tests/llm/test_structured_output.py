"""The repair loop shared by every LLM step: local repair, re-prompts, truncation, clean failure."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from judgegraph.llm.json_repair import local_repair, outermost_object, remove_trailing_commas
from judgegraph.llm.structured import run_structured_step
from judgegraph.schemas.rag import SimilarityJudgment
from tests.support import fakes

GOOD = {"reasoning": "same meaning", "similarity": 4}


def step(*replies, max_repairs=2, dialect="json_schema"):
    model = fakes.judge(SimilarityJudgment=list(replies))
    outcome = run_structured_step(
        model, [HumanMessage(content="compare")], SimilarityJudgment,
        max_repairs=max_repairs, dialect=dialect,
    )
    return outcome, model


@pytest.mark.parametrize(
    "reply",
    [
        "```json\n" + json.dumps(GOOD) + "\n```",
        "Sure! Here is my judgment:\n" + json.dumps(GOOD) + "\nHope this helps.",
        '{"reasoning": "same meaning", "similarity": 4,}',
        '```\n{"reasoning": "same meaning", "similarity": 4,\n}\n```',
    ],
    ids=["fenced", "prose-around", "trailing-comma", "fenced-trailing-comma"],
)
def test_local_repair_fixes_harmless_formatting_without_a_second_call(reply):
    outcome, model = step(reply)
    assert outcome.ok and outcome.value.similarity == 4
    assert len(model.calls) == 1
    assert outcome.attempts[0].repaired_locally


def test_truncated_json_is_never_closed_up_and_is_re_prompted():
    outcome, model = step('{"reasoning": "same meaning", "simil', GOOD)
    assert outcome.ok
    assert len(model.calls) == 2
    assert not outcome.attempts[0].ok
    # the re-prompt carries the validation errors and the bad reply
    repair_prompt = model.calls[1][1]
    assert "could not be used" in repair_prompt and '"simil' in repair_prompt


def test_finish_reason_length_is_invalid_even_when_the_text_parses():
    truncated = AIMessage(content=json.dumps(GOOD), response_metadata={"finish_reason": "length"})
    outcome, model = step(truncated, GOOD)
    assert outcome.ok and len(model.calls) == 2
    assert outcome.attempts[0].finish_reason == "length"
    assert "cut off" in outcome.attempts[0].errors[0]


@pytest.mark.parametrize(
    "bad",
    [
        {"reasoning": "x", "similarity": "four"},
        {"reasoning": "x", "similarity": 9},
        {"reasoning": "x"},
        [GOOD],
        "",
    ],
    ids=["wrong-type", "out-of-range", "missing-field", "array", "empty"],
)
def test_invalid_replies_are_re_prompted_with_their_errors(bad):
    outcome, model = step(bad, GOOD)
    assert outcome.ok and len(model.calls) == 2
    assert outcome.attempts[0].errors


def test_never_valid_fails_cleanly_after_max_repairs_with_the_reason():
    outcome, model = step("nope", "still nope", "never", "unused")
    assert not outcome.ok and outcome.value is None
    assert len(model.calls) == 3  # first try + 2 repairs
    assert "no valid reply after 3 attempt(s)" in outcome.error
    assert len(outcome.attempts) == 3 and all(not a.ok for a in outcome.attempts)


def test_max_repairs_is_configurable():
    outcome, model = step("nope", "nope", GOOD, max_repairs=0)
    assert not outcome.ok and len(model.calls) == 1


def test_model_exception_is_a_failed_outcome_not_a_raise():
    outcome, _ = step(ConnectionError("connection refused"))
    assert not outcome.ok
    assert outcome.error == "model call failed: ConnectionError: connection refused"


def test_usage_is_summed_over_attempts():
    outcome, _ = step("nope", GOOD)
    assert outcome.calls == 2
    assert outcome.input_tokens == 20 and outcome.output_tokens == 10


def test_extra_check_complaints_go_through_repair():
    model = fakes.judge(SimilarityJudgment=[{"reasoning": "r", "similarity": 1}, GOOD])
    outcome = run_structured_step(
        model, [HumanMessage(content="x")], SimilarityJudgment,
        check=lambda v: [] if v.similarity >= 2 else ["similarity: must be at least 2 here"],
    )
    assert outcome.ok and outcome.value.similarity == 4
    assert outcome.attempts[0].errors == ["similarity: must be at least 2 here"]


@pytest.mark.parametrize(
    ("dialect", "expected_type"),
    [("json_schema", "json_schema"), ("json_object", "json_object")],
)
def test_schema_reaches_the_model_in_the_chosen_dialect(dialect, expected_type):
    _, model = step(GOOD, dialect=dialect)
    response_format = model.calls[0][2]["response_format"]
    assert response_format["type"] == expected_type
    schema = response_format["json_schema"]["schema"] if dialect == "json_schema" else response_format["schema"]
    assert schema["properties"]["similarity"]["maximum"] == 5
    assert schema["properties"]["reasoning"]["maxLength"] == 200


def test_dialect_none_sends_no_response_format():
    model = fakes.ScriptedJudge(scripts={}, default={})
    # without a response_format the fake cannot tell the step: that is the point
    outcome = run_structured_step(model, [HumanMessage(content="x")], SimilarityJudgment, dialect="none", max_repairs=0)
    assert not outcome.ok and "response_format" in outcome.error


def test_long_free_text_is_trimmed_not_rejected():
    outcome, _ = step({"reasoning": "word " * 200, "similarity": 3})
    assert outcome.ok and len(outcome.value.reasoning) <= 200


# --- the local repair functions themselves -------------------------------------------------

def test_outermost_object_respects_braces_inside_strings():
    assert outermost_object('x {"a": "}{", "b": {"c": 1}} y') == '{"a": "}{", "b": {"c": 1}}'


def test_outermost_object_of_truncated_json_is_none():
    assert outermost_object('{"a": [1, 2') is None
    assert local_repair('{"a": [1, 2') is None


def test_trailing_commas_inside_strings_are_kept():
    assert remove_trailing_commas('{"a": "x,}", "b": [1,],}') == '{"a": "x,}", "b": [1]}'


class RejectsJsonSchema(fakes.ScriptedJudge):
    """Answers like llama-cpp-python's server: `json_schema` is a 500 naming response_format."""

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        if kwargs.get("response_format", {}).get("type") == "json_schema":
            raise RuntimeError(
                "Error code: 500 - {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
                "'msg': \"Input should be 'text' or 'json_object'\"}"
            )
        return super()._generate(messages, stop, run_manager, **kwargs)


def test_a_server_rejecting_json_schema_is_answered_in_its_dialect_and_remembered():
    model = RejectsJsonSchema(scripts={}, default={"SimilarityJudgment": GOOD})
    first = run_structured_step(model, [HumanMessage(content="x")], SimilarityJudgment, max_repairs=0)
    assert first.ok and len(first.attempts) == 2
    assert "response_format" in first.attempts[0].errors[0]
    assert [kwargs["response_format"]["type"] for _, _, kwargs in model.calls] == ["json_object"]
    second = run_structured_step(model, [HumanMessage(content="x")], SimilarityJudgment, max_repairs=0)
    assert second.ok and len(second.attempts) == 1


def test_other_server_errors_are_not_mistaken_for_a_dialect_problem():
    model = fakes.judge(SimilarityJudgment=RuntimeError("Error code: 500 - model overloaded"))
    outcome = run_structured_step(model, [HumanMessage(content="x")], SimilarityJudgment)
    assert not outcome.ok and len(outcome.attempts) == 1


def _rejecting_judge() -> RejectsJsonSchema:
    return RejectsJsonSchema(scripts={"SimilarityJudgment": [GOOD, GOOD]})


def test_a_learned_dialect_is_held_by_its_model_and_no_other():
    """The server's dialect is learned once per model, by the model itself: a second model is
    asked in the default dialect (a table keyed by `id(model)` mixed up a dead model's with a
    new one that reused its id)."""
    from judgegraph.llm import structured

    model = _rejecting_judge()
    first = run_structured_step(model, [HumanMessage(content="compare")], SimilarityJudgment)
    second = run_structured_step(model, [HumanMessage(content="compare")], SimilarityJudgment)
    assert (len(first.attempts), len(second.attempts)) == (2, 1)  # learned at the first step
    other = _rejecting_judge()
    assert len(run_structured_step(other, [HumanMessage(content="compare")], SimilarityJudgment).attempts) == 2
    assert not hasattr(structured, "_learned_dialects")
