"""LangSmith without an API key: nothing is sent anywhere, and nothing is tried.

Why: a `langsmith.Client` starts a background thread the moment it is made, and that thread's
first act is to ask the API for its settings (`GET /info`, with retries), even under
`evaluate(..., upload_results=False)`, where nothing is uploaded. Offline, that request waits
on DNS and retries: `examples/langsmith_evaluate.py` took about 43 s for two items that were
judged in seconds. Likewise, LangChain's tracer, once tracing is on in the environment, makes
such a client for the graph's runs, which cannot be uploaded without a key anyway.

So, with no key in the environment (`LANGSMITH_API_KEY`, `LANGCHAIN_API_KEY`), the evaluators
run the graph untraced, and `local_client()` gives `evaluate` a client that starts no
background thread and never asks for `/info`. With a key, both leave LangSmith as it is.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

API_KEY_VARIABLES = ("LANGSMITH_API_KEY", "LANGCHAIN_API_KEY")
"""Where langsmith reads its API key from the environment (`langsmith.utils.get_api_key`)."""


def has_langsmith_key() -> bool:
    """Whether the environment holds a LangSmith API key (a blank value is none)."""
    return any((os.environ.get(name) or "").strip() for name in API_KEY_VARIABLES)


def local_client() -> Any:
    """A client for `evaluate(..., upload_results=False, client=local_client())`.

    With no LangSmith key: a `langsmith.Client` that never reaches the network (no background
    uploader, its API settings given rather than fetched). With a key: None, so `evaluate`
    uses langsmith's own client exactly as before.
    """
    if has_langsmith_key():
        return None
    from langsmith import Client

    return Client(auto_batch_tracing=False, info={})


@contextlib.contextmanager
def untraced_when_nothing_can_be_uploaded() -> Iterator[None]:
    """Run the graph untraced when its runs could not be uploaded, so no client is made for
    them: with no LangSmith key, and under `evaluate(..., upload_results=False)` (LangSmith's
    "local" tracing mode, which langchain-core's tracer does not know: it would upload the
    graph's own runs anyway). Elsewhere, or without langsmith, tracing is left as it is."""
    try:
        from langsmith import run_helpers
    except ImportError:
        yield
        return
    if run_helpers.get_tracing_context().get("enabled") != "local" and has_langsmith_key():
        yield
        return
    with run_helpers.tracing_context(enabled=False):
        yield
