"""A caret citation (`^1`, `^[1]`, `[^1]`) names a passage; it is not a number the claim states.

Before, "The Eiffel Tower is in Paris ^1." (a caret after a blank, as footnoting tools write
it) kept its `1` in the claim, and code's number rule found the context's "330" against it:
"contradicted (the claim says 1 ...)", faithfulness 0.0. Judged here through `evaluate` by the
demo judge over HTTP (`tests.support.demo_judge`)."""

from __future__ import annotations

import pytest

from judgegraph.graph import evaluate
from tests.support.demo_judge import reply as demo_reply
from tests.support.fault_server import FaultServer

CONTEXT = ["The Eiffel Tower is 330 m tall and stands in Paris."]


@pytest.fixture(scope="module")
def demo_url():
    with FaultServer(reply=demo_reply) as server:
        yield server.base_url


@pytest.mark.parametrize("answer", [
    "The Eiffel Tower is in Paris ^1.",
    "The Eiffel Tower is in Paris ^[1].",
    "The Eiffel Tower is in Paris^[1].",
    "The Eiffel Tower is in Paris [^1].",
    "The Eiffel Tower is in Paris^1.",
])
def test_a_caret_citation_is_not_a_number_of_the_claim(demo_url, answer):
    result = evaluate({"question": "Where is the Eiffel Tower?", "answer": answer, "context": CONTEXT},
                      model="demo", base_url=demo_url)
    assert result["evaluation_status"] == "success", result
    assert "the claim says 1" not in result["faithfulness_explanation"], result["faithfulness_explanation"]
    assert result["faithfulness"] == 1.0, result["faithfulness_explanation"]


def test_a_power_after_a_unit_stays_a_number(demo_url):
    """`330 m ^2` is an area, not a citation: the marker rule keeps to words of three letters."""
    result = evaluate({"question": "How large is the base?", "answer": "The base covers 330 m ^2.",
                       "context": CONTEXT}, model="demo", base_url=demo_url)
    assert result["evaluation_status"] == "success", result
    assert result["faithfulness"] is not None
