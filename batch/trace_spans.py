"""A Phoenix span export judged one item per trace: the spans of a trace joined, then read.

Why: a RAG trace is several spans. The root (or LLM) span holds the question and the answer,
the retriever spans the passages. Judged one span at a time, the root span got "no context" and
each retriever span "missing generated answer"; what a user exporting a trace means is one
item: that question, that answer, against what was retrieved. So the batch joins the span rows
of each trace (`schemas.export_shapes.span_trace_id`) into one `{"trace_id", "spans"}` item,
which `schemas.export_shapes` reads as a "Phoenix trace". A trace of one span is left as its
row (read as a "Phoenix span", as before).

Spans of one trace may be anywhere in the file (exports are ordered by time, traces overlap),
so from the first span row on the input is held until it ends; then every entry comes in input
order, a trace in its first span's place, with the trace id as its id and that span's line. Joined only when nothing asks to read the rows as written: a `--map`, or a
rubric other than rag, leaves every span its own item. The joined item is bounded like a line
(`--max-line-bytes`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from ..schemas.export_shapes import span_trace_id
from .reader import PREFIX, Entry


def _size(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass"))


def join_traces(entries: Iterable[Entry], max_item_bytes: int) -> Iterator[Entry]:
    """Every entry in input order, the span rows of a trace of two spans or more as one entry
    in its first span's place (module doc). Entries stream until the first span row; from
    there on they are held, since a later line may still belong to a trace."""
    held: list[Entry | str] = []
    traces: dict[str, list[Entry]] = {}
    for entry in entries:
        trace = span_trace_id(entry.item) if entry.item is not None and entry.conversation is None else None
        if trace is None:
            if held:
                held.append(entry)
            else:
                yield entry
            continue
        if trace not in traces:
            held.append(trace)
        traces.setdefault(trace, []).append(entry)
    for place in held:
        yield place if isinstance(place, Entry) else _joined(place, traces[place], max_item_bytes)


def _joined(trace: str, spans: list[Entry], max_item_bytes: int) -> Entry:
    if len(spans) == 1:
        return spans[0]
    item = {"trace_id": trace, "spans": [span.item for span in spans]}
    size = _size(item)
    if size > max_item_bytes:
        lines = ", ".join(str(span.line) for span in spans[:5]) + (", ..." if len(spans) > 5 else "")
        return Entry(spans[0].line, trace, error=(
            f"{PREFIX}: trace {trace[:80]!r} (the spans on lines {lines}) is {size} bytes joined, "
            f"over the limit of {max_item_bytes} (--max-line-bytes)."))
    return Entry(spans[0].line, trace, item=item)
