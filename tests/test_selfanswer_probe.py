"""The self-answer probe (benchmarks/selfanswer_probe.py): SQuAD token F1 and one scripted call."""

from __future__ import annotations

import pytest

from benchmarks.selfanswer_probe import own_answer, token_f1
from tests.support import fakes


@pytest.mark.parametrize(("prediction", "gold", "expected"), [
    ("The Beatles", "beatles", 1.0),            # case, article
    ("I Love You, Man", "I love you man", 1.0),  # punctuation
    ("John Hamburg", "Larry Levin", 0.0),
    ("John Hamburg Jr", "John Hamburg", 0.8),   # P 2/3, R 1 -> 0.8
    ("", "", 1.0),
    ("the", "Paris", 0.0),                      # only an article left: nothing in common
])
def test_token_f1(prediction, gold, expected):
    assert token_f1(prediction, gold) == pytest.approx(expected)


def test_own_answer_compares_the_judges_answer_with_the_one_under_test():
    model = fakes.judge(OwnAnswer=[{"answer": "I Love You, Man"}])
    row = {"id": "halueval_qa:x", "question": "Which 2009 film? {{ 7*7 }}", "context": "It was I Love You, Man.",
           "answer": "Knocked Up"}
    record = own_answer(model, row)
    assert record["own_answer"] == "I Love You, Man" and record["f1"] == 0.0 and record["error"] is None
    prompt = model.prompts_for("OwnAnswer")[0]
    assert "[1] It was I Love You, Man." in prompt and "{{ 7*7 }}" in prompt
    assert "Knocked Up" not in prompt  # the answer under test is never shown to the judge here
