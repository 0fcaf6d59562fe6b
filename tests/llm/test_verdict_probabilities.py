"""Label probabilities from OpenAI-format token log-probabilities (`llm.verdict_probabilities`)."""

from __future__ import annotations

import math

import pytest

from judgegraph.llm.structured import run_structured_step
from judgegraph.llm.verdict_probabilities import label_probabilities
from judgegraph.prompts import render_messages
from judgegraph.schemas.claims import ClaimCheck
from tests.support import fakes

VERDICTS = ("supported", "contradicted", "not-in-context")


def entry(token: str, logprob: float = 0.0, top: dict[str, float] | None = None) -> dict:
    """One generated token; `top` maps alternative tokens to probabilities."""
    alternatives = [{"token": t, "logprob": math.log(p) if p > 0 else float("-inf")} for t, p in (top or {}).items()]
    return {"token": token, "logprob": logprob, "top_logprobs": alternatives}


def reply_tokens(label_entry: dict, field: str = "verdict", prefix: str | None = None) -> list[dict]:
    """'{"verdict": "' as four tokens, the label token, then the rest."""
    head = prefix if prefix is not None else f'{{"|{field}|":| "'
    return [entry(t) for t in head.split("|")] + [label_entry, entry('",'), entry(' "line": 1}')]


def probabilities(tokens, chosen="supported", labels=VERDICTS, field="verdict"):
    return label_probabilities(tokens, field, labels, chosen)


def test_label_probabilities_at_the_first_token_of_the_value():
    tokens = reply_tokens(entry("support", math.log(0.6), {"support": 0.6, "contr": 0.3, "not": 0.1}))
    values, graded = probabilities(tokens)
    assert graded
    assert values == pytest.approx({"supported": 0.6, "contradicted": 0.3, "not-in-context": 0.1})


@pytest.mark.parametrize("token", ["supported", "support", "sup", " supported", '"supported', "SUPPORTED", "Support"])
def test_a_token_counts_for_the_one_label_it_starts(token):
    values, graded = probabilities(reply_tokens(entry(token, 0.0, {token: 1.0})))
    assert graded and values["supported"] == pytest.approx(1.0)


def test_tokens_outside_the_labels_are_dropped_and_the_rest_renormalised():
    """llama.cpp reports alternatives from the raw logits, before the JSON grammar masks them."""
    top = {"support": 0.3, "contr": 0.1, "{": 0.4, "maybe": 0.2}
    values, graded = probabilities(reply_tokens(entry("support", math.log(0.3), top)))
    assert graded
    assert values == pytest.approx({"supported": 0.75, "contradicted": 0.25, "not-in-context": 0.0})
    assert sum(values.values()) == pytest.approx(1.0)


def test_several_tokens_of_one_label_add_up_and_repeats_count_once():
    top_logprobs = [
        {"token": "support", "logprob": math.log(0.3)},
        {"token": "supported", "logprob": math.log(0.2)},
        {"token": "support", "logprob": math.log(0.3)},  # a repeat: ignored
        {"token": "not", "logprob": math.log(0.5)},
    ]
    tokens = reply_tokens({"token": "support", "logprob": math.log(0.3), "top_logprobs": top_logprobs})
    values, _ = probabilities(tokens)
    assert values["supported"] == pytest.approx(0.5) and values["not-in-context"] == pytest.approx(0.5)


def test_a_token_that_starts_two_labels_is_ambiguous_and_ignored():
    labels = ("no", "not-sure", "yes")
    tokens = reply_tokens(entry("no", math.log(0.5), {"no": 0.5, "not-": 0.2, "yes": 0.3}), field="answer")
    values, graded = probabilities(tokens, chosen="no", labels=labels, field="answer")
    assert graded
    assert values == pytest.approx({"no": 0.0, "not-sure": 0.4, "yes": 0.6})


def test_non_finite_logprobs_are_ignored():
    top_logprobs = [{"token": "support", "logprob": float("-inf")}, {"token": "contr", "logprob": float("nan")},
                    {"token": "not", "logprob": math.log(0.4)}]
    values, graded = probabilities(reply_tokens({"token": "not", "logprob": math.log(0.4), "top_logprobs": top_logprobs}))
    assert graded and values["not-in-context"] == pytest.approx(1.0)


def test_without_top_alternatives_the_generated_token_itself_counts():
    values, graded = probabilities(reply_tokens({"token": "contr", "logprob": -0.1}), chosen="contradicted")
    assert graded and values == pytest.approx({"supported": 0.0, "contradicted": 1.0, "not-in-context": 0.0})


@pytest.mark.parametrize("tokens", [None, []], ids=["none", "empty"])
@pytest.mark.parametrize("chosen", VERDICTS)
def test_without_logprobs_the_chosen_label_gets_probability_one(tokens, chosen):
    values, graded = probabilities(tokens, chosen=chosen)
    assert not graded
    assert values == {label: 1.0 if label == chosen else 0.0 for label in VERDICTS}


def test_field_not_found_falls_back_to_the_chosen_label():
    tokens = reply_tokens(entry("support", 0.0, {"support": 0.5, "not": 0.5}), field="other")
    values, graded = probabilities(tokens, chosen="not-in-context")
    assert not graded and values["not-in-context"] == 1.0 and values["supported"] == 0.0


def test_no_label_among_the_alternatives_falls_back():
    values, graded = probabilities(reply_tokens(entry("maybe", 0.0, {"maybe": 0.9, "{": 0.1})), chosen="supported")
    assert not graded and values["supported"] == 1.0


def test_spacing_around_the_colon_is_allowed():
    tokens = reply_tokens(entry("contr", 0.0, {"contr": 0.8, "support": 0.2}), prefix='{|"verdict"| : |"')
    values, graded = probabilities(tokens, chosen="contradicted")
    assert graded and values["contradicted"] == pytest.approx(0.8)


def test_the_opening_quote_may_end_the_token_before_the_label():
    tokens = reply_tokens(entry("support", 0.0, {"support": 0.7, "contr": 0.3}), prefix='{"|verdict|":"')
    values, graded = probabilities(tokens)
    assert graded and values["supported"] == pytest.approx(0.7)


def test_a_token_that_carries_the_opening_quote_and_the_label_start():
    tokens = [entry('{"'), entry("verdict"), entry('":'), entry(' "support', 0.0, {' "support': 0.7, ' "contr': 0.3}),
              entry('ed",'), entry(' "line": 1}')]
    values, graded = probabilities(tokens)
    assert graded and values["supported"] == pytest.approx(0.7)


def test_only_the_named_fields_value_is_read():
    """An earlier string field's value is not the verdict's."""
    tokens = [entry('{"'), entry("note"), entry('": "'), entry("support", 0.0, {"support": 1.0}), entry('", "'),
              entry("verdict"), entry('": "'), entry("not", math.log(0.7), {"not": 0.7, "contr": 0.3}), entry('"}')]
    values, graded = probabilities(tokens, chosen="not-in-context")
    assert graded and values == pytest.approx({"supported": 0.0, "contradicted": 0.3, "not-in-context": 0.7})


def test_the_fake_builds_the_same_format():
    message = fakes.graded_verdict({"supported": 0.8, "contr": 0.2}, line=3)
    content = message.response_metadata["logprobs"]["content"]
    assert "".join(item["token"] for item in content) == message.content == '{"verdict": "supported", "line": 3}'
    values, graded = label_probabilities(content, "verdict", VERDICTS, "supported")
    assert graded and values["supported"] == pytest.approx(0.8) and values["contradicted"] == pytest.approx(0.2)


def test_a_step_outcome_carries_the_replys_logprobs():
    reply = fakes.graded_verdict({"supported": 0.6, "not": 0.4}, line=1)
    model = fakes.judge(check_claim=[reply])
    messages = render_messages("check_claim", question="q", lines=["a line"], answer=None, claim="c")
    outcome = run_structured_step(model, messages, ClaimCheck, top_logprobs=5)
    assert outcome.ok and outcome.value.verdict == "supported"
    assert outcome.token_logprobs == reply.response_metadata["logprobs"]["content"]


def test_a_repaired_step_keeps_the_logprobs_of_the_valid_reply():
    good = fakes.graded_verdict({"supported": 0.6, "not": 0.4}, line=1)
    model = fakes.judge(check_claim=["not json", good])
    messages = render_messages("check_claim", question="q", lines=["a line"], answer=None, claim="c")
    outcome = run_structured_step(model, messages, ClaimCheck, top_logprobs=5)
    assert outcome.calls == 2 and outcome.token_logprobs == good.response_metadata["logprobs"]["content"]


def test_a_plain_reply_has_no_logprobs():
    model = fakes.judge(check_claim=[fakes.verdict("supported", 1)])
    messages = render_messages("check_claim", question="q", lines=["a line"], answer=None, claim="c")
    assert run_structured_step(model, messages, ClaimCheck).token_logprobs is None
