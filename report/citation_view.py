"""A cited answer's `citations` block (`schemas.citations.CitationReport`) as the report shows
it: each sentence with its markers, its claims' verdicts and each citation's role.

Read from a results file, which is untrusted input: every value is turned into text here and
escaped by the template (autoescape), and a block of another shape shows nothing rather than
failing the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

_SUPPORT_WORDS = {
    "cited_line": "its deciding line is in a cited passage",
    "cited_words": "the cited passages hold its words",
    "elsewhere": "supported by another passage than the cited ones",
    "unsupported": "not supported by the context",
    "unchecked": "not checked",
}


@dataclass
class SentenceView:
    sentence: str
    markers: str
    supported: bool | None
    claims: list[str] = field(default_factory=list)
    """Each claim with its verdict and how its citations stand."""
    citations: list[str] = field(default_factory=list)
    """Each citation: the marker part, the passage and its role."""


def _text(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def _citation(entry: dict) -> str:
    passage = entry.get("passage")
    target = f"passage {passage}" if passage is not None else "no passage"
    return f"{_text(entry.get('marker'))} → {target}: {_text(entry.get('role')).replace('_', ' ')}"


def citation_views(result: Any) -> list[SentenceView]:
    """The sentences of a result's `citations` block; empty without one."""
    block = result.get("citations") if isinstance(result, dict) else None
    sentences = block.get("sentences") if isinstance(block, dict) else None
    if not isinstance(sentences, list):
        return []
    views = []
    for entry in sentences:
        if not isinstance(entry, dict):
            continue
        markers = entry.get("markers") if isinstance(entry.get("markers"), list) else []
        claims = [c for c in entry.get("claims") or [] if isinstance(c, dict)]
        citations = [c for c in entry.get("citations") or [] if isinstance(c, dict)]
        supported = entry.get("supported")
        views.append(SentenceView(
            sentence=_text(entry.get("sentence")), markers=" ".join(map(_text, markers)) or "(none)",
            supported=supported if isinstance(supported, bool) else None,
            claims=[f"{_text(c.get('claim'))}: {_text(c.get('verdict'))}; "
                    f"{_SUPPORT_WORDS.get(_text(c.get('support')), _text(c.get('support')))}" for c in claims],
            citations=[_citation(c) for c in citations],
        ))
    return views
