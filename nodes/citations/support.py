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
    CitedClaim,
    CitedSentence,
    ClaimSupport,
    UncitedSentence,
    UnresolvedMarker,
    WrongCitation,
)
from ...schemas.claims import CheckedClaim
from ...text.citation_markers import find_markers, resolve, strip_markers
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


class _Grounder:
    """Grounding of one claim against sets of passages, each set measured once."""

    def __init__(self, question: str, passages: list[str], language: str | None) -> None:
        self.question, self.passages, self.language = question, passages, language
        self._memo: dict[tuple[str, tuple[int, ...]], float] = {}

    def share(self, claim: str, passages: Sequence[int]) -> float:
        key = (claim, tuple(sorted(set(passages))))
        if key not in self._memo:
            text = "\n".join(self.passages[i] for i in key[1])
            self._memo[key] = ground_claim(claim, self.question, text, self.language).lemma_share if text else 0.0
        return self._memo[key]


def _claim_support(verdict: CheckedClaim | None, claim: str, cited: tuple[int, ...], lines: LinePassages,
                   grounder: _Grounder, named: bool | None, parameters: CitationParameters) -> tuple[ClaimSupport, tuple[int, ...]]:
    """The claim's standing (module doc, rules 1-5) and the passages holding its deciding line."""
    if verdict is None or verdict.error is not None:
        return "unchecked", ()
    holders = lines.holding(verdict.evidence) if verdict.evidence else ()
    if not verdict.counts_as_supported:
        return "unsupported", holders
    line_counts = named is not False or parameters.trust_closest_line
    if line_counts and set(holders) & set(cited):
        return "cited_line", holders
    if cited and grounder.share(claim, cited) >= parameters.grounded_at:
        return "cited_words", holders
    return "elsewhere", holders


def _supporting_passage(claim: str, holders: tuple[int, ...], cited: tuple[int, ...], grounder: _Grounder,
                        parameters: CitationParameters) -> int | None:
    """The passage that would support a claim (module doc, rule 5), 0-based."""
    outside = [p for p in holders if p not in cited] or list(holders)
    if outside:
        return outside[0]
    shares = [(grounder.share(claim, (p,)), -p) for p in range(len(grounder.passages)) if p not in cited]
    best = max(shares, default=None)
    return -best[1] if best is not None and best[0] >= parameters.grounded_at else None


def judge_citations(signals: CitationSignals, parameters: CitationParameters = DEFAULT_PARAMETERS) -> CitationOutcome:
    """The report and counts of one item, by the module's rules."""
    ids = signals.passage_ids or [None] * len(signals.passages)
    markers = find_markers(signals.answer, ids)
    sentences = answer_sentences(signals.answer, markers)
    claims = signals.claims or []
    assign_claims(sentences, claims, signals.language, ids)
    by_index = {v.index: v for v in signals.verdicts}
    lines = LinePassages.of(signals.passages)
    grounder = _Grounder(signals.question, signals.passages, signals.language)
    report = CitationReport()
    counted = supported_count = citations_total = precise = 0
    error = signals.extraction_error
    for sentence in sentences:
        cited_sentence, stats, failure = _sentence(sentence, claims, by_index, ids, lines, grounder, signals, parameters, report)
        report.sentences.append(cited_sentence)
        error = error or failure
        if cited_sentence.supported is None:
            continue
        counted += 1
        supported_count += cited_sentence.supported
        citations_total += stats[0]
        precise += stats[1]
    if error is None and signals.passages and len(by_index) < len(claims):
        error = f"{len(by_index)} claim checks for {len(claims)} claims"
    return CitationOutcome(report, counted, supported_count, citations_total, precise, error)


def _sentence(sentence: AnswerSentence, claims: list[str], by_index: dict[int, CheckedClaim], ids: Sequence[str | None],
              lines: LinePassages, grounder: _Grounder, signals: CitationSignals, parameters: CitationParameters,
              report: CitationReport) -> tuple[CitedSentence, tuple[int, int], str | None]:
    parts: list[tuple[str, str, int | None]] = []  # (marker, part written, passage or None)
    for marker in sentence.markers:
        resolved = resolve(marker, ids, len(signals.passages))
        parts += [(marker.text, _written(marker, p, ids), p) for p in resolved.passages]
        parts += [(marker.text, written, None) for written in resolved.unresolved]
        if resolved.unresolved:
            report.unresolved.append(UnresolvedMarker(sentence=sentence.text, marker=marker.text,
                                                      parts=list(resolved.unresolved)))
    cited = tuple(dict.fromkeys(p for _, _, p in parts if p is not None))
    failure = None
    claim_views: list[CitedClaim] = []
    supporting: set[int] = set()
    words_claims: list[str] = []
    for index in sentence.claims:
        verdict = by_index.get(index)
        claim = strip_markers(claims[index], ids)  # claims checked today carry none; recorded ones may
        named = signals.named_lines.get(index)
        if verdict is None and not signals.passages:
            support, holders = "unsupported", ()
        else:
            support, holders = _claim_support(verdict, claim, cited, lines, grounder, named, parameters)
        if support == "unchecked":
            failure = failure or (verdict.error if verdict is not None and verdict.error else "a claim was not checked")
        if support == "cited_line":
            supporting |= set(holders) & set(cited)
        if support == "cited_words":
            words_claims.append(claim)
            supporting |= {p for p in cited[:MAX_CHECKED_CITATIONS] if grounder.share(claim, (p,)) >= parameters.grounded_at}
        if support == "elsewhere" and sentence.markers:
            would = _supporting_passage(claim, holders, cited, grounder, parameters)
            report.wrong.append(WrongCitation(sentence=sentence.text, claim=claims[index], cited=[p + 1 for p in cited],
                                              supporting_passage=None if would is None else would + 1))
        claim_views.append(CitedClaim(
            claim=claims[index], verdict=verdict.effective_verdict if verdict is not None else "not checked",
            support=support, evidence_passage=holders[0] + 1 if holders else None, judge_named_line=named))
    view = CitedSentence(sentence=sentence.text, markers=[m.text for m in sentence.markers], claims=claim_views)
    if not claim_views:
        view.citations = [Citation(marker=m, written=w, passage=None if p is None else p + 1,
                                   role="points_nowhere" if p is None else "irrelevant") for m, w, p in parts]
        return view, (0, 0), failure
    view.supported = bool(cited) and all(c.support in SUPPORTED_BY_CITATION for c in claim_views)
    if not sentence.markers:
        first = next((c.evidence_passage for c in claim_views if c.support != "unsupported"), None)
        report.uncited.append(UncitedSentence(sentence=sentence.text, supporting_passage=first))
    precise = 0
    for marker, written, passage in parts:
        if passage is None:
            role = "points_nowhere"
        elif passage in supporting:
            role = "supports"
        elif any(grounder.share(claim, [p for p in cited[:MAX_CHECKED_CITATIONS] if p != passage]) < parameters.grounded_at
                 for claim in words_claims) and cited.index(passage) < MAX_CHECKED_CITATIONS:
            role = "needed"
        else:
            role = "irrelevant"
        view.citations.append(Citation(marker=marker, written=written, passage=None if passage is None else passage + 1,
                                        role=role))
        precise += view.supported and role in ("supports", "needed")
    return view, (len(parts), precise), failure


def _written(marker, passage: int, ids: Sequence[str | None]) -> str:
    """How the marker names `passage`: its id when it names passages by id, else its number."""
    passage_id = ids[passage] if passage < len(ids) else None
    if passage_id is not None and any(ref.id is not None and ref.id.casefold() == passage_id.casefold() for ref in marker.refs):
        return passage_id
    return str(passage + 1)
