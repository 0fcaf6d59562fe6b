"""The `rag` rubric's input, step replies and final output (seed 000)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr, model_validator

from ..text.citation_markers import strip_markers
from ..text.languages import ItemLanguage, item_language
from .conversation import History
from .inputs import ClaimSubject, LanguageTag, NonBlank, to_passages
from .text import Label, short_text


class RagInput(BaseModel):
    """Inputs of the `rag` rubric (seed 000)."""

    model_config = ConfigDict(extra="ignore")

    question: NonBlank
    answer: NonBlank
    context: StrictStr | list[StrictStr] | None = None
    reference: StrictStr | None = None
    evaluation_goal: StrictStr | None = None
    metrics: Annotated[list[StrictStr], Field(min_length=1)] | None = None
    """Optional: judge only these metrics. The output keeps all 11 keys; the others are null
    with "Not requested.", and their model calls are never made (a pipeline that only needs
    faithfulness should not pay for three more judgments). The names an item may give are
    the rubric's declared metrics' keys: the rubric's input model narrows this field to them
    (`nodes.rag.rubric.rag_input_model`), so a misspelt name is an input error listing them."""
    language: LanguageTag | None = None
    context_ids: list[StrictStr | None] | None = None
    """Optional: the passages' ids, in context order, for citation markers that name passages
    by id (`[doc7]`). Read from the passages themselves when they carry an `id` (LangChain
    `Document`s, `{"page_content", "id"}` dicts: `schemas.field_aliases.context_ids`). One id
    per passage (null for a passage without one): another count is an input error, since ids
    that do not line up with their passages would send every `[doc2]` to the wrong one."""
    history: History = None
    """Optional: the conversation's earlier messages (`schemas.conversation`). With them the
    judge first writes the question as a standalone one, which every step then judges
    (`graph.every_item.standalone_question`)."""

    @model_validator(mode="after")
    def _one_id_per_passage(self) -> "RagInput":
        if self.context_ids is not None:
            count = len(self.numbered_passages)
            if len(self.context_ids) != count:
                raise ValueError(
                    f"'context_ids' gives {len(self.context_ids)} ids for {count} passages; give one id per "
                    "passage, in context order (null for a passage without one)")
        return self

    @property
    def passages(self) -> list[str]:
        """The non-blank passages: what the judge reads as the context."""
        return to_passages(self.context)

    @property
    def context_given(self) -> bool:
        """Whether the item holds a context field at all. An item with none (question and
        answer only) is not judged as if its context were empty (the seed's 0.0 for "no
        context/empty context" would score a context nobody gave): the metrics judged against
        the context are null with the reason (`nodes.rag.result`). An explicit `""`, `[]` or
        `null` context is given, and keeps the seed's rule."""
        return "context" in self.model_fields_set

    @property
    def numbered_passages(self) -> list[str]:
        """Every passage as the user numbered them, a blank one included: `[3]` is the third
        passage given, and a citation of a blank passage cites a passage that says nothing."""
        if self.context is None:
            return []
        return [self.context] if isinstance(self.context, str) else list(self.context)

    @property
    def passage_ids(self) -> list[str | None]:
        """Each of `numbered_passages`' id (None where none is known), aligned with them."""
        if self.context_ids is None:
            return [None] * len(self.numbered_passages)
        return list(self.context_ids)

    @property
    def item_language(self) -> ItemLanguage:
        """The `language` field, else the language of the question and answer."""
        return item_language(self.language, self.question, self.answer)

    def claim_subject(self) -> ClaimSubject:
        """What the shared claim pipeline checks: the answer against the context. Citation
        markers are not part of what the answer asserts ("[2]" is not the number 2: code's
        number check would call "2.1 million inhabitants [2]" a conflict), so the claims are
        cut from the answer without them; an answer without markers is checked as it is."""
        return ClaimSubject(question=self.question, answer=strip_markers(self.answer, self.passage_ids),
                            passages=self.passages, language=self.item_language.code)


class QuestionPart(BaseModel):
    part: short_text(100)  # type: ignore[valid-type]
    answered: bool


RefusalCategory = Annotated[
    Literal["insufficient-context", "safety", "ambiguous", "out-of-scope", "none"], Label
]


class AnswerRelevanceJudgment(BaseModel):
    """Reply of `judge_answer_relevance`: observations only; code applies the seed's rules."""

    reasoning: short_text(200)  # type: ignore[valid-type]
    question_parts: list[QuestionPart] = Field(min_length=1, max_length=6)
    directness: Annotated[Literal["direct", "partial", "evasive"], Label]
    is_refusal: bool
    refusal_reason_given: bool
    refusal_category: RefusalCategory
    refusal_cites_missing_info_or_policy: bool
    context_contains_answer: bool


class LabelledPart(BaseModel):
    """One part of the question as a short phrase, and whether the answer answers it: the
    phrase is the step's only free text, capped so it stays a few tokens."""

    part: short_text(40)  # type: ignore[valid-type]
    answered: bool


class RefusalLabels(BaseModel):
    """What the seed's refusal rules read of a refusal (`refusal_problem`)."""

    reason_given: bool
    category: RefusalCategory
    cites_missing_info_or_policy: bool
    context_contains_answer: bool


class AnswerRelevanceLabels(BaseModel):
    """Reply of `judge_answer_relevance` under the `labels` reply (`AnswerRelevanceParameters.reply`):
    short labels and no prose, so the judge generates a few dozen tokens; code writes the
    explanation. Each label's value starts at a token whose log-probabilities are read
    (`answered` per part, `directness`); `refusal` is null for an answer, so the refusal's four
    labels cost tokens only when there is a refusal to judge.

    The properties give it the reasoned reply's (`AnswerRelevanceJudgment`) flat refusal fields,
    so one set of rules decides both."""

    question_parts: list[LabelledPart] = Field(min_length=1, max_length=4)
    directness: Annotated[Literal["direct", "partial", "evasive"], Label]
    refusal: RefusalLabels | None

    @property
    def is_refusal(self) -> bool:
        return self.refusal is not None

    @property
    def refusal_reason_given(self) -> bool:
        return self.refusal is not None and self.refusal.reason_given

    @property
    def refusal_category(self) -> str:
        return self.refusal.category if self.refusal is not None else "none"

    @property
    def refusal_cites_missing_info_or_policy(self) -> bool:
        return self.refusal is not None and self.refusal.cites_missing_info_or_policy

    @property
    def context_contains_answer(self) -> bool:
        return self.refusal is not None and self.refusal.context_contains_answer


AnswerRelevanceReply = AnswerRelevanceJudgment | AnswerRelevanceLabels
"""Either reply of `judge_answer_relevance`; the profile's `reply` says which is asked for."""


class SimilarityJudgment(BaseModel):
    """Reply of `judge_semantic_similarity`, on the 0-5 scale human raters use (STS)."""

    reasoning: short_text(200)  # type: ignore[valid-type]
    similarity: int = Field(ge=0, le=5)


class EmbeddingSimilarity(BaseModel):
    """What `judge_semantic_similarity` measured with embeddings (no model call)."""

    cosine: float
    similarity: float | None = None
    """The cosine on people's 0..1 scale (`llm.embeddings.similarity_from_cosine`); None in
    records written before the rescaling, which then read the cosine as it is."""
    model_id: str
    number_conflict: str | None = None


class ContextRelevanceJudgment(BaseModel):
    """Reply of `judge_context_relevance`: does the context hold the answer, and which lines
    are useful. The first field's label probabilities give a graded recall."""

    answer_in_context: Annotated[Literal["yes", "partly", "no"], Label] = Field(
        description="does the context hold the information needed to answer the question"
    )
    useful_lines: list[int] = Field(default_factory=list, max_length=40,
                                    description="numbers of the context lines that help answer the question")


class RagResult(BaseModel):
    """The seed's 11 keys, in the seed's order. Field order is the output order."""

    model_config = ConfigDict(extra="forbid")

    faithfulness: float | None = Field(default=None, ge=0.0, le=1.0)
    faithfulness_explanation: str | None = None
    context_relevance: float | None = Field(default=None, ge=0.0, le=1.0)
    context_relevance_explanation: str | None = None
    answer_relevance: float | None = Field(default=None, ge=0.0, le=1.0)
    answer_relevance_explanation: str | None = None
    semantic_similarity: float | None = Field(default=None, ge=0.0, le=1.0)
    semantic_similarity_explanation: str | None = None
    evaluation_status: Literal["success", "failed"] = "success"
    reason: str | None = None
    error: str | None = None
