"""Talking to any OpenAI-compatible server, and what a resolved judge model is.

Why its own module: both `llm.models` (which picks the judge) and `llm.local` (which starts the
embedded server and then talks to it like any other server) need these; keeping them here lets
`llm.models` import `llm.local` without `llm.local` importing `llm.models` back.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from .response_format import Dialect

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_RETRIES = 3


class ModelConfigError(Exception):
    """The judge model cannot be set up as asked; the message says how to fix it (one line)."""


@dataclass(frozen=True)
class ResolvedModel:
    model: BaseChatModel
    model_id: str
    response_format: Dialect
    context_window: int | None = None
    """The judge's window in tokens when the server is ours (the embedded one); else unknown."""
    endpoint: str | None = None
    """Where the judge is reached (its base URL, or the provider's model spec), for the probe
    before a batch and for messages that name it; None for a chat model handed in as it is."""


JUDGE_IDENTITY = "judgegraph_judge_identity"
"""The key, in a chat model's `metadata`, of what the judge is when its address says nothing of
it: the embedded judge's model file and settings (`llm.local`). Its server gets a new port on
every start, so a step cache keyed by the address never hit twice; keyed by this, it does
(`batch.cache`). Metadata, because the chat model is what the cache is attached to and what an
app hands around: the model says what it is wherever it goes."""


def judge_identity(model: object) -> str | None:
    """The identity `llm.local` gave this chat model (`JUDGE_IDENTITY`); None for any other,
    whose address is part of what it is."""
    metadata = getattr(model, "metadata", None)
    value = metadata.get(JUDGE_IDENTITY) if isinstance(metadata, dict) else None
    return value if isinstance(value, str) else None


def openai_compatible(
    base_url: str,
    model_name: str | None,
    *,
    api_key: str | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    max_retries: int = DEFAULT_RETRIES,
    response_format: Dialect = "json_schema",
    max_tokens: int | None = None,
) -> ResolvedModel:
    """A chat model for any OpenAI-compatible server (OpenAI, vLLM, llama.cpp, LM Studio...).

    The OpenAI SDK retries timeouts, connection errors, 429 and 5xx with exponential backoff
    and jitter, honouring Retry-After: `max_retries` sets how many times. `timeout` bounds each
    HTTP attempt as a whole, not each network read (`llm.bounded_http`).
    """
    from langchain_openai import ChatOpenAI

    from .bounded_http import BoundedHttpxClient
    from .loop_local_http import LoopLocalAsyncClient

    name = (model_name or "default").removeprefix("openai:")
    model = ChatOpenAI(
        model=name,
        base_url=base_url,
        api_key=api_key or os.environ.get("OPENAI_API_KEY") or "not-needed",
        temperature=0,
        timeout=timeout,
        max_retries=max_retries,
        max_tokens=max_tokens,
        # `timeout` is also each request's total deadline, and replies are size-bounded
        # (llm.bounded_http); async calls work under any event loop (llm.loop_local_http)
        http_client=BoundedHttpxClient(deadline_s=timeout),
        http_async_client=LoopLocalAsyncClient(deadline_s=timeout),
    )
    return ResolvedModel(model, f"openai-compatible:{name}@{base_url}", response_format, endpoint=base_url)
