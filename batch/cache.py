"""An opt-in persistent step cache (`--cache PATH`): SQLite behind LangChain's `BaseCache`.

Why at the chat-model level and not as a LangGraph node cache: a node's cache key is its input
only (GUIDE pitfall 5), while LangChain looks a reply up by the *rendered* prompt and the model's
parameters, including bound kwargs such as `response_format` (which names the step's schema).
So after one prompt template changes, a re-run re-asks only the steps whose rendered prompt
changed; every other step is answered from the cache.

Key = sha256(model identity, normalised llm string, serialised prompt):
- the model identity is `JudgeContext.model_id` (e.g. `openai-compatible:qwen@http://host/v1`),
  so two servers that both call their model "default" never share replies;
- the embedded judge is its model file and settings (`llm.openai_compatible.judge_identity`),
  not its address: its server takes a new port on every start, and with the address in the key
  no reply was ever read back (every pytest run judged every item again, and the file grew by
  a copy of every reply). For it the address is dropped from the llm string; any other judge
  keeps it, since there the address is part of what the judge is;
- LangChain's llm string holds the model's constructor kwargs and the call's kwargs; transport
  settings that cannot change a reply (timeout, retries, API key) are dropped from it, so
  `--timeout 30` and `--timeout 60` share a cache.

Cached replies and token usage: a hit costs no call and no tokens, so the reply is returned with
its usage zeroed (the original counts stay in the database); the runner counts hits per item and
subtracts them from `usage.calls`. Model exceptions are never cached (LangChain only stores
successful generations), so a transport failure is retried on the next run; invalid-but-received
replies are cached like any reply, and replay the same repair path.

A damaged row (a reply that is no longer the JSON this module wrote: a disk fault, a tool that
edited the file, a crash mid-write on a filesystem without WAL's guarantees) is a miss: the judge
is asked, its reply replaces the row, and the cache says so once (a `CacheDamageWarning`, or the
CLI's one stderr line). Read as a hit, it failed its step with "model call failed:
JSONDecodeError" on every later run, the judge never asked.

Thread safety: the graph runs sync nodes in worker threads, so each thread gets its own sqlite3
connection; the database uses WAL so readers never block the single writer.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import sqlite3
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.caches import RETURN_VAL_TYPE, BaseCache
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, Generation

TRANSPORT_ONLY_KWARGS = frozenset({
    "max_retries", "request_timeout", "timeout", "openai_api_key", "api_key",
    "http_client", "http_async_client", "default_headers", "default_query",
})
"""Constructor settings that change how a reply is fetched, never what it says."""

ADDRESS_KWARGS = frozenset({"openai_api_base", "base_url"})
"""Where the judge is: dropped from the key of a judge whose identity says what it is."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY,
    model_id TEXT NOT NULL,
    created REAL NOT NULL,
    generations TEXT NOT NULL
)
"""


class CacheError(Exception):
    """The cache file cannot be opened; one line, for exit 2."""


class CacheDamageWarning(UserWarning):
    """A cached reply could not be read back; it was treated as a miss and replaced."""


def _warn(message: str) -> None:
    warnings.warn(message, CacheDamageWarning, stacklevel=2)


DAMAGED_ROW_ERRORS = (ValueError, TypeError, KeyError, AttributeError)
"""What reading a damaged row back raises: not JSON (`json.JSONDecodeError` is a ValueError),
not the rows this module writes (a missing key, a string where a list was), a message LangChain
refuses (pydantic's ValidationError is a ValueError)."""


@dataclass
class HitCounter:
    """Hits seen by one item; set per item through `ITEM_HITS` (copied into worker threads)."""

    hits: int = 0


ITEM_HITS: contextvars.ContextVar[HitCounter | None] = contextvars.ContextVar("judgegraph_item_hits", default=None)
"""The runner sets a fresh counter in each item's task; LangGraph copies the context into the
threads that run that item's nodes, so a hit is credited to the right item."""


def normalise_llm_string(llm_string: str, dropped: frozenset[str] = TRANSPORT_ONLY_KWARGS) -> str:
    """LangChain's llm string without transport-only settings (see module docstring), nor any
    other of `dropped`."""
    head, sep, params = llm_string.partition("---")
    try:
        serialized = json.loads(head)
    except json.JSONDecodeError:
        return llm_string
    kwargs = serialized.get("kwargs") if isinstance(serialized, dict) else None
    if isinstance(kwargs, dict):
        serialized["kwargs"] = {k: v for k, v in kwargs.items() if k not in dropped}
    return json.dumps(serialized, sort_keys=True) + sep + params


def _encode(generations: Sequence[Generation]) -> str | None:
    """Chat generations as plain JSON (no pickles, no LangChain `loads` of arbitrary objects)."""
    rows = []
    for generation in generations:
        message = getattr(generation, "message", None)
        if not isinstance(message, AIMessage):
            return None
        rows.append({
            "content": message.content,
            "response_metadata": message.response_metadata,
            "usage_metadata": dict(message.usage_metadata or {}),
            "generation_info": generation.generation_info,
        })
    return json.dumps(rows, ensure_ascii=False, default=str)


def _decode(text: str) -> list[Generation]:
    generations: list[Generation] = []
    for row in json.loads(text):
        metadata = dict(row.get("response_metadata") or {})
        metadata["judgegraph_cache"] = "hit"
        message = AIMessage(
            content=row["content"],
            response_metadata=metadata,
            usage_metadata={"input_tokens": 0, "output_tokens": 0, "total_tokens": 0},
        )
        generations.append(ChatGeneration(message=message, generation_info=row.get("generation_info")))
    return generations


class SqliteStepCache(BaseCache):
    """LangChain cache on SQLite, keyed with the judge's identity; counts hits and lookups."""

    def __init__(self, path: Path | str, model_id: str, *, identity: str | None = None,
                 warn: Callable[[str], None] = _warn) -> None:
        """`identity`: what the judge is when its address says nothing of it (the embedded
        judge's model file and settings); the address is then left out of the key. `warn`: how
        the first damaged row is named (default: a `CacheDamageWarning`)."""
        self.path = str(path)
        self.warn = warn
        self.damaged = 0
        self.model_id = model_id
        self.identity = identity
        self._dropped = TRANSPORT_ONLY_KWARGS | ADDRESS_KWARGS if identity else TRANSPORT_ONLY_KWARGS
        self._local = threading.local()
        self._lock = threading.Lock()
        self.lookups = 0
        self.hits = 0
        self._connect()  # fail now, with a clear message, rather than inside a worker thread

    def _connect(self) -> sqlite3.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            return connection
        try:
            connection = sqlite3.connect(self.path, timeout=30.0, check_same_thread=True)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute(_SCHEMA)
            connection.commit()
        except sqlite3.Error as error:
            raise CacheError(f"cannot open cache {self.path}: {error}") from error
        self._local.connection = connection
        return connection

    def key(self, prompt: str, llm_string: str) -> str:
        digest = hashlib.sha256()
        parts = [self.model_id, normalise_llm_string(llm_string, self._dropped), prompt]
        if self.identity:
            parts.append(self.identity)
        for part in parts:
            digest.update(part.encode("utf-8"))
            digest.update(b"\x00")
        return digest.hexdigest()

    def lookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        key = self.key(prompt, llm_string)
        row = self._connect().execute("SELECT generations FROM replies WHERE key = ?", (key,)).fetchone()
        generations = self._read_back(key, row[0]) if row is not None else None
        with self._lock:
            self.lookups += 1
            if generations is not None:
                self.hits += 1
        if generations is None:
            return None
        counter = ITEM_HITS.get()
        if counter is not None:
            counter.hits += 1
        return generations

    def _read_back(self, key: str, text: Any) -> list[Generation] | None:
        """The cached reply, or None for a damaged row: deleted (the judge's new reply takes its
        place) and named the first time (module docstring)."""
        try:
            return _decode(text)
        except DAMAGED_ROW_ERRORS as error:
            connection = self._connect()
            connection.execute("DELETE FROM replies WHERE key = ?", (key,))
            connection.commit()
            with self._lock:
                self.damaged += 1
                first = self.damaged == 1
            if first:
                self.warn(f"the step cache {self.path} held a damaged reply ({type(error).__name__}); "
                          "it was treated as a miss: the judge is asked again and the row replaced")
            return None

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        encoded = _encode(return_val)
        if encoded is None:
            return
        connection = self._connect()
        connection.execute(
            "INSERT OR REPLACE INTO replies (key, model_id, created, generations) VALUES (?, ?, ?, ?)",
            (self.key(prompt, llm_string), self.model_id, time.time(), encoded),
        )
        connection.commit()

    def clear(self, **kwargs: Any) -> None:
        connection = self._connect()
        connection.execute("DELETE FROM replies")
        connection.commit()

    def entries(self) -> int:
        return int(self._connect().execute("SELECT COUNT(*) FROM replies").fetchone()[0])


def attach_cache(model: Any, path: Path | str, model_id: str,
                 warn: Callable[[str], None] = _warn) -> SqliteStepCache:
    """Set the cache on the chat model (its `cache` field); raise CacheError if it has none.
    `warn`: how a damaged row is named (`SqliteStepCache`)."""
    from langchain_core.language_models import BaseChatModel

    if not isinstance(model, BaseChatModel):
        raise CacheError(f"--cache needs a LangChain chat model, got {type(model).__name__}")
    from ..llm.openai_compatible import judge_identity

    cache = SqliteStepCache(path, model_id, identity=judge_identity(model), warn=warn)
    model.cache = cache
    return cache
