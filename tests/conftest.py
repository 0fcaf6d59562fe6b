"""Shared fixtures: a valid rag item, a fully scripted happy-path judge, and a deterministic
default embedder (no test loads the real e5 model unless it is about it)."""

from __future__ import annotations

import pytest
from hypothesis import settings

from tests.support import fakes

# Property tests check results, never speed: Hypothesis's default 200 ms deadline per example
# turns a loaded machine (a model run on the same cores, a slow CI runner) into a failure.
# Speed targets live in benchmarks that print figures (docs/benchmarks.md).
settings.register_profile("judgegraph", deadline=None)
settings.load_profile("judgegraph")

CONTEXT = [
    "Craigslist is a classified advertisements website founded in 1995 by Craig Newmark.",
    "24 Hours on Craigslist is a 2005 documentary about a single day of Craigslist posts.",
]


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "real_embeddings: loads the packaged multilingual-e5-small (a few seconds of CPU)"
    )


@pytest.fixture(autouse=True)
def fake_default_embedder(monkeypatch) -> fakes.HashEmbedder:
    """The packaged embedder is replaced by a hashed bag of words for every test.

    `llm.embeddings.context_embedder` calls `default_embedder()` through its module globals,
    so patching the module attribute reaches every node (`nodes.claims.check_claim`,
    `nodes.rag.semantic_similarity`). tests/llm/test_embeddings_real.py overrides this fixture.
    """
    embedder = fakes.HashEmbedder()
    monkeypatch.setattr("judgegraph.llm.embeddings.default_embedder", lambda: embedder)
    return embedder


@pytest.fixture(autouse=True)
def deterministic_fan_out(monkeypatch):
    """Fanned-out tasks run one at a time, in order, so scripted replies map to claims.

    The graph that `evaluate` / `run_evaluation` / `arun_evaluation` run is the real compiled
    one with `max_concurrency=1` as its default config; a caller's own `max_concurrency`
    still wins (the per-call config is merged over it)."""
    from judgegraph.graph import api

    compiled = api.default_graph
    monkeypatch.setattr(api, "default_graph", lambda: compiled().with_config(max_concurrency=1))


@pytest.fixture
def rag_item() -> dict:
    return {
        "question": "Who founded Craigslist?",
        "context": list(CONTEXT),
        "answer": "Craig Newmark founded Craigslist in 1995.",
        "reference": "Craig Newmark founded Craigslist in 1995.",
    }


def happy_scripts(**overrides) -> dict:
    """Replies for every rag step. `extract_claims` only answers when a test runs with
    `claim_extraction="model"`; by default claims are the answer's sentences (no call), and
    similarity comes from the (fake) embedder, so `judge_semantic_similarity` only answers
    with `embeddings=False`."""
    scripts = {
        "extract_claims": fakes.claims("Craig Newmark founded Craigslist.", "Craigslist was founded in 1995."),
        "check_claim": fakes.verdict("supported", 1),
        "judge_context_relevance": fakes.context_relevance("yes", [1, 2]),
        "judge_answer_relevance": fakes.answer_relevance(),
        "judge_semantic_similarity": fakes.similarity(5),
    }
    scripts.update(overrides)
    return scripts


@pytest.fixture
def happy_judge():
    return fakes.judge(**happy_scripts())
