"""An answer's sentences with the citation markers each carries, and the claims each makes.

Sentences are the ones the claim pipeline cuts (`text.segmentation`: `split_sentences`
for every script), located back in the answer so each marker falls in one. A marker belongs to
the sentence whose span holds it, except one that opens a sentence ("Paris is big. [1] It
has ..."): it closes the sentence before it, the way readers read a citation after a period.

A claim belongs to the sentence that holds its text (claims cut in code are clauses of one
sentence); a claim the judge rephrased (`--claims model`) to the sentence sharing most of its
content words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...text.citation_markers import CitationMarker, strip_markers
from ...text.quotes import strip_lead_in
from ...text.segmentation import answer_claims, split_sentences
from ...text.tokens import content_words


@dataclass
class AnswerSentence:
    text: str
    start: int
    end: int
    markers: list[CitationMarker] = field(default_factory=list)
    claims: list[int] = field(default_factory=list)
    """Indexes of the item's claims this sentence makes."""


def _spans(answer: str) -> list[AnswerSentence]:
    """Each sentence of `split_sentences` (whitespace-normalised) with its span in `answer`."""
    found: list[AnswerSentence] = []
    position = 0
    for sentence in split_sentences(answer):
        words = sentence.split()
        match = re.compile(r"\s+".join(map(re.escape, words))).search(answer, position) if words else None
        if match is None:  # not found as written: keep it, spanning nothing
            found.append(AnswerSentence(sentence, position, position))
            continue
        found.append(AnswerSentence(sentence, match.start(), match.end()))
        position = match.end()
    return found


def answer_sentences(answer: str, markers: Sequence[CitationMarker]) -> list[AnswerSentence]:
    """The answer's sentences, each with its markers (module doc: which sentence a marker
    belongs to). One pass over the markers, in order: linear in their number."""
    sentences = _spans(answer)
    if not sentences:
        return []
    current = 0
    lead_end = sentences[0].start  # the current sentence holds only blanks and markers up to here
    leading = True
    for marker in markers:
        while current + 1 < len(sentences) and sentences[current + 1].start <= marker.start:
            current += 1
            lead_end, leading = sentences[current].start, True
        if current > 0 and leading and marker.start >= lead_end and not answer[lead_end:marker.start].strip():
            sentences[current - 1].markers.append(marker)
            lead_end = marker.end
            continue
        leading = False
        sentences[current].markers.append(marker)
    return sentences


def _folded(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".。!?！？ ")


def _claim_key(text: str) -> str:
    """A claim as `nodes.claims.extract.unique_claims` tells repeats apart."""
    return _folded(strip_lead_in(text))


def assign_claims(sentences: list[AnswerSentence], claims: Sequence[str], language: str | None = None,
                  ids: Sequence[str | None] = ()) -> None:
    """Record on each sentence the indexes of the claims it makes (module doc). Claims are cut
    from the answer without its markers (`schemas.rag.RagInput.claim_subject`), so sentences
    are compared without theirs.

    The claims are unique (a repeated sentence is checked once), so one claim may be made by
    several sentences: each of them gets it, and with it its own verdict, whatever their order.
    A claim is found through an index of the claims each sentence cuts to, and of the
    sentences' texts (linear in the sentences); only a claim the judge rephrased is compared
    with every sentence."""
    if not sentences:
        return
    folded = [_folded(strip_markers(sentence.text, ids)) for sentence in sentences]
    by_claim: dict[str, list[int]] = {}
    by_text: dict[str, list[int]] = {}
    for n, text in enumerate(folded):
        by_text.setdefault(text, []).append(n)
        for piece in answer_claims(strip_markers(sentences[n].text, ids)):
            holders = by_claim.setdefault(_claim_key(piece), [])
            if not holders or holders[-1] != n:
                holders.append(n)
    words: list[set[str]] | None = None
    for index, claim in enumerate(claims):
        key = _claim_key(claim)
        holders = by_claim.get(key) if key else None
        if not holders:
            first = next((n for n, text in enumerate(folded) if key and key in text), None)
            if first is None:
                if words is None:
                    words = [set(content_words(sentence.text, language)) for sentence in sentences]
                own = set(content_words(claim, language))
                first = max(range(len(sentences)), key=lambda n: (len(own & words[n]), -n))
            holders = by_text[folded[first]]  # the sentence, and every sentence repeating it
        for n in holders:
            sentences[n].claims.append(index)
