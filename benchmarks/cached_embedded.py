"""The CLI with the embedded judge answered from the step cache only: no llama.cpp server.

    python -m benchmarks.cached_embedded evaluate items.jsonl --model local --cache CACHE ...

Why: the escalation measurement (`benchmarks.escalation`) replays the embedded judge's replies,
recorded in a step cache by a run of the embedded judge alone, under several second judges and
bands. Started for real, the embedded judge loads its 1.1 GB model and takes the machine's
one-process-at-a-time lock for replies it never computes. Here `llm.local.local_judge` is
replaced, in this process only, by the same chat model with the same identity (model file,
n_ctx, alias: `local_model.server.LocalServer.identity`, read without starting it) pointed at a
closed port: every cached step is a hit exactly as with the real server, and a step the cache
lacks fails its call ("connection refused") instead of being judged, so a replay never holds
a reply the recorded run did not give. Repository-only (not installed).
"""

from __future__ import annotations

import socket
import sys


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cached_local_judge(model_path: str | None = None, *, timeout: float = 120.0, max_retries: int = 0):
    """`llm.local.local_judge`'s model, its server never started (see the module docstring)."""
    from judgegraph.llm import local
    from judgegraph.llm.openai_compatible import JUDGE_IDENTITY, ResolvedModel, openai_compatible
    from judgegraph.local_model import ensure_local_model
    from judgegraph.local_model.server import LocalServer

    server = LocalServer(model_path or ensure_local_model())
    resolved = openai_compatible(
        f"http://127.0.0.1:{_closed_port()}/v1", server.model_alias, api_key="local", timeout=max(timeout, 300.0),
        max_retries=0, response_format="json_object", max_tokens=local.LOCAL_MAX_TOKENS,
    )
    resolved.model.metadata = {**(resolved.model.metadata or {}), JUDGE_IDENTITY: server.identity()}
    name = model_path or "qwen2.5-coder-1.5b-instruct-q4_k_m"
    return ResolvedModel(resolved.model, f"local:{name}", "json_object", context_window=server.n_ctx, endpoint=None)


def main(argv: list[str] | None = None) -> int:
    from judgegraph.commands import cli
    from judgegraph.llm import local

    local.local_judge = cached_local_judge
    return cli.main(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    raise SystemExit(main())
