"""What the faithfulness calibration tests share: a scripted judge whose P(supported) tells
faithful items (`GOOD`) from unfaithful ones (`BAD`), labelled rows built on it, a fitted
profile, a recorded claim, and the fixtures that make `--model` reach the scripted judge."""

from __future__ import annotations

import json
import re

import pytest

from judgegraph.calibration import default_profile
from judgegraph.calibration.profile import LogisticSupport, Profile, parse_profile
from judgegraph.calibration.calibrated_metrics import calibrated_metric
from judgegraph.fitting.recompute import recorded_faithfulness
from judgegraph.llm import models
from judgegraph.llm.openai_compatible import ResolvedModel
from tests.support import fakes

DEFAULT = default_profile().faithfulness_parameters
CONTEXT = ["Craigslist is a classified advertisements website founded in 1995 by Craig Newmark.",
           "Its tags are alpha and omega."]
QUESTION = "Who founded Craigslist?"
GOOD, BAD = "alpha", "omega"
"""A claim carrying `alpha` gets P(supported) 0.85 from the scripted judge, one carrying
`omega` 0.35: the judge's probability is what tells faithful items apart in the data below."""



def claim_of(prompt: str) -> str:
    return re.findall(r"<claim>(.*?)</claim>", prompt, re.S)[-1]


def graded_check(prompt: str):
    p = 0.85 if GOOD in claim_of(prompt) else 0.35
    reply = fakes.verdict("supported" if p > 0.5 else "not-in-context", 1)
    return fakes.with_logprobs(reply, "verdict", {"supported": p, "not": 1 - p})


def scripted_judge():
    return fakes.judge(check_claim=graded_check, answer_from_context={"answer": "unknown"},
                       judge_context_relevance=fakes.context_relevance("yes", [1]),
                       judge_answer_relevance=fakes.answer_relevance())


def labelled_rows(n: int = 40) -> list[dict]:
    """Faithful items (alpha) are half paraphrases whose words the context lacks (grounding
    low: the default product calls them unsupported); unfaithful ones (omega) are worded as the
    context is. The judge's P(supported) separates them; the default's product does not."""
    rows = []
    for i in range(n):
        faithful = i % 2 == 0
        if faithful:
            answer = (f"Newmark started that listings venture {GOOD}." if i % 4 == 0
                      else f"Craig Newmark founded Craigslist {GOOD}.")
        else:
            answer = f"Craig Newmark founded Craigslist in 1995 {BAD}."
        rows.append({"id": f"item-{i}", "question": QUESTION, "context": CONTEXT, "answer": answer,
                     "human": {"hallucination": "no" if faithful else "yes"}})
    return rows


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def fewer_resamples(monkeypatch):
    """200 bootstrap resamples instead of 1000: the intervals' code is the same, the suite faster."""
    monkeypatch.setattr("judgegraph.fitting.cross_validation.BOOTSTRAP_RESAMPLES", 200)


@pytest.fixture
def scripted_resolution(monkeypatch):
    """`resolve_model` (what --model & co. reach) returns a scripted judge named scripted:a."""
    judge = scripted_judge()
    monkeypatch.setattr(models, "resolve_model",
                        lambda *a, **k: ResolvedModel(judge, "scripted:a", "json_schema"))
    return judge


def fitted_profile(judge_model: str | None = "scripted:a", **support) -> Profile:
    model = LogisticSupport(intercept=-3.0, coefficients={"p_supported": 6.0, **support})
    section = {"parameters": DEFAULT.model_copy(update={"support": model}).model_dump(),
               "signal_hash": calibrated_metric("faithfulness").signal_hash}
    return parse_profile({"id": "fitted-test", "judge_model": judge_model, "faithfulness": section})


def recorded_claim_item(p_supported: float, grounding: float) -> object:
    claim = {"index": 0, "claim": "c", "probabilities": {"supported": p_supported, "contradicted": 0.0,
                                                          "not-in-context": 1 - p_supported},
             "grounding": grounding, "evidence": "e", "evidence_found": True, "critical": True}
    return recorded_faithfulness({"id": "x", "details": {"item": {"context": CONTEXT},
                                                         "claims": {"claims": ["c"]}, "verdicts": [claim]}})
