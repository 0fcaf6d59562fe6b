"""The drawings of the graph are drawn from the compiled graph: `graph/builder.py`'s docstring
outline and docs/architecture.md's Mermaid chart are regenerated here and must match, so a
node or an edge added to a rubric's declaration shows up in both (or this test says where)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from judgegraph.graph import builder
from judgegraph.graph.api import default_graph

ROOT = Path(__file__).resolve().parents[2]
OUTLINE_MARKER = "drawn from the compiled graph (`tests/graph/test_graph_drawing.py` checks it):"


def outline(compiled) -> str:
    """Each node's edges, one line per group of nodes with the same targets: `->` a plain edge,
    `~>` a routed one (`Send` / `Command`), nodes in the order the builder adds them."""
    drawn = compiled.get_graph()
    order = list(drawn.nodes)
    order.remove("finalize")
    order.append("finalize")  # the last node, drawn last
    targets: dict[tuple[str, bool], list[str]] = {}
    for edge in drawn.edges:
        targets.setdefault((edge.source, edge.conditional), []).append(edge.target)
    groups: dict[tuple[bool, tuple[str, ...]], list[str]] = {}
    for (source, routed), ends in sorted(targets.items(), key=lambda item: order.index(item[0][0])):
        groups.setdefault((routed, tuple(sorted(ends))), []).append(source)
    lines = []
    for (routed, ends), sources in groups.items():
        arrow = " ~> " if routed else " -> "
        lines += textwrap.wrap(", ".join(sources) + arrow + ", ".join(ends), width=92,
                               subsequent_indent="    ", break_on_hyphens=False, break_long_words=False)
    return "\n".join(lines)


def docstring_outline() -> str:
    doc = builder.__doc__ or ""
    assert OUTLINE_MARKER in doc, "graph/builder.py's docstring lost its drawn outline"
    block = doc.split(OUTLINE_MARKER, 1)[1].lstrip("\n").split("\n\n", 1)[0]
    return textwrap.dedent(block).strip("\n")


def docs_mermaid() -> str:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    found = re.search(r"```mermaid\n(.*?)```", text, re.S)
    assert found, "docs/architecture.md lost its Mermaid chart of the graph"
    return found.group(1)


def test_the_builders_docstring_shows_the_compiled_graph():
    assert docstring_outline() == outline(default_graph()), (
        "graph/builder.py's outline is stale; the compiled graph draws:\n" + outline(default_graph()))


def test_the_architecture_doc_charts_the_compiled_graph():
    assert docs_mermaid() == default_graph().get_graph().draw_mermaid(), (
        "docs/architecture.md's chart is stale; paste default_graph().get_graph().draw_mermaid()")
