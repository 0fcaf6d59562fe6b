"""Choosing the judge model from flags, environment, or nothing at all.

Precedence: `--model local` / `--local-model` -> the embedded local judge; `--base-url` ->
an OpenAI-compatible server through langchain-openai (the model name as given, colons and
all); `--model provider:name` or `JUDGEGRAPH_MODEL` -> `init_chat_model`, for every provider
but `openai`, whatever `OPENAI_BASE_URL` says; `OPENAI_BASE_URL` -> an OpenAI-compatible server
for a plain model name or `openai:name`; nothing -> the embedded local judge.

Why `OPENAI_BASE_URL` does not catch `anthropic:...`: it names where OpenAI-style requests go,
and a spec that names another provider asks for that provider: sent to the environment's
server under that name, such a spec (or a misspelt one, `nosuch:model`) could "succeed" there.
So a provider is that provider, and an unknown one is refused in one line.
A model name with a colon on an OpenAI-compatible server (Ollama's `llama3:8b`) goes with
`--base-url` (or the served graph's `base_url`).
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from .openai_compatible import (
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT_S,
    ModelConfigError,
    ResolvedModel,
    openai_compatible,
)
from .response_format import Dialect

__all__ = ["DEFAULT_RETRIES", "DEFAULT_TIMEOUT_S", "LOCAL", "ModelConfigError", "ResolvedModel",
           "default_model", "default_model_if_resolved", "openai_compatible", "resolve_model"]

LOCAL = "local"


def resolve_model(
    model: str | None = None,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    local_model_path: str | None = None,
    response_format: Dialect | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    max_retries: int = DEFAULT_RETRIES,
) -> ResolvedModel:
    model = model or os.environ.get("JUDGEGRAPH_MODEL") or None
    if model == LOCAL or local_model_path or (not model and not base_url and not os.environ.get("OPENAI_BASE_URL")):
        from .local import local_judge

        resolved = local_judge(local_model_path, timeout=timeout, max_retries=max_retries)
        return _with_dialect(resolved, response_format)
    if not base_url and not names_another_provider(model):
        base_url = os.environ.get("OPENAI_BASE_URL")
    if base_url:
        return openai_compatible(
            base_url, model, api_key=api_key, timeout=timeout, max_retries=max_retries,
            response_format=response_format or "json_schema",
        )
    return _from_provider(model, timeout=timeout, max_retries=max_retries, response_format=response_format)


def names_another_provider(model: str | None) -> bool:
    """Whether `model` is a `provider:name` spec for a provider other than OpenAI (which the
    environment's `OPENAI_BASE_URL` must not capture)."""
    if not model or ":" not in model:
        return False
    return model.split(":", 1)[0].strip().lower() != "openai"


def _from_provider(
    spec: str, *, timeout: float, max_retries: int, response_format: Dialect | None
) -> ResolvedModel:
    from langchain.chat_models import init_chat_model

    kwargs: dict[str, Any] = {"temperature": 0, "timeout": timeout, "max_retries": max_retries}
    if spec.startswith("openai:"):
        from .bounded_http import BoundedHttpxClient
        from .loop_local_http import LoopLocalAsyncClient

        # see llm.loop_local_http and llm.bounded_http (a total deadline, a bounded reply)
        kwargs["http_client"] = BoundedHttpxClient(deadline_s=timeout)
        kwargs["http_async_client"] = LoopLocalAsyncClient(deadline_s=timeout)
    try:
        chat = init_chat_model(spec, **kwargs)
    except ImportError as error:
        raise ModelConfigError(f"model {spec!r} needs a provider package: {error}") from error
    except ValueError as error:
        raise ModelConfigError(
            f"cannot set up model {spec!r}: {str(error).splitlines()[0]} "
            "(use --model provider:name, e.g. openai:gpt-4o-mini)"
        ) from error
    except Exception as error:  # noqa: BLE001 - provider clients raise their own config errors
        raise ModelConfigError(f"cannot set up model {spec!r}: {type(error).__name__}: {error}") from error
    from .judge_probe import judge_url

    return ResolvedModel(chat, spec, response_format or "json_schema", endpoint=judge_url(chat) or spec)


def _with_dialect(resolved: ResolvedModel, dialect: Dialect | None) -> ResolvedModel:
    if dialect is None or dialect == resolved.response_format:
        return resolved
    return replace(resolved, response_format=dialect)


_default_judge: ResolvedModel | None = None


def default_model() -> ResolvedModel:
    """The judge used when the graph is embedded without a model: environment, else local.
    Resolved once per process."""
    global _default_judge
    if _default_judge is None:
        _default_judge = resolve_model()
    return _default_judge


def default_model_if_resolved() -> ResolvedModel | None:
    """The default judge if this process has resolved it already, else None: for naming the
    judge a run used without starting one (`run.context.run_profile`)."""
    return _default_judge
