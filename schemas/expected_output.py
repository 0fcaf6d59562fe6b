"""Schemas of the `expected_output` rubric (seed 001): the item, the judge's reply, the output.

The judge's reply holds only what needs judgment (reasoning, the score or category, the
semantic comparison, confidence). Everything the seed lets code decide (exact_match, the
quality label, the echoed ranges and categories) is assembled by
`nodes.expected_output.result`, so the model cannot get it wrong.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictStr,
    ValidationInfo,
    create_model,
    field_validator,
)
from pydantic_core import PydanticCustomError

from .expected_output_config import (
    ConfigError,
    check_config,
    normalise_evaluation_type,
)
from .text import short_text

EvaluationType = Literal["numerical", "categorical", "range_quality"]

# --- input -------------------------------------------------------------------------------------


def _as_text(value: Any) -> Any:
    """An output given as a JSON value (a structured answer, a tool call) becomes its JSON text;
    null is reported as missing, not as a wrong type."""
    if value is None:
        raise PydanticCustomError("missing", "Field required")
    if isinstance(value, (dict, list, int, float, bool)):
        return json.dumps(value, ensure_ascii=False)
    return value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("is empty")
    return value


OutputText = Annotated[StrictStr, BeforeValidator(_as_text), AfterValidator(_not_blank)]
"""A non-blank output; JSON values are accepted and compared as JSON text."""


def _optional_text(value: Any) -> str | None:
    """Optional free data (input, expected tool call) as text; absent when blank or empty."""
    if value is None or value == {} or value == []:
        return None
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if text.strip() else None


class RangeMapping(BaseModel):
    """One labelled band of scores, inclusive at both ends."""

    model_config = ConfigDict(extra="forbid")

    min: int
    max: int
    label: str


class EvaluationSettings(BaseModel):
    """A checked `evaluationConfig`; the keys that do not apply to the type are None."""

    min_range: int | None = None
    max_range: int | None = None
    available_categories: list[str] | None = None
    range_mappings: list[RangeMapping] | None = None
    criteria: str | None = None


class ExpectedOutputInput(BaseModel):
    """Inputs of the `expected_output` rubric, with the seed's camelCase keys.

    Field order matters: when several fields are wrong, the first one is reported, and the
    config is checked after (and against) the evaluation type.
    """

    model_config = ConfigDict(extra="ignore")

    input: Annotated[str | None, BeforeValidator(_optional_text)] = None
    actualOutput: OutputText
    expectedOutput: OutputText
    conversationHistory: Any = None
    expectedToolCall: Annotated[str | None, BeforeValidator(_optional_text)] = None
    context: StrictStr | list[StrictStr] | None = None
    evaluationType: EvaluationType
    evaluationConfig: EvaluationSettings

    @field_validator("evaluationType", mode="before")
    @classmethod
    def _known_type(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value  # pydantic reports the wrong type
        try:
            return normalise_evaluation_type(value)
        except ConfigError as error:
            raise PydanticCustomError("invalid_evaluation_type", "{problem}", {"problem": str(error)}) from error

    @field_validator("evaluationConfig", mode="before")
    @classmethod
    def _checked_config(cls, value: Any, info: ValidationInfo) -> Any:
        """Checked against the (already validated) evaluation type, before any model call."""
        evaluation_type = info.data.get("evaluationType")
        if evaluation_type is None:
            raise PydanticCustomError(
                "invalid_config", "cannot be checked without a valid evaluationType"
            )
        try:
            return check_config(evaluation_type, value)
        except ConfigError as error:
            raise PydanticCustomError("invalid_config", "{problem}", {"problem": str(error)}) from error

    @property
    def passages(self) -> list[str]:
        items = [self.context] if isinstance(self.context, str) else (self.context or [])
        return [p for p in items if p.strip()]

    @property
    def history_turns(self) -> list[str]:
        """The conversation so far, one line per turn ("role: content"), for the prompt."""
        history = self.conversationHistory
        if history is None or history == "" or history == [] or history == {}:
            return []
        if isinstance(history, str):
            return [history] if history.strip() else []
        if not isinstance(history, list):
            return [json.dumps(history, ensure_ascii=False)]
        return [_turn_text(turn) for turn in history]


def _turn_text(turn: Any) -> str:
    """`{"role": "user", "content": "hi"}` -> `user: hi`; other keys (tool calls) kept as JSON."""
    if isinstance(turn, str):
        return turn
    if isinstance(turn, dict) and "role" in turn:
        rest = {k: v for k, v in turn.items() if k not in ("role", "content")}
        content = turn.get("content")
        parts = [] if content in (None, "") else [
            content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        ]
        if rest:
            parts.append(json.dumps(rest, ensure_ascii=False))
        return f"{turn['role']}: {' '.join(parts)}"
    return json.dumps(turn, ensure_ascii=False)


# --- the judge's reply -------------------------------------------------------------------------

Element = short_text(120)


class _ComparisonJudgment(BaseModel):
    """Fields every reply shares; subclasses put their score or category right after reasoning."""

    reasoning: short_text(200, "one or two sentences comparing the actual output with the expected output")  # type: ignore[valid-type]

    @field_validator("reasoning")
    @classmethod
    def _reasoning_given(cls, value: str) -> str:
        if not value:
            raise ValueError("reasoning is empty; give one or two sentences")
        return value


SemanticMatch = Annotated[bool, Field(description="same meaning as the expected output despite wording")]
PartialMatch = Annotated[bool, Field(description="only part of the expected output is present")]
MissingElements = Annotated[
    list[Element],  # type: ignore[valid-type]
    Field(max_length=10, description="what the expected output has and the actual output lacks"),
]
IncorrectElements = Annotated[
    list[Element],  # type: ignore[valid-type]
    Field(max_length=10, description="what the actual output gets wrong"),
]
Confidence = Annotated[float, Field(ge=0.0, le=1.0, description="certainty of this judgment, 0.0-1.0")]


class ExpectedOutputScore(_ComparisonJudgment):
    """Reply of `judge_expected_output` for numerical and range_quality evaluations.

    The allowed range is given at run time: `score_schema` advertises it in the JSON schema,
    and the node's `check` enforces it (through repair, never by clamping).
    """

    score: int
    semantic_match: SemanticMatch
    partial_match: PartialMatch
    missing_elements: MissingElements
    incorrect_elements: IncorrectElements
    confidence: Confidence


class ExpectedOutputCategory(_ComparisonJudgment):
    """Reply of `judge_expected_output` for categorical evaluations; the menu is checked by code."""

    category: str
    semantic_match: SemanticMatch
    partial_match: PartialMatch
    missing_elements: MissingElements
    incorrect_elements: IncorrectElements
    confidence: Confidence


@lru_cache(maxsize=64)
def score_schema(low: int, high: int) -> type[ExpectedOutputScore]:
    """`ExpectedOutputScore` advertising `low..high`, so constrained decoders keep the score in
    range; validation stays with the node's check (same class name for the trace and fakes)."""
    return create_model(  # type: ignore[call-overload]
        "ExpectedOutputScore",
        __base__=ExpectedOutputScore,
        __module__=__name__,
        score=(int, Field(description=f"integer from {low} to {high}",
                          json_schema_extra={"minimum": low, "maximum": high})),
    )


@lru_cache(maxsize=64)
def category_schema(categories: tuple[str, ...]) -> type[ExpectedOutputCategory]:
    """`ExpectedOutputCategory` advertising the menu as an enum (see `score_schema`)."""
    return create_model(  # type: ignore[call-overload]
        "ExpectedOutputCategory",
        __base__=ExpectedOutputCategory,
        __module__=__name__,
        category=(str, Field(description="exactly one of the available categories",
                             json_schema_extra={"enum": list(categories)})),
    )


# --- the output --------------------------------------------------------------------------------


class NumericalResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    score: int
    min_range: int
    max_range: int


class CategoricalResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    category: str
    available_categories: list[str]


class RangeQualityResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    score: int
    quality_label: str
    min_range: int
    max_range: int
    range_mappings: list[RangeMapping]


class ComparisonDetails(BaseModel):
    model_config = ConfigDict(extra="forbid")

    exact_match: bool
    semantic_match: bool
    partial_match: bool
    missing_elements: list[str]
    incorrect_elements: list[str]


class Evaluation(BaseModel):
    """The seed's `evaluation` object; field order is the output order."""

    model_config = ConfigDict(extra="forbid")

    evaluation_type: EvaluationType
    result: NumericalResult | CategoricalResult | RangeQualityResult
    reasoning: str = Field(min_length=1)
    comparison_details: ComparisonDetails
    confidence: float = Field(ge=0.0, le=1.0)


class ExpectedOutputResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    evaluation: Evaluation


class EvaluationFailure(BaseModel):
    """The seed's error object: input that cannot be judged, or a judge that never validated."""

    model_config = ConfigDict(extra="forbid")

    error: Literal[True] = True
    error_type: Literal["evaluation_failure"] = "evaluation_failure"
    error_message: str
