"""The process's embedding jobs: one at a time, and each text embedded once while it is recent.

Why: the embedder and the judge share the machine's cores. An item's nodes run concurrently
(LangGraph runs them in parallel, a batch runs items in parallel), and before this module each
node embedded on its own, in its own thread, while other nodes waited on the judge: the
embedder then competed with the judge for the cores for the whole item. Now

- an item's texts are embedded once, in one batch, before its first model call
  (`graph.every_item.item_embeddings`), and every node reads them back from this cache;
- at most one embedding job runs per process (`EMBEDDING_JOB_LOCK`): two items' jobs queue
  instead of splitting the cores three ways with the judge;
- what repeats across a batch (one context shared by many questions, one question asked of
  many contexts) is embedded once.

The cache is keyed by the embedder's identity (the object, not its `model_id`: two embedders
under one name may give different vectors) and a digest of the text, so a huge text costs its
digest, not its length, in memory. It is bounded in entries and in bytes (each vector is
stored as a packed array of doubles: the same values as the embedder's floats, no rounding),
oldest first out: a batch of huge unique texts cannot grow it without bound.
"""

from __future__ import annotations

import hashlib
import itertools
import threading
import weakref
from array import array
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

Vector = list[float]

DEFAULT_MAX_ENTRIES = 8192
DEFAULT_MAX_BYTES = 32 * 1024 * 1024
"""32 MiB: about 10,000 e5-small vectors (384 doubles each), the texts of ~80 long items."""
ENTRY_OVERHEAD_BYTES = 200
"""What one entry costs besides its vector's values (key tuple, digest, array header, dict slot)."""

EMBEDDING_JOB_LOCK = threading.Lock()
"""Held while an embedder encodes: one embedding job per process at a time."""


class _Embeds(Protocol):
    model_id: str

    def embed(self, texts: Sequence[str]) -> list[Vector]: ...


def text_key(text: str) -> bytes:
    """A fixed-size key for a text of any length."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class _Identities:
    """A serial number per live embedder object. A new object gets a new serial even when it
    reuses a dead one's `id`, so a cache entry never serves another object's vectors."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._serials = itertools.count(1)
        self._by_id: dict[int, tuple[weakref.ref, int]] = {}

    def serial(self, embedder: object) -> int | None:
        """The embedder's serial; None when it cannot be tracked (no weak reference), and is
        then not cached."""
        with self._lock:
            known = self._by_id.get(id(embedder))
            if known is not None and known[0]() is embedder:
                return known[1]
            try:
                reference = weakref.ref(embedder)
            except TypeError:
                return None
            if len(self._by_id) > 1024:  # drop dead embedders' entries now and then
                self._by_id = {key: value for key, value in self._by_id.items() if value[0]() is not None}
            serial = next(self._serials)
            self._by_id[id(embedder)] = (reference, serial)
            return serial


_IDENTITIES = _Identities()


@dataclass
class CacheStats:
    """What the cache did, counted per distinct text of each `embed` (for the benchmark)."""

    hits: int = 0
    misses: int = 0
    evictions: int = 0


class VectorCache:
    """Vectors by (embedder serial, text digest), least recently used first out, bounded in
    entries and bytes. Thread-safe; lookups never wait for an embedding job."""

    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.stats = CacheStats()
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple[int, bytes], array] = OrderedDict()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes(self) -> int:
        return self._bytes

    @staticmethod
    def _size(vector: array) -> int:
        return vector.itemsize * len(vector) + ENTRY_OVERHEAD_BYTES

    def get(self, key: tuple[int, bytes]) -> Vector | None:
        with self._lock:
            vector = self._entries.get(key)
            if vector is None:
                return None
            self._entries.move_to_end(key)
            return vector.tolist()

    def count(self, *, hits: int, misses: int) -> None:
        """Record what one `embed` found (hits) and had encoded (misses)."""
        with self._lock:
            self.stats.hits += hits
            self.stats.misses += misses

    def put(self, key: tuple[int, bytes], vector: Sequence[float]) -> None:
        packed = array("d", vector)
        size = self._size(packed)
        if size > self.max_bytes:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= self._size(old)
            self._entries[key] = packed
            self._bytes += size
            while len(self._entries) > self.max_entries or self._bytes > self.max_bytes:
                _, dropped = self._entries.popitem(last=False)
                self._bytes -= self._size(dropped)
                self.stats.evictions += 1

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0
            self.stats = CacheStats()


PROCESS_CACHE = VectorCache()
"""The one cache of the process: every run's embedder reads and fills it."""


class SharedEmbedder:
    """An embedder as a run uses it: cached vectors first, the rest encoded in one batch under
    the process's job lock. Same vectors as the wrapped embedder's, in the same order."""

    def __init__(self, inner: _Embeds, cache: VectorCache = PROCESS_CACHE) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self._cache = cache
        self._serial = _IDENTITIES.serial(inner)
        self.encoded = 0
        """Texts this wrapper had the embedder encode (the rest came from the cache)."""

    @property
    def similarity_floor(self) -> float:
        return float(getattr(self.inner, "similarity_floor", 0.0) or 0.0)

    def cached(self, texts: Sequence[str]) -> dict[str, Vector]:
        """The vectors of `texts` already in the cache, by text (no encoding)."""
        if self._serial is None:
            return {}
        found: dict[str, Vector] = {}
        for text in dict.fromkeys(texts):
            vector = self._cache.get((self._serial, text_key(text)))
            if vector is not None:
                found[text] = vector
        return found

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        texts = list(texts)
        if not texts:
            return []
        found = self.cached(texts)
        missing = [text for text in dict.fromkeys(texts) if text not in found]
        encoded_before = self.encoded
        if missing:
            with EMBEDDING_JOB_LOCK:
                found.update(self.cached(missing))  # another thread may have encoded them meanwhile
                still_missing = [text for text in missing if text not in found]
                if still_missing:
                    vectors = self.inner.embed(still_missing)
                    self.encoded += len(still_missing)
                    for text, vector in zip(still_missing, vectors):
                        plain = [float(x) for x in vector]
                        found[text] = plain
                        if self._serial is not None:
                            self._cache.put((self._serial, text_key(text)), plain)
        encoded = self.encoded - encoded_before
        self._cache.count(hits=len(found) - encoded, misses=encoded)
        return [list(found[text]) for text in texts]


def shared(embedder: _Embeds | None) -> SharedEmbedder | None:
    """`embedder` behind the process's cache and job lock (None stays None; a shared one as is)."""
    if embedder is None or isinstance(embedder, SharedEmbedder):
        return embedder
    return SharedEmbedder(embedder)
