"""P(true) of a bare JSON boolean the judge wrote, read from the reply's token log-probabilities.

Why apart from `llm.verdict_probabilities`: that module reads string labels ("supported",
"yes") and defines what faithfulness's and context relevance's recorded signals mean; a
boolean value (`"answered": true`) starts at a bare token and a field can repeat (one per
question part), so it is found differently. As there, only candidate tokens that start "true"
or "false" count, renormalised over the two; without log-probabilities the written value
counts 1/0, never a made-up number.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

_FIELD_BEFORE_VALUE = r'"{field}"\s*:\s*$'


def value_positions(tokens: Sequence[str], field: str) -> list[int]:
    """The index of the first token of each bare value of `field`, in reply order."""
    pattern = re.compile(_FIELD_BEFORE_VALUE.format(field=re.escape(field)))
    positions, text = [], ""
    for index, token in enumerate(tokens):
        if token.strip() and pattern.search(text):
            positions.append(index)
        text += token
    return positions


def _p_true(entry: dict) -> float | None:
    """P(true) over the candidates at one token, renormalised over true / false; None when no
    candidate starts either."""
    alternatives = entry.get("top_logprobs")
    candidates = (list(alternatives) if isinstance(alternatives, list) else []) or [entry]
    mass = {"true": 0.0, "false": 0.0}
    seen: set[str] = set()
    for candidate in candidates:
        token = candidate.get("token") if isinstance(candidate, dict) else None
        logprob = candidate.get("logprob") if isinstance(candidate, dict) else None
        if (not isinstance(token, str) or token in seen or isinstance(logprob, bool)
                or not isinstance(logprob, (int, float)) or not math.isfinite(logprob)):
            continue
        seen.add(token)
        piece = token.strip().casefold()
        label = next((value for value in mass if piece and value.startswith(piece)), None)
        if label is not None:
            mass[label] += math.exp(min(0.0, logprob))
    total = mass["true"] + mass["false"]
    return mass["true"] / total if total > 0 else None


def boolean_probabilities(token_logprobs: list[dict] | None, field: str, written: Sequence[bool]) -> list[float]:
    """P(true) for each value of the boolean `field` the reply wrote (`written`, in order); a value
    whose token cannot be found or read counts as written (1/0)."""
    fallback = [1.0 if value else 0.0 for value in written]
    if not token_logprobs or not all(isinstance(entry, dict) for entry in token_logprobs):
        return fallback
    tokens = [entry.get("token") for entry in token_logprobs]
    if not all(isinstance(token, str) for token in tokens):
        return fallback
    positions = value_positions(tokens, field)
    if len(positions) != len(written):  # the reply's values and the parsed ones disagree: trust neither
        return fallback
    read = [_p_true(token_logprobs[position]) for position in positions]
    return [fallback[i] if p is None else p for i, p in enumerate(read)]
