"""**Where citations are judged**: each sentence of a cited answer against the passages it cites,
from the claim checks the item already makes: no judge call of its own.

Citation recall and precision are ALCE's (Gao et al., 2023): recall, the share of sentences
their cited passages support; precision, the share of citations that support their sentence
or are needed for it. ALCE asks an NLI model for both. Here they are read from what faithfulness
already measured, claim by claim (`nodes/claims/`: the judge's verdict and the context line it
named as deciding, code's number and grounding checks), with a context line -> passage map
(`passages.LinePassages`). The rules, in order:

Per claim of a sentence (the sentence's cited passages C: every passage its markers resolve to):
1. its check failed -> `unchecked`, and both metrics fail (null, with the reason), as
   faithfulness does;
2. it does not count as supported by the context (contradicted, not in the context, a number
   conflict, too little of it grounded: faithfulness's decision) -> `unsupported`: no subset of
   the context supports what the whole does not;
3. the deciding line of its check lies in a cited passage -> `cited_line`. The deciding line
   is the line the judge named; when the judge named none (line 0), the claim's recorded
   evidence is code's closest line, which counts only with `trust_closest_line`;
4. the cited passages alone hold its words: its grounding against their text (code's check,
   `nodes.claims.code_checks.ground_claim`: words as written, by stem, compound parts, numbers
   by value; no meaning, no call) is at least `grounded_at` -> `cited_words`. This is how a
   claim whose deciding line sits in an *uncited* passage can still be supported by its
   citations (the fact is stated twice), and how a claim supported with no line is decided;
5. otherwise -> `elsewhere`: the context supports it, its citations do not. A wrong citation,
   listed with the passage that would support it: the deciding line's passage, else the
   passage that alone grounds the claim best (at `grounded_at` or more), else none.

Per sentence: it counts for the metrics when it makes at least one claim (a sentence with none,
"I hope this helps [1].", is neither supported nor unsupported). It is *supported by its
citations* when it cites at least one passage and every claim is `cited_line` or `cited_words`.
A sentence with claims and no marker is listed as uncited (recall 0), with the passage that
supports it when one does.

Per citation (each part of each marker of a counted sentence; a part that names no passage,
`[2020]` beside three passages, is a citation that supports nothing and is listed):
- `supports`: it holds the deciding line of one of the sentence's claims, or alone grounds one;
- `needed`: without it, the other cited passages no longer ground a `cited_words` claim;
- `irrelevant`: neither; `points_nowhere`: it names no passage.
Precision counts `supports` and `needed` citations of *supported* sentences (ALCE: a citation
of a sentence its citations do not support is not precise), over all citations counted.

Cost: code only (sentence cutting, one grounding per claim and cited passage); the claim
checks are the ones faithfulness makes, so a cited item costs the calls and tokens of the same
item without markers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ...schemas.citations import (
    Citation,
    CitationReport,
    CitationRole,
    CitedClaim,
    CitedSentence,
    ClaimSupport,
    UncitedSentence,
    UnresolvedMarker,
    WrongCitation,
)
from ...schemas.claims import CheckedClaim
from ...text.citation_markers import CitationMarker, find_markers, resolve, strip_markers, without_sources
from ...text.segmentation import MAX_CLAIMS
from ..claims.code_checks import ground_claim
from .passages import LinePassages
from .sentences import AnswerSentence, answer_sentences, assign_claims

SUPPORTED_BY_CITATION: frozenset[ClaimSupport] = frozenset({"cited_line", "cited_words"})
MAX_CHECKED_CITATIONS = 20
"""Per sentence, at most this many distinct cited passages are grounded one by one (the
`needed` test); more are read as the others are (their lines), keeping the cost bounded."""


@dataclass(frozen=True)
class CitationParameters:
    """The rule's two settings (module doc), tuned on tune rows only (docs/benchmarks.md)."""

    grounded_at: float = 0.75
    """Share of a claim's own content words the cited passages must hold (rule 4): the share
    `nodes.claims.claim_grounding` asks of a claim taken from the answer."""
    trust_closest_line: bool = False
    """Whether code's closest line counts as the deciding line when the judge named none (rule 3)."""


DEFAULT_PARAMETERS = CitationParameters()


@dataclass(frozen=True)
class CitationSignals:
    """What the citation metrics are decided from: the item, its claims and their checks."""

    answer: str
    question: str
    passages: list[str]
    """Every passage as the user numbered them; a blank one stays a passage that supports nothing."""
    passage_ids: list[str | None]
    claims: list[str] | None
    """The checked claims, in order; None when extraction failed (`extraction_error`)."""
    verdicts: list[CheckedClaim] = field(default_factory=list)
    named_lines: dict[int, bool] = field(default_factory=dict)
    """Per claim index: whether the judge named the deciding line (absent: unknown, read as named)."""
    language: str | None = None
    extraction_error: str | None = None


@dataclass(frozen=True)
class CitationOutcome:
    """The report, and the counts the two metrics are the shares of."""

    report: CitationReport
    sentences_counted: int
    sentences_supported: int
    citations_counted: int
    citations_precise: int
    error: str | None = None
    sentences_past_cap: int = 0
    """Sentences with words but no claim because the answer's claims stop at `MAX_CLAIMS`
    (claims cut in code): not judged, so not counted, and said so in the explanation."""


class _Grounder:
    """Grounding of one claim against sets of passages, each set measured once."""

    def __init__(self, question: str, passages: list[str], language: str | None) -> None:
        self.question, self.passages, self.language = question, passages, language
        self._memo: dict[tuple[str, tuple[int, ...]], float] = {}

    def share(self, claim: str, passages: Sequence[int]) -> float:
        key = (claim, tuple(sorted(set(passages))))
        if key not in self._memo:
            text = "\n".join(self.passages[i] for i in key[1])
            self._memo[key] = ground_claim(claim, self.question, text, self.language).lemma_share if text.strip() else 0.0
        return self._memo[key]


@dataclass(frozen=True)
class _Part:
    """One citation of a sentence: the marker it is part of, how it names its passage, and the
    passage (0-based; None when it names none)."""

    marker: str
    written: str
    passage: int | None


@dataclass
class _ClaimsOfSentence:
    views: list[CitedClaim] = field(default_factory=list)
    supporting: set[int] = field(default_factory=set)
    """Cited passages holding a claim's deciding line or alone grounding one."""
    by_words: list[str] = field(default_factory=list)
    """The claims supported by the cited passages' words (the `needed` test reads them)."""
    failure: str | None = None


class _ItemJudge:
    """The rules applied to one item's sentences (module doc), with what they share: the
    claims and their checks, the line -> passage map and the grounding memo."""

    def __init__(self, signals: CitationSignals, parameters: CitationParameters) -> None:
        self.signals, self.parameters = signals, parameters
        self.ids = signals.passage_ids or [None] * len(signals.passages)
        self.claims = signals.claims or []
        self.by_index = {v.index: v for v in signals.verdicts}
        self.lines = LinePassages.of(signals.passages)
        self.grounder = _Grounder(signals.question, signals.passages, signals.language)
        self.report = CitationReport()
        self.has_context = any(passage.strip() for passage in signals.passages)

    def claim_support(self, index: int, claim: str, cited: tuple[int, ...]) -> tuple[ClaimSupport, tuple[int, ...]]:
        """The claim's standing (module doc, rules 1-5) and the passages holding its deciding line."""
        verdict = self.by_index.get(index)
        if verdict is None and not self.has_context:
            return "unsupported", ()  # no context: nothing was checked, nothing supports it
        if verdict is None or verdict.error is not None:
            return "unchecked", ()
        holders = self.lines.holding(verdict.evidence) if verdict.evidence else ()
        if not verdict.counts_as_supported:
            return "unsupported", holders
        named = self.signals.named_lines.get(index)
        if (named is not False or self.parameters.trust_closest_line) and set(holders) & set(cited):
            return "cited_line", holders
        if cited and self.grounder.share(claim, cited) >= self.parameters.grounded_at:
            return "cited_words", holders
        return "elsewhere", holders

    def supporting_passage(self, claim: str, holders: tuple[int, ...], cited: tuple[int, ...]) -> int | None:
        """The passage that would support a claim (module doc, rule 5), 0-based."""
        outside = [p for p in holders if p not in cited] or list(holders)
        if outside:
            return outside[0]
        shares = [(self.grounder.share(claim, (p,)), -p) for p in range(len(self.signals.passages)) if p not in cited]
        best = max(shares, default=None)
        return -best[1] if best is not None and best[0] >= self.parameters.grounded_at else None

    def parts(self, sentence: AnswerSentence) -> list[_Part]:
        """The sentence's citations, each part of each marker; the parts naming no passage are
        also listed in the report."""
        parts: list[_Part] = []
        for marker in sentence.markers:
            resolved = resolve(marker, self.ids, len(self.signals.passages))
            parts += [_Part(marker.text, _written(marker, p, self.ids), p) for p in resolved.passages]
            parts += [_Part(marker.text, written, None) for written in resolved.unresolved]
            if resolved.unresolved:
                self.report.unresolved.append(UnresolvedMarker(sentence=sentence.text, marker=marker.text,
                                                               parts=list(resolved.unresolved)))
        return parts

    def claims_of(self, sentence: AnswerSentence, cited: tuple[int, ...]) -> _ClaimsOfSentence:
        found = _ClaimsOfSentence()
        for index in sentence.claims:
            claim = strip_markers(self.claims[index], self.ids)  # claims checked today carry none; recorded ones may
            support, holders = self.claim_support(index, claim, cited)
            verdict = self.by_index.get(index)
            if support == "unchecked":
                found.failure = found.failure or (verdict.error if verdict is not None and verdict.error
                                                  else "a claim was not checked")
            elif support == "cited_line":
                found.supporting |= set(holders) & set(cited)
            elif support == "cited_words":
                found.by_words.append(claim)
                found.supporting |= {p for p in cited[:MAX_CHECKED_CITATIONS]
                                     if self.grounder.share(claim, (p,)) >= self.parameters.grounded_at}
            elif support == "elsewhere" and sentence.markers:
                would = self.supporting_passage(claim, holders, cited)
                self.report.wrong.append(WrongCitation(
                    sentence=sentence.text, claim=self.claims[index], cited=[p + 1 for p in cited],
                    supporting_passage=None if would is None else would + 1))
            found.views.append(CitedClaim(
                claim=self.claims[index], verdict=verdict.effective_verdict if verdict is not None else "not checked",
                support=support, evidence_passage=holders[0] + 1 if holders else None,
                judge_named_line=self.signals.named_lines.get(index)))
        return found

    def role(self, part: _Part, cited: tuple[int, ...], claims: _ClaimsOfSentence) -> CitationRole:
        if part.passage is None:
            return "points_nowhere"
        if part.passage in claims.supporting:
            return "supports"
        if cited.index(part.passage) < MAX_CHECKED_CITATIONS:
            others = [p for p in cited[:MAX_CHECKED_CITATIONS] if p != part.passage]
            if any(self.grounder.share(claim, others) < self.parameters.grounded_at for claim in claims.by_words):
                return "needed"
        return "irrelevant"

    def sentence(self, sentence: AnswerSentence) -> tuple[CitedSentence, int, int, str | None]:
        """The sentence's view, its citations counted and precise, and a failure if any."""
        parts = self.parts(sentence)
        cited = tuple(dict.fromkeys(part.passage for part in parts if part.passage is not None))
        claims = self.claims_of(sentence, cited)
        view = CitedSentence(sentence=sentence.text, markers=[m.text for m in sentence.markers], claims=claims.views)
        if not claims.views:  # no checkable claim: counts for neither metric
            view.citations = [Citation(marker=p.marker, written=p.written, passage=None if p.passage is None else p.passage + 1,
                                       role="points_nowhere" if p.passage is None else "irrelevant") for p in parts]
            return view, 0, 0, claims.failure
        view.supported = bool(cited) and all(c.support in SUPPORTED_BY_CITATION for c in claims.views)
        if not sentence.markers:
            first = next((c.evidence_passage for c in claims.views if c.support != "unsupported"), None)
            self.report.uncited.append(UncitedSentence(sentence=sentence.text, supporting_passage=first))
        precise = 0
        for part in parts:
            role = self.role(part, cited, claims)
            view.citations.append(Citation(marker=part.marker, written=part.written, role=role,
                                           passage=None if part.passage is None else part.passage + 1))
            precise += view.supported and role in ("supports", "needed")
        return view, len(parts), precise, claims.failure


def judge_citations(signals: CitationSignals, parameters: CitationParameters = DEFAULT_PARAMETERS) -> CitationOutcome:
    """The report and counts of one item, by the module's rules."""
    judge = _ItemJudge(signals, parameters)
    # sentences of what the answer asserts and cites: its source list is neither (same offsets)
    sentences = answer_sentences(without_sources(signals.answer), find_markers(signals.answer, judge.ids))
    assign_claims(sentences, judge.claims, signals.language, judge.ids)
    counted = supported = citations = precise = 0
    error = signals.extraction_error
    past_cap = 0
    at_cap = len(judge.claims) >= MAX_CLAIMS
    for sentence in sentences:
        past_cap += at_cap and not sentence.claims and any(ch.isalnum() for ch in strip_markers(sentence.text, judge.ids))
        view, cited, precise_here, failure = judge.sentence(sentence)
        judge.report.sentences.append(view)
        error = error or failure
        if view.supported is not None:
            counted += 1
            supported += view.supported
            citations += cited
            precise += precise_here
    if error is None and judge.has_context and len(judge.by_index) < len(judge.claims):
        error = f"{len(judge.by_index)} claim checks for {len(judge.claims)} claims"
    return CitationOutcome(judge.report, counted, supported, citations, precise, error, past_cap)


def _written(marker: CitationMarker, passage: int, ids: Sequence[str | None]) -> str:
    """How the marker names `passage`: its id when it names passages by id, else its number."""
    passage_id = ids[passage] if passage < len(ids) else None
    if passage_id is not None and any(ref.id is not None and ref.id.casefold() == passage_id.casefold() for ref in marker.refs):
        return passage_id
    return str(passage + 1)
