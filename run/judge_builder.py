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
from ..llm.openai_compatible import ModelConfigError, ResolvedModel
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
    escalate_to: ModelSpec | ResolvedModel = None,
    escalate_base_url: str | None = None,
    escalate_api_key: str | None = None,
    escalate_band: float | str | None = None,
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
        escalate_to, escalate_base_url, escalate_api_key: the second judge (`--escalate-to`,
            issue 57), built here by the same rules as the first (`run.escalation`): its own
            URL and key (`JUDGEGRAPH_ESCALATE_API_KEY` when none is given, else the provider's
            usual variable), the first's timeout and retries.
        escalate_band: `"all"` (a jury: both judges on every decision) or a confidence
            (escalate a decision whose probability is inside (1 - c, c)); default: the first
            judge's profile's fit for `agreement=`, else the default band.
        **flags: the other `JudgeContext` fields (`max_repairs=`, `claim_check=`, `agreement=`...).

    Raises:
        ModelConfigError: a named model that cannot be set up.
        ProfileError: a profile file that cannot be read; `ProfileMismatchError`, a profile
            fitted for another judge.
    """
    if isinstance(model, JudgeContext):
        return model
    if escalate_to is not None:
        flags.update(_second_judge(escalate_to, base_url=escalate_base_url, api_key=escalate_api_key,
                                   band=escalate_band, timeout=timeout, max_retries=max_retries))
    elif escalate_band is not None or flags.get("agreement") is not None:
        raise ModelConfigError("--escalate-band and --agreement need --escalate-to (the second judge)")
    if isinstance(calibration, (str, Path)):
        calibration = load_profile(calibration)
    flags["calibration"] = calibration
    if isinstance(model, BaseChatModel):
        if response_format is not None:
            flags["response_format"] = response_format
        return _checked(JudgeContext(model=model, model_id=model_id or chat_model_id(model), **flags))
    if isinstance(model, str) or base_url or resolve_now or local_model_path:
        from ..llm.models import resolve_model  # deferred: a provider's client is only built when named

        connection = {key: value for key, value in (("timeout", timeout), ("max_retries", max_retries))
                      if value is not None}
        model = resolve_model(model, base_url=base_url, api_key=api_key, local_model_path=local_model_path,
                              response_format=response_format, **connection)
    if isinstance(model, ResolvedModel):
        return _checked(JudgeContext(model=model.model, model_id=model.model_id, endpoint=model.endpoint,
                                     response_format=model.response_format,
                                     **flags | {"context_window": flags.get("context_window") or model.context_window}))
    if response_format is not None:
        flags["response_format"] = response_format
    return _checked(JudgeContext(**flags))  # the default judge, resolved by the graph's first step


ESCALATE_API_KEY_ENV = "JUDGEGRAPH_ESCALATE_API_KEY"
"""The second judge's API key when `--escalate-api-key` is not given (then the provider's own
variable, e.g. `OPENAI_API_KEY`): the two judges are usually two accounts or two servers."""


def _second_judge(spec: ModelSpec | ResolvedModel, *, base_url: str | None, api_key: str | None,
                  band: float | str | None, timeout: float | None, max_retries: int | None) -> dict[str, Any]:
    """The `JudgeContext` fields of an escalating run: the second judge, built by `build_judge`
    like any judge (resolved now, so the CLI can probe it before the first item; its own shipped
    profile or the default one decides what it decides), and the band given, if any."""
    import os

    from .escalation import fixed_band

    second = build_judge(spec, base_url=base_url, api_key=api_key or os.environ.get(ESCALATE_API_KEY_ENV),
                         timeout=timeout, max_retries=max_retries, resolve_now=True)
    jury = isinstance(band, str) and band.strip().casefold() == "all"
    try:
        confidence = None if jury or band is None else float(band)
    except ValueError:
        raise ModelConfigError(f"--escalate-band {band!r}: give `all` or a confidence between 0.5 and 1") from None
    if confidence is not None and not 0.5 <= confidence <= 1:
        raise ModelConfigError(f"--escalate-band {band}: give `all` or a confidence between 0.5 and 1")
    return {"escalate_to": second, "escalation_band": fixed_band(confidence, jury=jury)}


def _checked(context: JudgeContext) -> JudgeContext:
    """An escalating context whose band can be resolved (an `--agreement` its profile has no fit
    for is one line now, not a failure of every item)."""
    if context.escalate_to is not None:
        from .escalation import band_of

        try:
            band_of(context)
        except ValueError as error:
            raise ModelConfigError(str(error)) from error
    return context


def chat_model_id(model: BaseChatModel) -> str:
    """How a chat model handed in is named in traces and cache keys: its model's name."""
    return str(getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__)
