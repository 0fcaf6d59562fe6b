"""Claims a conversation's earlier turn states but this turn's retrieved context does not.

The rule (docs/conversations.md, docs/rubrics.md): faithfulness judges a turn's answer against
the context retrieved **for that turn** only. A claim that only an earlier turn supports
("As I said, it opened in 1889") is not counted as supported: an earlier assistant turn may
itself have been unfaithful, and the seed defines faithfulness against the retrieved context.
It is reported as such, so a reader can tell "repeated from the conversation" from "made up":
the faithfulness explanation names each unsupported claim that an earlier message holds.

Found in code, with no model call: an earlier message holds a claim when it contains at least
`EARLIER_TURN_SHARE` of the claim's new content words (those the question does not supply;
`code_checks.word_share`) and every number of the claim.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...schemas.claims import CheckedClaim
from ...schemas.conversation import ChatMessage
from ...text.numbers import numbers_in
from .code_checks import word_share

EARLIER_TURN_SHARE = 0.8
LISTED = 3


def earlier_message_holding(claim: str, question: str, history: Sequence[ChatMessage],
                            language: str | None = None) -> int | None:
    """The 1-based number of the latest earlier message that holds `claim`, else None."""
    numbers = numbers_in(claim, language)
    for index in range(len(history) - 1, -1, -1):
        text = history[index].content
        if not text.strip() or not numbers <= numbers_in(text, language):
            continue
        share, _ = word_share(claim, question, text, language)
        if share >= EARLIER_TURN_SHARE:
            return index + 1
    return None


def earlier_turn_note(verdicts: Sequence[CheckedClaim], question: str, history: Sequence[ChatMessage] | None,
                      language: str | None = None) -> str | None:
    """One sentence naming the unsupported claims an earlier message holds; None when none does."""
    if not history:
        return None
    found: list[str] = []
    for verdict in sorted(verdicts, key=lambda v: v.index):
        if verdict.supported:
            continue
        number = earlier_message_holding(verdict.claim, question, history, language)
        if number is not None:
            claim = verdict.claim if len(verdict.claim) <= 80 else verdict.claim[:79] + "…"
            found.append(f"'{claim}' ({history[number - 1].role} message {number})")
    if not found:
        return None
    more = f" and {len(found) - LISTED} more" if len(found) > LISTED else ""
    return ("Stated in an earlier turn but not in this turn's retrieved context, so not counted as "
            f"supported: {'; '.join(found[:LISTED])}{more}.")
