"""One way to build a judge: (a model or its name, the run's flags, a calibration profile) ->
the run's `JudgeContext`.

Why one function: the CLI's flags, `evaluate` and `run_evaluation`, `evaluate_batch`, the
evaluators, the pytest plugin's session and the served graph all turn "which judge, how" into
a context. Built in seven places, they drifted apart (one named a chat model by `model_name`
only, another also by `model`; some kept the judge's endpoint, some dropped it; one ignored the
settings given with no model). Here a named model is resolved by the CLI's own rules
(`llm.models.resolve_model`), a chat model is named the same way everywhere, and the profile
is read (a file's path or a `Profile`) before any judge is started, so a bad file costs no
server start; the context resolves which profile decides (`JudgeContext.profile`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from ..calibration.profile import Profile, load_profile
from ..llm.openai_compatible import ResolvedModel
from ..llm.response_format import Dialect
from .context import JudgeContext

ModelSpec = BaseChatModel | JudgeContext | str | None
"""A chat model, a full context, a model named as the CLI names it (`"openai:gpt-4o-mini"`,
`"local"`, or a model served at `base_url=`), or None for the default judge."""


def build_judge(
    model: ModelSpec | ResolvedModel = None,
    *,
    calibration: Profile | str | Path | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    local_model_path: str | None = None,
    response_format: Dialect | None = None,
    timeout: float | None = None,
    max_retries: int | None = None,
    resolve_now: bool = False,
    model_id: str | None = None,
    **flags: Any,
) -> JudgeContext:
    """The run's `JudgeContext`, its calibration profile resolved (`JudgeContext.profile`).

    Args:
        model: a `JudgeContext` (returned as it is, the rest unused); a judge resolved already
            (`llm.models.ResolvedModel`: the served graph keeps one per choice); a chat model;
            a model named as the CLI names it; or None: the default judge (`JUDGEGRAPH_MODEL`,
            `OPENAI_BASE_URL`, else the embedded model), resolved by the graph's first step
            unless `resolve_now` or `base_url`.
        calibration: the profile that decides the scores, or its file's path (read first).
        base_url, api_key, local_model_path, response_format, timeout, max_retries: how a
            model given by name is reached (the CLI's flags of the same names);
            `response_format` also sets a chat model's dialect.
        resolve_now: with no model, resolve the default judge here (a batch probes it before
            its first item) rather than in the graph's first step.
        model_id: names a chat model in traces and cache keys (default: its model name).
        **flags: the other `JudgeContext` fields (`max_repairs=`, `claim_check=`...).

    Raises:
        ModelConfigError: a named model that cannot be set up.
        ProfileError: a profile file that cannot be read; `ProfileMismatchError`, a profile
            fitted for another judge.
    """
    if isinstance(model, JudgeContext):
        return model
    if isinstance(calibration, (str, Path)):
        calibration = load_profile(calibration)
    flags["calibration"] = calibration
    if isinstance(model, BaseChatModel):
        if response_format is not None:
            flags["response_format"] = response_format
        return JudgeContext(model=model, model_id=model_id or chat_model_id(model), **flags)
    if isinstance(model, str) or base_url or resolve_now or local_model_path:
        from ..llm.models import resolve_model  # deferred: a provider's client is only built when named

        connection = {key: value for key, value in (("timeout", timeout), ("max_retries", max_retries))
                      if value is not None}
        model = resolve_model(model, base_url=base_url, api_key=api_key, local_model_path=local_model_path,
                              response_format=response_format, **connection)
    if isinstance(model, ResolvedModel):
        return JudgeContext(model=model.model, model_id=model.model_id, endpoint=model.endpoint,
                            response_format=model.response_format,
                            **flags | {"context_window": flags.get("context_window") or model.context_window})
    if response_format is not None:
        flags["response_format"] = response_format
    return JudgeContext(**flags)  # the default judge, resolved by the graph's first step


def chat_model_id(model: BaseChatModel) -> str:
    """How a chat model handed in is named in traces and cache keys: its model's name."""
    return str(getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__)
