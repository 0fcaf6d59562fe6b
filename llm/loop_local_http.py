"""An async HTTP client for the OpenAI SDK that keeps one connection pool per event loop.

Why: an httpx `AsyncClient`'s pooled connections belong to the event loop that opened them,
and langchain-openai gives every `ChatOpenAI` one process-wide cached async client (upstream
langchain-ai/langchain#35783, open). The graph's steps await the model, so an app that
judges under more than one event loop (`asyncio.run` per call, pytest-asyncio's loop per test,
a thread per loop) would reuse a dead loop's connection on its second loop and fail every call
with "Event loop is closed". This client is what the SDK is given instead: the SDK builds each
request on it as usual, and `send` goes through a real client of the running loop's own,
created on first use and dropped with its loop.

A loop that runs a whole batch can do better (`batch_http_pool`): its clients send through
aiohttp (the SDK's own `DefaultAioHttpClient`, with the same timeouts and error mapping), which
costs less CPU per call than httpx's pool, whose every request checks every pooled connection
(docs/benchmarks.md has the figures), and the pool is closed when the batch ends. Other loops keep httpx: an
aiohttp session left open when an embedder's `asyncio.run` returns would warn at exit, and the
Ray actors stalled with aiohttp against a server whose accept queue overflowed (docs/batch.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import weakref
from collections.abc import AsyncIterator
from typing import Any

import openai

from .bounded_http import MAX_REPLY_BYTES, bounded_async_send, not_retried_if_refused

AIOHTTP = importlib.util.find_spec("aiohttp") is not None
"""The SDK's aiohttp transport needs the aiohttp package (a judgegraph dependency); installed
without it, every loop keeps httpx."""

_aiohttp_loops: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()
"""Loops inside `batch_http_pool`: their clients send through aiohttp."""
_clients: weakref.WeakSet[LoopLocalAsyncClient] = weakref.WeakSet()


class LoopLocalAsyncClient(openai.DefaultAsyncHttpxClient):
    """Builds requests like the SDK's default client; sends them on the running loop's client,
    each under a total deadline of `deadline_s` with a bounded body (`llm.bounded_http`)."""

    def __init__(self, *, deadline_s: float | None = None, max_reply_bytes: int = MAX_REPLY_BYTES,
                 **settings: Any) -> None:
        super().__init__(**settings)
        self._settings = settings
        self.deadline_s = deadline_s
        self.max_reply_bytes = max_reply_bytes
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()
        _clients.add(self)

    def _client_of_this_loop(self) -> Any:
        loop = asyncio.get_running_loop()
        client = self._by_loop.get(loop)
        if client is None or client.is_closed:
            factory = openai.DefaultAioHttpClient if loop in _aiohttp_loops else openai.DefaultAsyncHttpxClient
            client = self._by_loop[loop] = factory(**self._settings)
        return client

    async def aclose_this_loop(self) -> None:
        """Close the running loop's client (its connections), if it has one."""
        client = self._by_loop.pop(asyncio.get_running_loop(), None)
        if client is not None and not client.is_closed:
            await client.aclose()

    async def send(self, request: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        try:
            if self.deadline_s is None:
                return await self._client_of_this_loop().send(request, **kwargs)
            return await bounded_async_send(self._client_of_this_loop(), request, deadline_s=self.deadline_s,
                                            max_reply_bytes=self.max_reply_bytes, **kwargs)
        except Exception as error:
            refused = not_retried_if_refused(error, request)  # before renaming: the SDK retries neither
            if refused is not error:
                raise refused from error
            renamed = _named_for_what_happened(error)
            if renamed is error:
                raise
            raise renamed from error.__cause__

    async def aclose(self) -> None:
        for client in list(self._by_loop.values()):
            try:
                await client.aclose()
            except RuntimeError:  # a client of a loop that is already closed: nothing to flush
                pass
        await super().aclose()


@contextlib.asynccontextmanager
async def batch_http_pool() -> AsyncIterator[bool]:
    """For the running loop, while inside: OpenAI-compatible judges send through aiohttp (when
    installed; yields whether they do), and every judge's connections of this loop are closed
    on the way out. The batch runner wraps a run in it; an app that judges many items in one
    long-lived loop can too."""
    loop = asyncio.get_running_loop()
    if AIOHTTP:
        _aiohttp_loops.add(loop)
    try:
        yield AIOHTTP
    finally:
        _aiohttp_loops.discard(loop)
        for client in list(_clients):
            await client.aclose_this_loop()


def _named_for_what_happened(error: Exception) -> Exception:
    """The SDK's aiohttp transport maps every `aiohttp.ClientConnectionError` to httpx's
    `ConnectTimeout`, so a connection the server dropped would fail as "Request timed out".
    That error becomes httpx's `ConnectError` ("Connection error.", as with httpx); a real
    timeout stays a timeout, and the SDK retries both alike. Anything else is `error` itself."""
    if type(error).__name__ != "ConnectTimeout" or not AIOHTTP:
        return error
    import aiohttp

    cause = error.__cause__
    if not isinstance(cause, aiohttp.ClientConnectionError) or isinstance(cause, TimeoutError):
        return error
    httpx_module = importlib.import_module(type(error).__module__.split(".")[0])  # the SDK's httpx2
    return httpx_module.ConnectError(str(error) or type(cause).__name__)
