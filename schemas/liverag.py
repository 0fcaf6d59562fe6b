"""Input, step reply and final output of the `liverag` rubric (seed 002).

The relevance step asks the model for observations only (is there an answer at all, is it
correct, is there irrelevant content and does it hurt); `nodes.liverag.relevance` maps them
to the seed's -1..2 scale in Python, so the scale's rules live in code and are testable.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from ..text.languages import ItemLanguage, item_language
from .conversation import History
from .inputs import ClaimSubject, LanguageTag, NonBlank, to_passages
from .text import short_text


class LiveRagInput(BaseModel):
    """Inputs of the `liverag` rubric: a question, the system's answer, the documents it
    retrieved (a list, possibly empty) and an optional gold reference answer."""

    model_config = ConfigDict(extra="ignore")

    question: NonBlank
    answer: NonBlank
    documents: list[StrictStr]
    gold_reference: StrictStr | None = None
    language: LanguageTag | None = None
    """Optional: the item's language (BCP-47-ish); detected from the question and answer otherwise."""
    history: History = None
    """Optional: the conversation's earlier messages, as rag's (`schemas.conversation`)."""

    @property
    def item_language(self) -> ItemLanguage:
        return item_language(self.language, self.question, self.answer)

    @property
    def passages(self) -> list[str]:
        """The non-blank documents; an empty list means nothing was retrieved."""
        return to_passages(self.documents)

    @property
    def reference(self) -> str | None:
        """The gold reference, or None when it is missing in any of the ways seed 000 lists
        (null, "", whitespace, any casing of "none"): a blank reference must not be shown
        to the judge as if it were the correct answer."""
        if self.gold_reference is None:
            return None
        trimmed = self.gold_reference.strip()
        return None if trimmed == "" or trimmed.casefold() == "none" else self.gold_reference

    def claim_subject(self) -> ClaimSubject:
        """What the shared claim pipeline checks: the answer against the documents."""
        return ClaimSubject(question=self.question, answer=self.answer, passages=self.passages,
                            language=self.item_language.code)


class LiveRagRelevanceJudgment(BaseModel):
    """Reply of `judge_liverag_relevance`: reasoning first, then separate observations.

    Each boolean is one question a small model can answer on its own; the four-point scale
    is applied to them in code (`nodes.liverag.relevance.score_relevance`).
    """

    reasoning: short_text(200)  # type: ignore[valid-type]
    addresses_question: bool = Field(description="the answer is about what the question asks, even if wrong")
    no_answer: bool = Field(description="the answer gives no answer, e.g. \"I don't know\"")
    answers_correctly: bool = Field(description="the answer correctly and fully answers the question")
    contains_irrelevant_content: bool = Field(description="the answer includes material the question does not need")
    irrelevant_content_harms_usefulness: bool = Field(
        description="that material misleads or buries the answer; false when there is none or it is harmless"
    )


class LiveRagResult(BaseModel):
    """The seed's three keys, in the seed's order. Field order is the output order.

    A score is null only when it could not be judged; `evaluation_notes` then says why.
    """

    model_config = ConfigDict(extra="forbid")

    evaluation_notes: str
    relevance_score: Literal[-1, 0, 1, 2] | None = None
    faithfulness_score: Literal[-1, 0, 1] | None = None
