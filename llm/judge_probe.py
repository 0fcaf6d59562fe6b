"""One cheap check that the judge answers, before a batch spends hours on items.

Why: a wrong `--base-url`, a typo in `--model` or a missing key made every item of a batch fail
with the same transport error, one record at a time, and the run still ended "successfully".
The probe checks the three things the flags name (the server is there, the key is accepted,
the model exists) once, and the batch stops with exit 2 and one line naming the URL and the
cause.

How, for an OpenAI-compatible judge (OpenAI, vLLM, llama.cpp, Ollama, LM Studio...), through the
chat model's own client (its URL, key, headers, timeout and retries):

1. `GET {base_url}/models/{name}`: when the server answers with the model, URL, key and name
   are verified without spending a token;
2. otherwise (servers that do not implement that route, or that serve a model under another
   name, as llama.cpp answers any name), a 1-token chat completion for the model: it succeeds
   exactly when the judge's own calls could, and fails with 404 when the name is unknown.

A connection failure or a refused key at step 1 ends the probe at once. Any other chat model
(another provider's) gets the 1-token completion's equivalent: one short `invoke`.
"""

from __future__ import annotations

from typing import Any

from .judge_errors import request_url, setup_cause

PROBE_PROMPT = "Reply with OK."


class JudgeUnreachableError(Exception):
    """The judge cannot be used as configured; the message is one line naming where and why."""


def judge_url(model: Any) -> str | None:
    """Where an OpenAI-compatible chat model sends its requests (None for other models)."""
    client = getattr(model, "root_client", None)
    url = getattr(client, "base_url", None) or getattr(model, "openai_api_base", None)
    return str(url).rstrip("/") if url else None


def _speaks_openai(model: Any) -> bool:
    return any(base.__name__ == "BaseChatOpenAI" for base in type(model).__mro__)


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {text[:200]}" if text else type(error).__name__


def _failure(where: str, name: str | None, error: BaseException, role: str = "judge") -> JudgeUnreachableError:
    cause = setup_cause(error) or _one_line(error)
    if cause.startswith("model not found") and name:
        cause = f"model {name!r} not found (HTTP 404)"
    return JudgeUnreachableError(f"cannot use the {role} at {where}: {cause}")


def probe_judge(model: Any, *, endpoint: str | None = None, role: str | None = None) -> None:
    """Raise `JudgeUnreachableError` unless the judge answers (see the module docstring);
    `role` names it in the message ("second judge": `--escalate-to`'s)."""
    role = role or "judge"
    if _speaks_openai(model):
        _probe_openai(model, endpoint or judge_url(model) or "its default URL", role)
        return
    where = endpoint or getattr(model, "model_name", None) or type(model).__name__
    try:
        model.invoke(PROBE_PROMPT)
    except Exception as error:  # noqa: BLE001 - every provider raises its own classes
        raise _failure(request_url(error) or str(where), None, error, role) from error


def _probe_openai(model: Any, where: str, role: str = "judge") -> None:
    import openai

    client = model.root_client
    name = str(getattr(model, "model_name", "") or "")
    try:
        listed = client.models.retrieve(name) if name else None
        if listed is not None and getattr(listed, "id", None):
            return
    except (openai.APIConnectionError, openai.AuthenticationError, openai.PermissionDeniedError) as error:
        raise _failure(where, name, error, role) from error
    except openai.APIError:
        pass  # no such route, or the server lists models under other names: ask for a token
    try:
        client.chat.completions.create(model=name, messages=[{"role": "user", "content": PROBE_PROMPT}],
                                       max_tokens=1, temperature=0)
    except openai.APIError as error:
        raise _failure(where, name, error, role) from error
