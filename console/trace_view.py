"""Render a run's trace as a rich tree, with claims and verdicts as a table.

This is how a user sees *why* a score came out as it did: every node with its time, tokens,
attempts and validation errors, then each claim with its verdict and the evidence quote.
"""

from __future__ import annotations

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from ..schemas.citations import CitationReport
from ..schemas.claims import CheckedClaim
from ..schemas.trace import TraceEvent
from ..text.visible import visible
from .safe_text import safe_text

_OUTCOME_STYLE = {"ok": "green", "failed": "bold red", "skipped": "dim"}
_VERDICT_STYLE = {"supported": "green", "contradicted": "red", "not-in-context": "yellow"}


def _event_line(event: TraceEvent) -> Text:
    line = Text()
    line.append(visible(event.node), style="bold")
    if event.label:
        line.append(f" [{visible(event.label)}]")
    line.append(f"  {event.outcome}", style=_OUTCOME_STYLE[event.outcome])
    line.append(f"  {event.duration_s:.2f}s", style="cyan")
    if event.calls:
        line.append(f"  calls {event.calls}  tokens {event.input_tokens}→{event.output_tokens}", style="magenta")
    if event.note:
        line.append(f"  {visible(event.note)}", style="dim" if event.outcome != "failed" else "red")
    return line


def trace_tree(events: list[TraceEvent], title: str = "judgegraph trace") -> Tree:
    tree = Tree(safe_text(title, style="bold underline"))
    for event in events:
        branch = tree.add(_event_line(event))
        if len(event.attempts) > 1 or any(not a.ok for a in event.attempts):
            for attempt in event.attempts:
                status = "valid" if attempt.ok else "invalid"
                extra = " (repaired locally)" if attempt.repaired_locally else ""
                node = branch.add(safe_text(
                    f"attempt {attempt.number}: {status}{extra}, finish={attempt.finish_reason}, "
                    f"{attempt.seconds:.2f}s", style="green" if attempt.ok else "yellow",
                ))
                for error in attempt.errors[:5]:
                    node.add(safe_text(error, style="red"))
    return tree


def numbered_table(title: str, columns: dict[str, dict]) -> Table:
    """A trace table whose rows are numbered (`#`), then `columns` (header -> `add_column`
    keywords: a width or a ratio), lines between rows, as wide as the terminal."""
    table = Table(title=title, show_lines=True, expand=True)
    table.add_column("#", justify="right", width=3)
    for header, layout in columns.items():
        table.add_column(header, **layout)
    return table


def claims_table(verdicts: list[CheckedClaim]) -> Table:
    table = numbered_table("Claims and verdicts", {
        "claim": {"ratio": 3}, "verdict": {"ratio": 2}, "critical": {"width": 8},
        "evidence (found in context?)": {"ratio": 3}})
    for verdict in sorted(verdicts, key=lambda v: v.index):
        style = _VERDICT_STYLE.get(verdict.verdict or "", "red")
        found = "✓ found" if verdict.evidence_found else "✗ not found"
        evidence = f"{verdict.evidence!r} {found}" if verdict.evidence else (verdict.error or "(none)")
        table.add_row(
            str(verdict.index + 1), safe_text(verdict.claim), safe_text(verdict.effective_verdict, style=style),
            "yes" if verdict.critical else "no", safe_text(evidence),
        )
    return table


def element_records(events: list[TraceEvent]) -> list[dict]:
    """Coverage element checks from the trace (one per task, or a list from batch mode)."""
    records = []
    for event in events:
        if event.node in ("check_reference_element", "check_term") and "element" in event.detail:
            records.append(event.detail)
        records.extend(event.detail.get("elements", []) if event.node == "check_reference_elements_batch" else [])
    return sorted(records, key=lambda r: r.get("index", 0))


def elements_table(records: list[dict]) -> Table:
    table = numbered_table("Reference elements and matches", {
        "category": {"width": 10}, "element": {"ratio": 3}, "matched": {"width": 8},
        "quote from the output (found?)": {"ratio": 3}})
    for record in records:
        matched = bool(record.get("matched"))
        quote = record.get("quote") or ""
        found = "✓ found" if record.get("quote_found") else "✗ not found"
        table.add_row(
            str(record.get("index", 0) + 1), safe_text(record.get("category", "")), safe_text(record.get("element", "")),
            safe_text("yes" if matched else "no", style="green" if matched else "red"),
            safe_text(f"{quote!r} {found}" if quote else (record.get("error") or "(none)")),
        )
    return table


def citations_table(report: CitationReport) -> Table:
    """Each sentence of a cited answer with its markers, its claims' verdicts and its citations."""
    table = numbered_table("Citations, sentence by sentence", {
        "sentence": {"ratio": 3}, "markers": {"ratio": 1},
        "claims: verdict, support by the cited passages": {"ratio": 3}, "citations": {"ratio": 2}})
    for number, sentence in enumerate(report.sentences, 1):
        claims = "\n".join(f"{c.claim}: {c.verdict}; {c.support.replace('_', ' ')}" for c in sentence.claims)
        citations = "\n".join(f"{c.written} → {f'passage {c.passage}' if c.passage else 'no passage'}: "
                               f"{c.role.replace('_', ' ')}" for c in sentence.citations)
        style = {True: "green", False: "red"}.get(sentence.supported, "dim")
        table.add_row(str(number), safe_text(sentence.sentence, style=style),
                      safe_text(" ".join(sentence.markers) or "(none)"), safe_text(claims or "(no claim)"),
                      safe_text(citations or "(none)"))
    return table


def render_trace(console: Console, events: list[TraceEvent], verdicts: list[CheckedClaim], *, title: str,
                 citations: CitationReport | None = None) -> None:
    parts = [trace_tree(events, title)]
    if verdicts:
        parts.append(claims_table(verdicts))
    if citations is not None and citations.sentences:
        parts.append(citations_table(citations))
    elements = element_records(events)
    if elements:
        parts.append(elements_table(elements))
    console.print(Group(*parts))
