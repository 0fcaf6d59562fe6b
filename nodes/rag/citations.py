"""**Citation recall and precision** of a cited rag answer: two metrics beyond the seed's 11
keys, judged from the claim checks faithfulness already makes (`nodes/citations/support.py`
has the rules; docs/rubrics.md words them for users).

They apply to an item whose answer carries citation markers (`text.citation_markers`), or that
names them in its `metrics`; for any other item they are not judged and their keys are absent,
so an uncited item's output is exactly the seed's 11 keys. A cited item's output has, after the
seed's keys, `citation_recall`, `citation_precision`, their explanations, and `citations`
(`schemas.citations.CitationReport`: each sentence with its markers and verdicts).

No node of their own: their entry node is the claim pipeline's (`extract_claims`, run once per
item whichever metrics ask for it), and their score is taken from the finished state.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from ...calibration.profile import Profile
from ...declarations.metric_declaration import MetricDeclaration
from ...declarations.rubric_spec import MetricSpec
from ...declarations.run_details import step_detail, verdicts
from ...schemas.citations import CitationReport
from ...schemas.metrics import Score
from ...schemas.rag import RagInput
from ...schemas.trace import TraceEvent
from ...text.citation_markers import has_markers
from ...text.segmentation import MAX_CLAIMS
from ..citations.deciding_lines import named_lines
from ..citations.support import DEFAULT_PARAMETERS, CitationOutcome, CitationParameters, CitationSignals, judge_citations
from ..claims.check_claim import CLAIM_NODES

BLOCK = "citations"
"""The output field holding the per-sentence report (`schemas.citations.CitationReport`)."""
SHOWN = 3
"""Sentences listed by name in an explanation; the `citations` block lists them all."""


def citations_apply(rag: RagInput) -> bool:
    """The answer carries at least one citation marker (one that points at no passage too)."""
    return has_markers(rag.answer, rag.passage_ids)


def citation_signals(state: Mapping[str, Any], rag: RagInput) -> CitationSignals:
    extraction = state.get("judgments", {}).get("extract_claims")
    extracted = extraction.value if extraction is not None else None
    error = None if extracted is not None else f"claim extraction failed: {extraction.error if extraction else 'did not run'}"
    return CitationSignals(
        answer=rag.answer, question=rag.question, passages=rag.numbered_passages, passage_ids=rag.passage_ids,
        claims=extracted.claims if extracted is not None else None, verdicts=list(state.get("verdicts", [])),
        named_lines=named_lines(state.get("trace", [])), language=rag.item_language.code, extraction_error=error,
    )


def _quoted(text: str, limit: int = 70) -> str:
    """The sentence or claim in quotes, without its end mark (the explanation's sentence has one)."""
    text = text.rstrip(".。!?！？ ")
    return f"'{text if len(text) <= limit else text[: limit - 1] + '…'}'"


def _listed(items: list[str]) -> str:
    more = f" and {len(items) - SHOWN} more" if len(items) > SHOWN else ""
    return "; ".join(items[:SHOWN]) + more


def _notes(report: CitationReport) -> str:
    notes = []
    if report.uncited:
        notes.append("No citation: " + _listed([_quoted(s.sentence) for s in report.uncited]) + ".")
    if report.wrong:
        notes.append("Cites a passage that does not support it: " + _listed([
            f"{_quoted(w.claim)} cites {', '.join(map(str, w.cited)) or 'nothing'}"
            + (f", passage {w.supporting_passage} supports it" if w.supporting_passage else "")
            for w in report.wrong]) + ".")
    if report.unresolved:
        notes.append("Markers pointing at no passage: " + _listed(
            [f"{u.marker} ({', '.join(u.parts)})" for u in report.unresolved]) + ".")
    return (" " + " ".join(notes)) if notes else ""


def _breakdown(outcome: CitationOutcome) -> dict[str, Any]:
    return outcome.report.model_dump()


def _past_cap(outcome: CitationOutcome) -> str:
    if not outcome.sentences_past_cap:
        return ""
    return (f" {outcome.sentences_past_cap} more sentences are not counted: their claims come after the "
            f"{MAX_CLAIMS} claims checked per answer.")


def citation_recall(outcome: CitationOutcome) -> Score:
    """Citation recall from the item's citation report: the share of counted sentences the
    passages they cite support."""
    if outcome.error:
        return Score.failed("Citation recall", outcome.error, breakdown=_breakdown(outcome))
    if not outcome.sentences_counted:
        return Score(None, "The answer makes no checkable claim, so citation recall does not apply.",
                           breakdown=_breakdown(outcome))
    explanation = (f"{outcome.sentences_supported} of {outcome.sentences_counted} sentences are supported "
                   f"by the passages they cite.{_notes(outcome.report)}{_past_cap(outcome)}")
    return Score(outcome.sentences_supported / outcome.sentences_counted, explanation, breakdown=_breakdown(outcome))


def citation_precision(outcome: CitationOutcome) -> Score:
    """Citation precision from the item's citation report: the share of citations that support
    their sentence or are needed for it."""
    if outcome.error:
        return Score.failed("Citation precision", outcome.error, breakdown=_breakdown(outcome))
    if not outcome.citations_counted:
        return Score(None, "No sentence with a checkable claim cites a passage, so citation precision "
                                 "does not apply.", breakdown=_breakdown(outcome))
    irrelevant = [f"{c.marker} on {_quoted(s.sentence, 50)}" for s in outcome.report.sentences if s.supported
                  for c in s.citations if c.role == "irrelevant"]
    explanation = (f"{outcome.citations_precise} of {outcome.citations_counted} citations support their sentence "
                   f"or are needed for it.")
    if irrelevant:
        explanation += " Not needed: " + _listed(irrelevant) + "."
    return Score(outcome.citations_precise / outcome.citations_counted, explanation + _notes(outcome.report),
                       breakdown=_breakdown(outcome))


def decide_citation_recall(signals: CitationSignals, parameters: CitationParameters = DEFAULT_PARAMETERS) -> Score:
    return citation_recall(judge_citations(signals, parameters))


def decide_citation_precision(signals: CitationSignals, parameters: CitationParameters = DEFAULT_PARAMETERS) -> Score:
    return citation_precision(judge_citations(signals, parameters))


_last_report = threading.local()
"""This thread's last (state, item, citation report): one report per item for both metrics."""


def citation_outcome(state: Mapping[str, Any], rag: RagInput) -> CitationOutcome:
    """The item's citation report, built once for both metrics: the rubric scores them one after
    the other from the same finished state (`nodes.rag.result.score_rag_metrics`), in one
    thread, so the second reuses the first's report. Identity, not equality, says "the same
    item": the cache holds the objects themselves, so a later item never matches by accident."""
    last = getattr(_last_report, "entry", None)
    if last is not None and last[0] is state and last[1] is rag:
        return last[2]
    outcome = judge_citations(citation_signals(state, rag))
    _last_report.entry = (state, rag, outcome)
    return outcome


def score_citation_recall(state: Mapping[str, Any], rag: RagInput, profile: Profile) -> Score:
    return citation_recall(citation_outcome(state, rag))


def score_citation_precision(state: Mapping[str, Any], rag: RagInput, profile: Profile) -> Score:
    return citation_precision(citation_outcome(state, rag))


def citation_signals_of_run(state: Mapping[str, Any], rag: RagInput) -> dict[str, Any]:
    """What a citation metric record carries, from the typed state: how many claims were
    checked, and how many of their checks named the deciding line."""
    return {"claims": len(state.get("verdicts", [])),
            "judge_named_lines": sum(named_lines(state.get("trace", [])).values())}


def citation_record_signals(details: Mapping[str, Any] | None) -> dict[str, Any]:
    """What a citation metric record carries: how many claims were checked, and how many of
    their checks named the deciding line (the rule reads it, `nodes.citations.support`)."""
    if not details or step_detail(details, "extract_claims") is None:
        return {}
    nodes = [TraceEvent.model_validate(node) for node in details.get("nodes") or [] if isinstance(node, Mapping)]
    return {"claims": len(verdicts(details)), "judge_named_lines": sum(named_lines(nodes).values())}


SOURCES = (
    "nodes/rag/citations.py", "nodes/citations/support.py", "nodes/citations/sentences.py",
    "nodes/citations/passages.py", "nodes/citations/deciding_lines.py", "text/citation_markers.py",
    "nodes/claims/code_checks.py", "text/sentences.py",
)
"""The files that define what the citation signals mean (`calibration.signal_hash`)."""

_SHARED = dict(
    entry_nodes=("extract_claims",), nodes=CLAIM_NODES, read_signals=citation_record_signals,
    record_signals=citation_signals_of_run,
    signal_sources=SOURCES, applies=citations_apply, output_block=(BLOCK, CitationReport),
)

CITATION_RECALL = MetricDeclaration(
    spec=MetricSpec("citation_recall", kind="score", scale=(0, 1), field="citation_recall", from_claims=True),
    score=score_citation_recall, decide=decide_citation_recall, **_SHARED,
)
CITATION_PRECISION = MetricDeclaration(
    spec=MetricSpec("citation_precision", kind="score", scale=(0, 1), field="citation_precision", from_claims=True),
    score=score_citation_precision, decide=decide_citation_precision, **_SHARED,
)
