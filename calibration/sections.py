"""What a profile's sections hold: each calibrated metric's parameters, bounded, and the record of
its fit.

Why apart from `profile`: a calibrated metric's declaration (`calibrated_metric`) sits next to
its decision rule and names its section class here, and the profile model is built from those
declarations; so the sections are below both. The bounds are docs/calibration.md's: thresholds,
label values and directness factors are probabilities or shares, 0..1; a logistic intercept or
coefficient is within +-`LOGISTIC_BOUND`; a fit record's counts are whole numbers and its figures
finite.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

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



class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class VerdictSupport(_Strict):
    """P(supported) = the judge's own P(supported), as its verdict (or its token
    log-probabilities) gives it: the default profile's rule for judges nobody fitted. Why: a
    judge better than the embedded one reads a faithful rewording right, and scaling its verdict
    by how many of the claim's words the context holds undoes it (a right "supported" on
    "Construction finished in 1889." scored 0.33). Code overrides the verdict only by a rule
    that names its evidence (a number conflict, the judge's own answer agreeing)."""

    kind: Literal["verdict"] = "verdict"


class ProductSupport(_Strict):
    """P(supported) = the judge's P(supported) x grounding: the embedded 1.5B judge's rule,
    fitted for it (it says "supported" to claims whose words the context never holds);
    docs/calibration.md says why."""

    kind: Literal["product"] = "product"


class LogisticSupport(_Strict):
    """P(supported) = sigmoid(intercept + sum of coefficient x feature), fitted on labels."""

    kind: Literal["logistic"] = "logistic"
    intercept: LogisticWeight
    coefficients: dict[SupportFeature, LogisticWeight]


SupportModel = Annotated[VerdictSupport | ProductSupport | LogisticSupport, Field(discriminator="kind")]


class FaithfulnessParameters(_Strict):
    support: SupportModel = ProductSupport()
    """How P(supported) is read from the claim's signals; a profile that leaves it out keeps the
    product rule it was written for (profiles written before "verdict" existed)."""
    names_must_be_stated: bool = False
    """The names rule: a claim that states a name (a capitalised word inside a sentence) or a number
    the context never states in any form is not supported, whatever the judge said; the
    explanation names them. A guard against a judge talked into "supported" by the answer itself
    (an injected "evidence" quote naming Paris), opt-in: on a perfect simulated judge it undid
    right verdicts on summaries and NLI pairs that name things in other forms (docs/benchmarks.md,
    "Simulated judges of known quality"), so no shipped profile turns it on."""
    numbers_contradict: bool = True
    """The number rule: a claim stating a value the context never gives, where the claim's line
    gives another of the same kind, is contradicted whatever the judge said. On by default in
    every profile (it catches judges' misses and names its evidence); a profile may turn it off
    to measure what it adds (docs/benchmarks.md, "Simulated judges")."""
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
    band, where an agreeing own answer is evidence the first reading under-states. 0: never (the
    default profile: a better judge's "not supported" stands, and no call is spent)."""

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
