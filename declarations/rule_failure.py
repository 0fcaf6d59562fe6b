"""The reason recorded when one of code's own checks raises on an item's text.

Why a reason and not an exception: the code-side signals (number conflicts, grounding,
criticality) read user text that no rule may have foreseen. An exception there must not fail
the whole item, most of whose metrics never read that signal: the one metric that needs it
fails with this reason, and the others are kept.
"""

from __future__ import annotations

MAX_REASON_CHARS = 300


def rule_failure(error: Exception) -> str:
    """'code-side checks failed: <type>: <message>', bounded (the message may quote user text)."""
    return f"code-side checks failed: {type(error).__name__}: {error}"[:MAX_REASON_CHARS]
