"""The `--trace` view (`console/trace_view.py`): each rubric's own table (rag's citations
sentence by sentence, coverage's reference elements), user text shown as text, never
interpreted."""

from __future__ import annotations

import io

from rich.console import Console

from judgegraph.console.trace_view import render_trace
from judgegraph.schemas.citations import citation_report
from judgegraph.schemas.trace import TraceEvent
from tests.report.test_citation_rendering import judged


def test_the_trace_view_shows_each_sentence_with_its_markers_and_verdicts_as_text():
    run = judged()
    buffer = io.StringIO()
    render_trace(Console(file=buffer, width=240, force_terminal=True), run.trace, run.verdicts, title="t",
                 citations=citation_report(run.result))
    text = buffer.getvalue()
    assert "Citations, sentence by sentence" in text
    assert "Berlin lies on the Spree [2]." in text and "2 → passage 2: supports" in text
    assert "1 → passage 1: supports" in text  # the hostile sentence: the judge supports it (default profile)
    assert "[bold red]loud[/]" in text  # rich markup shown literally
    assert "\x1b[31mred" not in text and "\\x1b[31mred" in text  # the item's ANSI escape written out


def test_trace_view_shows_the_element_table(monkeypatch):
    """`--trace` renders coverage element matches as a table, like rag's claims."""
    events = [TraceEvent(node="check_reference_element", detail={
        "index": 0, "category": "fact", "element": "Trees stop producing chlorophyll.",
        "quote": "trees stop making chlorophyll", "quote_found": True, "matched": True,
    })]
    buffer = io.StringIO()
    render_trace(Console(file=buffer, width=200), events, [], title="t")
    text = buffer.getvalue()
    assert "Reference elements and matches" in text
    assert "Trees stop producing chlorophyll." in text and "✓ found" in text
