"""The `citations` block of a cited rag answer's output: each sentence with its markers and
verdicts, the sentences with no citation, the citations to a wrong passage and the markers
that point at no passage (`nodes/citations/`; the rules are in `nodes/citations/support.py`).

Passages are numbered from 1, as the answer's markers number them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

ClaimSupport = Literal["cited_line", "cited_words", "elsewhere", "unsupported", "unchecked"]
"""How a claim stands against its sentence's cited passages: the deciding line of its check is
in a cited passage (`cited_line`); the cited passages hold its words (`cited_words`); the
context supports it, but not the passages it cites (`elsewhere`: a wrong citation); the
context does not support it (`unsupported`); its check failed or did not run (`unchecked`)."""

CitationRole = Literal["supports", "needed", "irrelevant", "points_nowhere"]
"""One citation of a sentence: it holds a claim's deciding line or words (`supports`), the
sentence's support needs it with the others (`needed`), neither (`irrelevant`), or it names
no passage (`points_nowhere`)."""


class CitedClaim(BaseModel):
    claim: str
    verdict: str
    """The claim check's verdict, as the trace words it."""
    support: ClaimSupport
    evidence_passage: int | None = None
    """The passage holding the check's deciding line (1-based), if one does."""
    judge_named_line: bool | None = None
    """Whether the judge named the deciding line (False: code chose the closest line; None: unknown)."""


class Citation(BaseModel):
    marker: str
    """The marker as written (`[1, 3]`)."""
    passage: int | None
    """The passage it points at (1-based); None for a part that names no passage."""
    written: str
    """The part of the marker this citation is (`3` of `[1, 3]`)."""
    role: CitationRole


class CitedSentence(BaseModel):
    sentence: str
    markers: list[str] = Field(default_factory=list)
    claims: list[CitedClaim] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    supported: bool | None = None
    """Supported by its cited passages (citation recall's unit); None when the sentence makes
    no checkable claim (it counts for neither metric)."""


class UncitedSentence(BaseModel):
    sentence: str
    supporting_passage: int | None = None
    """A passage that supports it (its check's deciding line), when one does."""


class WrongCitation(BaseModel):
    sentence: str
    claim: str
    cited: list[int]
    supporting_passage: int | None = None
    """The passage that would support the claim, when one does."""


class UnresolvedMarker(BaseModel):
    sentence: str
    marker: str
    parts: list[str]
    """The parts that name no passage (`2020` of `[2020]` beside 3 passages)."""


class CitationReport(BaseModel):
    """What the citation metrics read, sentence by sentence."""

    sentences: list[CitedSentence] = Field(default_factory=list)
    uncited: list[UncitedSentence] = Field(default_factory=list)
    wrong: list[WrongCitation] = Field(default_factory=list)
    unresolved: list[UnresolvedMarker] = Field(default_factory=list)


def citation_report(result: object) -> CitationReport | None:
    """The `citations` block of a rag output, typed; None for an output without one."""
    block = result.get("citations") if isinstance(result, dict) else None
    return CitationReport.model_validate(block) if isinstance(block, dict) else None
