"""The data block every judge step of one QA/RAG item begins with (`_item_data.j2`).

Why: llama.cpp reuses the KV cache of the longest prefix a request shares with the previous
one, and hosted APIs bill a cached prefix at a discount. So the steps of one item (the batch
claim check, context and answer relevance, model-extracted claims, the similarity fallback,
liverag's relevance) send the same system message (`_system_qa.j2` with the item's language
note) and a user message that starts with this block, byte for byte: the question and the
context as numbered lines. The per-claim check and the second reading keep the layout the
embedded judge's faithfulness was fitted with (docs/architecture.md, "One prefix per item"). The step's own data (the answer, for
the steps that read it: `_answer.j2`; the claim, the reference) and its instruction (TASK,
rules) come after it. The answer is not in the block because the steps that never read it
(context relevance, the second reading's own answer, the check of a one-claim answer) must
not see it: a small judge shown an answer leans towards agreeing with it.

When a step shows lines of its own (a claim check over a long context shows the lines closest
to its claim, `nodes.claims.evidence`), its block holds no context (`lines` is None): what
every step shares is then the question, and the step's lines follow it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import environment

TEMPLATE = "_item_data.j2"


@dataclass(frozen=True)
class ItemData:
    """What the block shows: the item's question and the context lines every step of the item
    sees (None: the step shows its own lines after the block); the answer, for the steps that
    show it after the block (`_answer.j2`)."""

    question: str
    answer: str
    lines: Sequence[str] | None
    context_note: str | None = None
    """What the judge is told when `lines` are only part of the context (`ContextView.note`)."""

    def variables(self) -> dict[str, object]:
        """The template variables of the block, for `render_messages(step, **variables)`."""
        return {"question": self.question, "answer": self.answer,
                "lines": None if self.lines is None else list(self.lines), "context_note": self.context_note}


def render_item_data(item: ItemData) -> str:
    """The block as it opens every step's user message (for tests and tools that check it)."""
    return environment().get_template(TEMPLATE).render(**item.variables()).strip()
