"""A calibration profile: the parameters that turn one judge's signals into decisions.

Why a profile and not constants: the graph measures signals (label probabilities from
log-probabilities, lexical grounding, number conflicts, the judge's own answer...) and the seeds'
formulas take decided quantities (per claim P(supported), whether a contradiction counts; per
context, recall). The mapping between them depends on the judge: a 1.5B model's 0.6 is not
gpt-4o's 0.6. A profile keeps that mapping as data, per metric, with where it came from:

- `judge_model`: the judge it was fitted for (None: any judge, the default profile);
- per metric, its `parameters`, the `signal_hash` of the code that defines the signals
  (`calibration.signal_hash`; None for hand-set profiles, which do not depend on a fit), and
  `fit`: the labelled data it was fitted on (sha256, n), the label kind and its figures.

A profile is JSON, validated by these models (never pickled: a user loads profiles from files).
A metric a profile leaves out is decided by the default profile's parameters.

Every number in a profile is bounded to what a fit can produce, and NaN and the infinities are
refused wherever they appear (a file is JSON, but Python's JSON reader accepts `NaN`): a NaN
intercept would fail every item, a NaN label value would score 0.5 and read as a recall, and a
1e308 coefficient would be clamped into a decision without a word. The bounds
(docs/calibration.md lists them): thresholds, label values and directness factors are
probabilities or shares, 0..1; a logistic intercept or coefficient is within
+-`LOGISTIC_BOUND` (the sigmoid is 0 or 1 to double precision long before it, and the fits'
L2-regularised signals in 0..1 stay far inside it); the fit record's counts are whole numbers
and its figures finite.
"""

from __future__ import annotations

import json
import re
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field, ValidationError, create_model

from .calibrated_metric import CalibratedMetric
from .calibrated_metrics import CALIBRATED
from .escalation_band import EscalationSection
from .sections import (  # noqa: F401  (re-exported: the profile's parts are imported from here)
    DIRECTNESS_ORDER,
    FIGURE_BOUND,
    LOGISTIC_BOUND,
    AnswerRelevanceParameters,
    AnswerRelevanceSection,
    ContextRelevanceParameters,
    ContextRelevanceSection,
    FaithfulnessParameters,
    FaithfulnessSection,
    FitRecord,
    LabelValueRecall,
    LanguageCode,
    LogisticRecall,
    LogisticSupport,
    LogisticWeight,
    ProductSupport,
    RecallFeature,
    RecallModel,
    Share,
    SupportFeature,
    SupportModel,
    _Strict,
    numbers_in,
)

PROFILE_FORMAT = 1
SHIPPED_DIR = Path(__file__).resolve().parent / "profiles"
DEFAULT_PROFILE_ID = "default"


class ProfileError(ValueError):
    """A profile that cannot be used; the message is one line that says how to fix it."""


class ProfileMismatchError(ProfileError):
    """A profile fitted for another judge model than the one running."""


class ProfileFields(_Strict):
    """A profile's fields besides its sections, and how it is read."""

    calibrated_metrics: ClassVar[tuple[CalibratedMetric, ...]] = ()
    """The metrics the model holds a section for (`profile_model`), whose hashes are checked."""

    format: Literal[1] = PROFILE_FORMAT
    id: str = Field(min_length=1, max_length=120)
    judge_model: str | None = None
    """The judge's model id (`JudgeContext.model_id`) it was fitted for; None: any judge."""
    description: str = ""
    judgegraph_version: str | None = None
    escalation: EscalationSection | None = None
    """This judge's escalation bands, when it is the first judge (`judgegraph escalation-fit`,
    `calibration.escalation_band`); None: the documented default band."""

    def section(self, metric: str) -> Any:
        """The metric's section, the default profile's when this profile leaves it out."""
        own = getattr(self, metric)
        return own if own is not None else getattr(default_profile(), metric)

    @property
    def faithfulness_parameters(self) -> FaithfulnessParameters:
        return self.section("faithfulness").parameters

    @property
    def context_relevance_parameters(self) -> ContextRelevanceParameters:
        return self.section("context_relevance").parameters

    @property
    def answer_relevance_parameters(self) -> AnswerRelevanceParameters:
        return self.section("answer_relevance").parameters


def profile_model(metrics: tuple[CalibratedMetric, ...] = CALIBRATED) -> type[ProfileFields]:
    """The profile model: `ProfileFields` and, per calibrated metric in order, an optional
    field of its section class named by its key."""
    sections: dict[str, Any] = {metric.key: (metric.section | None, None) for metric in metrics}
    model = create_model("Profile", __base__=ProfileFields, __module__=__name__, **sections)
    model.calibrated_metrics = metrics
    return model


Profile = profile_model()
"""A calibration profile (JSON, validated): its fields and one section per `CALIBRATED` metric."""


def _first_error(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "profile"
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"{where}: {first.get('msg', 'invalid')}{more}"


def parse_profile(data: Any, *, source: str = "profile", model: type[ProfileFields] = Profile) -> Profile:
    """A validated profile from parsed JSON (`model`: a `profile_model`, `Profile` by default);
    raises `ProfileError` with one line."""
    try:
        profile = model.model_validate(data)
    except ValidationError as error:
        raise ProfileError(f"{source} is not a judgegraph profile: {_first_error(error)}") from error
    check_signal_hashes(profile, source=source)
    return profile


def check_signal_hashes(profile: ProfileFields, *, source: str = "profile") -> None:
    """Refuse a profile fitted on signals whose definitions changed since (each section its
    model holds, `ProfileFields.calibrated_metrics`)."""
    for calibrated in type(profile).calibrated_metrics:
        metric = calibrated.key
        section = getattr(profile, metric, None)
        if section is None or section.signal_hash is None:
            continue
        current = calibrated.signal_hash
        if section.signal_hash != current:
            raise ProfileError(
                f"{source} ({profile.id}) was fitted on {metric} signals that have changed since "
                f"(signal hash {section.signal_hash}, this judgegraph has {current}): refit it with "
                f"`judgegraph calibrate`"
            )


def load_profile(path: str | Path) -> Profile:
    """A profile from a JSON file; raises `ProfileError` with one line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ProfileError(f"cannot read profile {path}: {error.strerror or error}") from error
    except UnicodeDecodeError as error:
        raise ProfileError(f"cannot read profile {path}: not UTF-8 text") from error
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ProfileError(f"cannot parse profile {path}: {error.msg} at line {error.lineno}") from error
    except RecursionError as error:
        raise ProfileError(f"cannot parse profile {path}: nested too deep") from error
    return parse_profile(data, source=f"profile {path.name}")


def write_profile(profile: Profile, path: str | Path) -> None:
    Path(path).write_text(json.dumps(profile.model_dump(mode="json"), indent=2, ensure_ascii=False, allow_nan=False) + "\n",
                          encoding="utf-8")


@lru_cache(maxsize=1)
def shipped_profiles() -> tuple[Profile, ...]:
    """The profiles inside the package (`calibration/profiles/*.json`), the default first.

    A shipped fitted profile whose signal hash no longer matches the code is left out with a
    warning, so its judge is scored by the default profile: one stale fit must not stop every
    run of every judge (the default profile is read through this function too). The default
    profile itself carries no hash and is never left out."""
    profiles = []
    for path in sorted(SHIPPED_DIR.glob("*.json")):
        try:
            profiles.append(load_profile(path))
        except ProfileError as error:
            if path.stem == DEFAULT_PROFILE_ID:
                raise
            warnings.warn(f"judgegraph: skipping the shipped {error}; its judge is scored with the default "
                          f"profile", RuntimeWarning, stacklevel=2)
    return tuple(sorted(profiles, key=lambda p: p.id != DEFAULT_PROFILE_ID))


def default_profile() -> Profile:
    """The profile for judges no shipped profile was fitted for (`profiles/default.json`)."""
    first = shipped_profiles()[0]
    if first.id != DEFAULT_PROFILE_ID:  # a broken installation, not a user error
        raise ProfileError(f"the package's {DEFAULT_PROFILE_ID}.json profile is missing")
    return first


_SERVED_AT = re.compile(r"@(?=[A-Za-z][A-Za-z0-9+.-]*://)")
"""Where an OpenAI-compatible judge's id says it is served: `name@http://host:port/v1`."""


def judge_identity(model_id: str | None) -> str | None:
    """The judge's model identity, which profiles are matched on: its model id without the URL
    it is served at (`openai-compatible:qwen@http://127.0.0.1:8011/v1` and
    `openai-compatible:qwen@http://localhost:8011/v1` are both `openai-compatible:qwen`).

    Why not the whole id: the same server is spelled many ways (localhost, 127.0.0.1, a host
    name, a port forward), and what a profile was fitted for is the model that answers, which
    the server names. Other ids (`local:<gguf>`, `openai:gpt-4o-mini`) have no URL part."""
    if not model_id:
        return model_id
    return _SERVED_AT.split(model_id, maxsplit=1)[0]


_SELF_HOSTED = ("local:", "openai-compatible:")
"""Judges whose id names the weights a server runs: the embedded judge (`local:<gguf>`) and any
OpenAI-compatible server (`openai-compatible:<served name>@URL`)."""


def weights_name(identity: str | None) -> str | None:
    """A self-hosted judge's weights as its id names them (the GGUF file's name without
    `.gguf`, any folder dropped), else the identity unchanged.

    Why: `judgegraph serve-local` serves the embedded model under its file's name, so the same
    weights reached in-process (`local:qwen2.5-coder-1.5b-instruct-q4_k_m`) and over HTTP
    (`openai-compatible:qwen2.5-coder-1.5b-instruct-q4_k_m@http://...`) are one judge, and the
    profile fitted for it applies to both."""
    if identity is None:
        return None
    for prefix in _SELF_HOSTED:
        if identity.startswith(prefix):
            name = identity[len(prefix):].replace("\\", "/").rsplit("/", 1)[-1]
            return "self-hosted:" + name.removesuffix(".gguf")
    return identity


def same_judge(fitted_for: str | None, model_id: str | None) -> bool:
    """Whether a profile fitted for `fitted_for` was fitted for the judge `model_id`: the same
    identity (`judge_identity`), or the same self-hosted weights (`weights_name`)."""
    return weights_name(judge_identity(fitted_for)) == weights_name(judge_identity(model_id))


def shipped_profile_for(model_id: str | None) -> Profile | None:
    """The shipped profile fitted for this judge model, if any."""
    return next((p for p in shipped_profiles() if p.judge_model and same_judge(p.judge_model, model_id)), None)


def check_judge(profile: Profile, model_id: str | None, allow_mismatch: bool = False) -> None:
    """Refuse a profile fitted for another judge than `model_id` (unless allowed); the judge's
    identity is compared, not the URL it is reached at (`judge_identity`)."""
    if allow_mismatch or profile.judge_model is None or not model_id or model_id == "unconfigured":
        return
    if not same_judge(profile.judge_model, model_id):
        raise ProfileMismatchError(
            f"profile {profile.id} was fitted for judge {profile.judge_model}, not {model_id}: "
            f"fit one for this judge with `judgegraph calibrate`, or pass --allow-profile-mismatch"
        )


def profile_for(context: Any) -> Profile:
    """The profile a run decides with: the context's `calibration` (checked against its judge),
    else the shipped profile fitted for its judge model, else the default profile. Called where
    a `JudgeContext` is built (`JudgeContext.profile`), never by the nodes."""
    if context is None:
        return default_profile()
    chosen = getattr(context, "calibration", None)
    model_id = getattr(context, "model_id", None)
    if chosen is not None:
        check_judge(chosen, model_id, getattr(context, "allow_profile_mismatch", False))
        return chosen
    return shipped_profile_for(model_id) or default_profile()
