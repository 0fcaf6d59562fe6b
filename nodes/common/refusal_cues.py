"""Does an answer *explicitly* say it cannot answer? Decided in code, from the answer's words.

Seed 000 gives a faithfulness of 1.0 to an answer that "explicitly states it cannot answer
from the context". A 1.0 must never come by accident, and a 1.5B judge was seen flagging a
plain, substantive answer as a refusal (copying a prompt example), so the model's
`declines_to_answer` only counts when the answer's own words also state an inability.
"""

from __future__ import annotations

import re

_SOURCES = r"(?:context|passages?|documents?|sources?|text|information (?:provided|given|available))"
_CUES = [
    r"\b(?:can ?not|can't|unable to|not able to|won't be able to|am unable to)\b[^.!?]{0,40}"
    r"\b(?:answer|determine|find|tell|say|provide|know|identify|confirm)",
    r"\b(?:i|we) (?:do not|don't|did not|didn't) know\b",
    r"\bno (?:information|mention|details?|data|answer)\b[^.!?]{0,60}\b" + _SOURCES,
    r"\b" + _SOURCES + r"\b[^.!?]{0,40}\b(?:does not|doesn't|do not|don't|did not|didn't)\b[^.!?]{0,20}"
    r"\b(?:mention|say|state|contain|include|provide|specify|cover|give)",
    r"\bnot (?:mentioned|provided|stated|specified|given|available|included|found|covered)\b[^.!?]{0,30}"
    r"\b(?:in|by) the " + _SOURCES,
    r"\binsufficient (?:context|information)\b",
    r"\b(?:not enough|lack of) (?:context|information)\b",
]
_PATTERN = re.compile("|".join(f"(?:{cue})" for cue in _CUES), re.IGNORECASE)


def states_inability(answer: str) -> bool:
    """True when the answer says in so many words that it cannot answer (from the context)."""
    return bool(_PATTERN.search(" ".join(answer.replace("\u2019", "'").split())))
