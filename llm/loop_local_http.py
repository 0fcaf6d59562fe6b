"""An async HTTP client for the OpenAI SDK that keeps one connection pool per event loop.

Why: an httpx `AsyncClient`'s pooled connections belong to the event loop that opened them,
and langchain-openai gives every `ChatOpenAI` one process-wide cached async client (upstream
langchain-ai/langchain#35783, open). Now that the graph's steps await the model, an app that
judges under more than one event loop (`asyncio.run` per call, pytest-asyncio's loop per test,
a thread per loop) would reuse a dead loop's connection on its second loop and fail every call
with "Event loop is closed". This client is what the SDK is given instead: the SDK builds each
request on it as usual, and `send` goes through a real client of the running loop's own,
created on first use and dropped with its loop.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

import openai


class LoopLocalAsyncClient(openai.DefaultAsyncHttpxClient):
    """Builds requests like the SDK's default client; sends them on the running loop's client."""

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        self._settings = settings
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()

    def _client_of_this_loop(self) -> Any:
        loop = asyncio.get_running_loop()
        client = self._by_loop.get(loop)
        if client is None or client.is_closed:
            client = self._by_loop[loop] = openai.DefaultAsyncHttpxClient(**self._settings)
        return client

    async def send(self, request: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        return await self._client_of_this_loop().send(request, **kwargs)

    async def aclose(self) -> None:
        for client in list(self._by_loop.values()):
            try:
                await client.aclose()
            except RuntimeError:  # a client of a loop that is already closed: nothing to flush
                pass
        await super().aclose()
