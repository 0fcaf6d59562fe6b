"""The process's embedding cache and job lock (`llm.embedding_cache`): same vectors, each text
encoded once while it is recent, bounded in entries and bytes, one job at a time."""

from __future__ import annotations

import os
import threading
import time

import pytest

from judgegraph.graph.api import run_evaluation
from judgegraph.llm import embedding_cache, embeddings
from judgegraph.llm.embedding_cache import ENTRY_OVERHEAD_BYTES, SharedEmbedder, VectorCache, shared
from judgegraph.run.context import JudgeContext
from tests.conftest import happy_scripts
from tests.support import fakes


@pytest.fixture(autouse=True)
def cold_cache():
    embedding_cache.PROCESS_CACHE.clear()
    yield
    embedding_cache.PROCESS_CACHE.clear()


def test_the_same_vectors_as_the_embedder_in_the_same_order():
    inner = fakes.HashEmbedder()
    texts = ["Craig Newmark founded Craigslist.", "a", "Craig Newmark founded Craigslist.", "埃菲尔铁塔位于巴黎。", ""]
    first = SharedEmbedder(inner).embed(texts)
    assert first == inner.embed(texts)
    assert SharedEmbedder(inner).embed(list(reversed(texts))) == list(reversed(first))  # from the cache
    assert SharedEmbedder(inner).embed([]) == []


def test_each_text_is_encoded_once_while_it_is_recent():
    inner = fakes.HashEmbedder()
    SharedEmbedder(inner).embed(["one", "two", "one"])
    SharedEmbedder(inner).embed(["two", "three"])
    assert inner.calls == [["one", "two"], ["three"]]
    stats = embedding_cache.PROCESS_CACHE.stats
    assert (stats.hits, stats.misses) == (1, 3)


def test_a_context_shared_by_a_batchs_items_is_embedded_once(rag_item):
    inner = fakes.HashEmbedder()
    context = JudgeContext(model=fakes.judge(**happy_scripts()), embedder=inner)
    run_evaluation(dict(rag_item), model=context)
    other = dict(rag_item, question="When was Craigslist founded?", answer="Craigslist was founded in 1995.")
    run_evaluation(other, model=context)
    first, second = inner.calls
    assert set(rag_item["context"]) <= set(first)
    assert not set(rag_item["context"]) & set(second), "the second item's context came from the cache"
    assert "Craigslist was founded in 1995." in second


def test_embedders_are_told_apart_by_identity_not_by_name():
    """Two embedders under one model_id (a user's own, a test's) never serve each other's vectors."""
    small, large = fakes.HashEmbedder(dimensions=8, model_id="same"), fakes.HashEmbedder(dimensions=32, model_id="same")
    assert len(SharedEmbedder(small).embed(["text"])[0]) == 8
    assert len(SharedEmbedder(large).embed(["text"])[0]) == 32


def test_an_embedder_without_weak_references_is_not_cached():
    class Slotted:
        __slots__ = ("model_id", "calls")

        def __init__(self) -> None:
            self.model_id = "slotted"
            self.calls = 0

        def embed(self, texts):
            self.calls += 1
            return [[1.0, 0.0] for _ in texts]

    inner = Slotted()
    SharedEmbedder(inner).embed(["a"])
    SharedEmbedder(inner).embed(["a"])
    assert inner.calls == 2 and len(embedding_cache.PROCESS_CACHE) == 0


def test_the_cache_is_bounded_in_entries_oldest_out_first():
    cache = VectorCache(max_entries=3, max_bytes=10**9)
    for n in range(10):
        cache.put((1, bytes([n])), [float(n)])
    assert len(cache) == 3 and cache.stats.evictions == 7
    assert cache.get((1, bytes([0]))) is None and cache.get((1, bytes([9]))) == [9.0]


def test_a_batch_of_huge_unique_texts_does_not_grow_memory_without_bound():
    """Hostile input: 300 distinct texts of 200 kB each. An entry costs its vector and a fixed
    overhead (the key is a digest, not the text), and the cache never passes its byte bound."""
    cache = VectorCache(max_entries=10**6, max_bytes=64 * 1024)
    inner = fakes.HashEmbedder(dimensions=384)
    embedder = SharedEmbedder(inner, cache)
    for n in range(300):
        embedder.embed([f"{n} " + "word " * 40_000])
        assert cache.bytes <= cache.max_bytes
    per_entry = 384 * 8 + ENTRY_OVERHEAD_BYTES
    assert len(cache) == cache.max_bytes // per_entry and cache.bytes == len(cache) * per_entry
    assert cache.stats.evictions == 300 - len(cache)


def test_a_vector_larger_than_the_whole_bound_is_not_kept():
    cache = VectorCache(max_bytes=1024)
    cache.put((1, b"k"), [0.0] * 1024)
    assert len(cache) == 0 and cache.bytes == 0


def test_one_embedding_job_at_a_time_per_process():
    class Watching(fakes.HashEmbedder):
        active = 0
        most = 0

        def embed(self, texts):
            Watching.active += 1
            Watching.most = max(Watching.most, Watching.active)
            time.sleep(0.02)
            Watching.active -= 1
            return super().embed(texts)

    one, two = Watching(), Watching()  # two embedders: still one job at a time
    threads = [threading.Thread(target=SharedEmbedder(inner).embed, args=([f"text {n}"],))
               for n in range(6) for inner in (one, two)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert Watching.most == 1


def test_a_cached_text_does_not_wait_for_another_items_job():
    release = threading.Event()

    class Slow(fakes.HashEmbedder):
        def embed(self, texts):
            if "slow" in texts:
                release.wait(5)
            return super().embed(texts)

    inner = Slow()
    SharedEmbedder(inner).embed(["cached"])
    job = threading.Thread(target=SharedEmbedder(inner).embed, args=(["slow"],))
    job.start()
    try:
        started = time.perf_counter()
        assert SharedEmbedder(inner).embed(["cached"]) == inner.embed(["cached"])
        assert time.perf_counter() - started < 2
    finally:
        release.set()
        job.join()


def test_run_embedder_wraps_the_runs_embedder_once(fake_default_embedder):
    wrapped = embeddings.run_embedder(JudgeContext())
    assert isinstance(wrapped, SharedEmbedder) and wrapped.inner is fake_default_embedder
    assert shared(wrapped) is wrapped and shared(None) is None
    assert embeddings.run_embedder(JudgeContext(embeddings=False)) is None
    assert wrapped.model_id == fake_default_embedder.model_id


def test_the_similarity_floor_is_the_wrapped_embedders():
    class Floored(fakes.HashEmbedder):
        similarity_floor = 0.8

    assert SharedEmbedder(Floored()).similarity_floor == 0.8
    assert SharedEmbedder(fakes.HashEmbedder()).similarity_floor == 0.0


@pytest.mark.parametrize(("configured", "cores", "threads"), [
    ("", 2, 1), ("", 1, 1), ("", 8, 4), ("", 16, 4), ("3", 2, 3), ("0", 8, 4), ("x", 8, 4),
])
def test_the_packaged_embedders_threads_are_bounded(monkeypatch, configured, cores, threads):
    """Half the cores (1 to 4) unless JUDGEGRAPH_EMBEDDING_THREADS says otherwise: the judge on
    the same machine keeps the other half."""
    monkeypatch.setenv(embeddings.EMBEDDING_THREADS_VARIABLE, configured)
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    assert embeddings.embedding_threads() == threads
