"""Shared fixtures: a valid rag item and a fully scripted happy-path judge."""

from __future__ import annotations

import pytest

from tests import fakes

CONTEXT = [
    "Craigslist is a classified advertisements website founded in 1995 by Craig Newmark.",
    "24 Hours on Craigslist is a 2005 documentary about a single day of Craigslist posts.",
]


@pytest.fixture(autouse=True)
def deterministic_fan_out(monkeypatch):
    """Fanned-out tasks run one at a time, in order, so scripted replies map to claims."""
    monkeypatch.setattr("judgegraph.graph.api.DEFAULT_MAX_CONCURRENCY", 1)


@pytest.fixture
def rag_item() -> dict:
    return {
        "question": "Who founded Craigslist?",
        "context": list(CONTEXT),
        "answer": "Craig Newmark founded Craigslist in 1995.",
        "reference": "Craig Newmark",
    }


def happy_scripts(**overrides) -> dict:
    scripts = {
        "extract_claims": fakes.claims("Craig Newmark founded Craigslist.", "Craigslist was founded in 1995."),
        "check_claim": fakes.verdict("supported", "founded in 1995 by Craig Newmark", critical=True),
        "judge_context_relevance": fakes.context_relevance(1.0, 1.0),
        "judge_answer_relevance": fakes.answer_relevance(),
        "judge_semantic_similarity": fakes.similarity(5),
    }
    scripts.update(overrides)
    return scripts


@pytest.fixture
def happy_judge():
    return fakes.judge(**happy_scripts())
