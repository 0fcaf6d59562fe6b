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
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator, model_validator

from .metric_names import CALIBRATED_METRICS
from .signal_hash import signal_hash

PROFILE_FORMAT = 1
SHIPPED_DIR = Path(__file__).resolve().parent / "profiles"
DEFAULT_PROFILE_ID = "default"

SupportFeature = Literal["p_supported", "p_contradicted", "grounding", "p_supported_x_grounding"]
"""Signals a fitted support model may read (`calibration.claim_decisions.claim_features`)."""
LanguageCode = Annotated[str, StringConstraints(pattern=r"^[a-z]{2,3}$")]
"""An ISO 639 language code as `judgegraph.text.languages` names an item's language."""
RecallFeature = Literal["p_yes", "p_partly", "closeness"]
"""Signals a fitted recall model may read (`calibration.relevance_decisions.recall_features`)."""


LOGISTIC_BOUND = 100.0
"""The largest size of a logistic intercept or coefficient a profile may hold."""
FIGURE_BOUND = 1e9
"""The largest size of a number in a fit record's figures (counts of items and pairs included)."""

Share = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
"""A probability, threshold, label value or factor."""
LogisticWeight = Annotated[float, Field(ge=-LOGISTIC_BOUND, le=LOGISTIC_BOUND, allow_inf_nan=False)]
"""A logistic model's intercept or coefficient."""


def numbers_in(value: Any, where: str) -> Iterator[tuple[str, int | float]]:
    """Every number in `value` (nested dicts, lists and tuples; booleans are not numbers), with
    its path from `where` ("figures.auroc.after.interval[0]"), walked without recursion so a
    deeply nested file cannot exhaust the stack."""
    stack = [(value, where)]
    while stack:
        current, path = stack.pop()
        if isinstance(current, bool):
            continue
        if isinstance(current, (int, float)):
            yield path, current
        elif isinstance(current, dict):
            stack += [(sub, f"{path}.{key}") for key, sub in current.items()]
        elif isinstance(current, (list, tuple)):
            stack += [(sub, f"{path}[{index}]") for index, sub in enumerate(current)]


def _finite_figures(value: Any, where: str) -> None:
    """Raise ValueError naming the first number in `value` (a fit record's figures) that is not
    finite or is over `FIGURE_BOUND` in size."""
    for path, number in numbers_in(value, where):
        if not abs(number) <= FIGURE_BOUND:  # NaN fails this too
            raise ValueError(f"{path} is {number!r}: a figure must be a finite number within +-{FIGURE_BOUND:g}")


class ProfileError(ValueError):
    """A profile that cannot be used; the message is one line that says how to fix it."""


class ProfileMismatchError(ProfileError):
    """A profile fitted for another judge model than the one running."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ProductSupport(_Strict):
    """P(supported) = the judge's P(supported) x grounding (the default profile's hand-set
    rule; docs/calibration.md says why)."""

    kind: Literal["product"] = "product"


class LogisticSupport(_Strict):
    """P(supported) = sigmoid(intercept + sum of coefficient x feature), fitted on labels."""

    kind: Literal["logistic"] = "logistic"
    intercept: LogisticWeight
    coefficients: dict[SupportFeature, LogisticWeight]


SupportModel = Annotated[ProductSupport | LogisticSupport, Field(discriminator="kind")]


class FaithfulnessParameters(_Strict):
    support: SupportModel = ProductSupport()
    contradiction_at: Share
    """The judge's "contradicted" counts (and can zero a critical claim's answer) from this P."""
    supported_at: Share
    """A claim counts as supported from this P(supported); below it a one-claim answer gets
    the second reading."""
    own_answer_agrees_at: Share
    """Token F1 from which the judge's own answer agrees with the answer under test."""
    second_look_below: Share | None = None
    """A one-claim answer whose first-reading P(supported) is below this gets the second reading
    (the judge answers the question itself), and an agreeing own answer raises P(supported) to
    its F1. None: `supported_at`, so only claims that would not count get a second look; a
    higher value also spends a call on claims that count but with an unsure P, the uncertain
    band, where an agreeing own answer is evidence the first reading under-states."""

    grounding: Literal["words", "meaning"] = "words"
    """Which grounding scales P(supported) (`nodes.claims.code_checks`): "words", the share of the
    claim's new words the context holds as written, the rule the shipped profiles were fitted
    with; "meaning", `ground_claim`'s value (stems, compound parts, number values, and the
    claim's closeness to its line for words the context does not hold). Both are measured and
    recorded on every claim; "meaning" is opt-in until a fit on tune rows chooses it."""

    grounding_by_words_in: tuple[LanguageCode, ...] = ()
    """Languages (ISO 639-1 codes, "en" for English) whose claims are grounded by words even when
    `grounding` is "meaning". Why: closeness in meaning vouches for a reworded claim, which is
    what a faithful answer in German or Japanese often is; an English extractive answer that
    reuses the context's words is faithful as written, and there the closeness of a wrong
    answer's one new word ("wrote", "held") to its line only lets a fabrication through
    (docs/benchmarks.md, "Grounding per language")."""

    def grounds_by_meaning(self, language: str | None) -> bool:
        """Whether a claim of an item in `language` (None: English) is grounded by meaning."""
        return self.grounding == "meaning" and (language or "en") not in self.grounding_by_words_in

    @property
    def second_look_band_top(self) -> float:
        return self.supported_at if self.second_look_below is None else self.second_look_below


class LabelValueRecall(_Strict):
    """recall = sum over labels of P(label) x `answer_in_context_value[label]` (hand-set)."""

    kind: Literal["label_values"] = "label_values"


class LogisticRecall(_Strict):
    """recall = sigmoid(intercept + sum of coefficient x signal), fitted on labels; every
    coefficient is >= 0 (`fitting.monotone`)."""

    kind: Literal["logistic"] = "logistic"
    intercept: LogisticWeight
    coefficients: dict[RecallFeature, LogisticWeight]


RecallModel = Annotated[LabelValueRecall | LogisticRecall, Field(discriminator="kind")]


class ContextRelevanceParameters(_Strict):
    answer_in_context_value: dict[Literal["yes", "partly", "no"], Share]
    """The worth of each of the judge's labels yes / partly / no, for the label-value recall."""
    recall: RecallModel = LabelValueRecall()
    """How recall is made of the recorded signals (`calibration.relevance_decisions`)."""

    @property
    def reads_closeness(self) -> bool:
        """Whether recall needs the question-context embedding closeness measured."""
        return isinstance(self.recall, LogisticRecall) and "closeness" in self.recall.coefficients


DIRECTNESS_ORDER = ("direct", "partial", "evasive")


class AnswerRelevanceParameters(_Strict):
    directness_factor: dict[Literal["direct", "partial", "evasive"], Share]
    """score = parts answered / parts x this factor."""
    answered_from: Literal["probabilities", "labels"] = "labels"
    """Whether parts answered and the directness factor are expectations under the reply's
    label probabilities, or read from the labels it wrote (`relevance_decisions`)."""
    reply: Literal["reasoned", "labels"] = "reasoned"
    """What the judge is asked to write: `reasoned`, a short reasoning text before its labels
    (the model's text ends the explanation), or `labels`, the labels alone, with code writing
    the whole explanation (`nodes.rag.answer_relevance`). The labels reply is a few dozen
    generated tokens instead of a hundred-odd, so its log-probabilities are always asked for
    and recorded; `answered_from` still decides whether the score reads them."""

    @property
    def reads_probabilities(self) -> bool:
        """Whether a run must ask the judge for log-probabilities for this metric: to score
        with them, or because the labels reply always records them (they cost little there)."""
        return self.answered_from == "probabilities" or self.reply == "labels"

    @model_validator(mode="after")
    def _ordered(self) -> AnswerRelevanceParameters:
        """Every level has a factor, and a less direct answer never scores higher: a profile
        that rewards evasion would invert the seed's rule, whatever data it came from."""
        missing = [level for level in DIRECTNESS_ORDER if level not in self.directness_factor]
        if missing:
            raise ValueError(f"directness_factor needs {', '.join(missing)}")
        factors = [self.directness_factor[level] for level in DIRECTNESS_ORDER]
        if any(a < b for a, b in zip(factors, factors[1:])):
            raise ValueError("directness_factor must satisfy direct >= partial >= evasive")
        return self


class FitRecord(_Strict):
    """What a fitted metric was fitted on, and how well it did on held-out folds."""

    data_sha256: str
    n: int = Field(ge=0, le=int(FIGURE_BOUND))
    label_kind: Literal["binary", "graded", "ordinal"]
    folds: int = Field(ge=2, le=int(FIGURE_BOUND))
    figures: dict[str, Any] = Field(default_factory=dict)
    learning_curve: list[dict[str, Any]] = Field(default_factory=list)

    @field_validator("figures", "learning_curve")
    @classmethod
    def _finite(cls, value: Any, info: Any) -> Any:
        _finite_figures(value, info.field_name)
        return value


class FaithfulnessSection(_Strict):
    parameters: FaithfulnessParameters
    signal_hash: str | None = None
    fit: FitRecord | None = None


class ContextRelevanceSection(_Strict):
    parameters: ContextRelevanceParameters
    signal_hash: str | None = None
    fit: FitRecord | None = None


class AnswerRelevanceSection(_Strict):
    parameters: AnswerRelevanceParameters
    signal_hash: str | None = None
    fit: FitRecord | None = None


class Profile(_Strict):
    format: Literal[1] = PROFILE_FORMAT
    id: str = Field(min_length=1, max_length=120)
    judge_model: str | None = None
    """The judge's model id (`JudgeContext.model_id`) it was fitted for; None: any judge."""
    description: str = ""
    judgegraph_version: str | None = None
    faithfulness: FaithfulnessSection | None = None
    context_relevance: ContextRelevanceSection | None = None
    answer_relevance: AnswerRelevanceSection | None = None

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


def _first_error(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "profile"
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"{where}: {first.get('msg', 'invalid')}{more}"


def parse_profile(data: Any, *, source: str = "profile") -> Profile:
    """A validated profile from parsed JSON; raises `ProfileError` with one line."""
    try:
        profile = Profile.model_validate(data)
    except ValidationError as error:
        raise ProfileError(f"{source} is not a judgegraph profile: {_first_error(error)}") from error
    check_signal_hashes(profile, source=source)
    return profile


def check_signal_hashes(profile: Profile, *, source: str = "profile") -> None:
    """Refuse a profile fitted on signals whose definitions changed since."""
    for metric in CALIBRATED_METRICS:
        section = getattr(profile, metric)
        if section is None or section.signal_hash is None:
            continue
        current = signal_hash(metric)
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
