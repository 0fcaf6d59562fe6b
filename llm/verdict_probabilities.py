"""Graded verdicts: the probability of each label, read from the reply's token log-probabilities.

Why: a small judge's verdicts are almost binary (supported / not), so its scores rank items
badly (AUROC) and one coin-flip verdict moves a score from 1.0 to 0.0. The model's own
probability for each label, at the token where the label starts, is a graded confidence that
costs no extra call. llama.cpp's server reports the top alternatives from the raw logits
(before the JSON grammar masks them), so tokens outside the label set appear there too: only
tokens that start exactly one label count, and the label probabilities are renormalised over
them.

When the server returned no log-probabilities (another provider, a scripted fake), the label
the model wrote gets probability 1: the graded path degrades to the plain verdict, never to a
made-up number.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

_VALUE_START = r'"{field}"\s*:\s*("?)$'


def _label_token_position(tokens: list[str], field: str) -> int | None:
    """Index of the first token of `field`'s string value in the generated tokens: the token
    after `"field": "`, or the token that itself opens the string (`' "support'`)."""
    pattern = re.compile(_VALUE_START.format(field=re.escape(field)))
    text = ""
    for index, token in enumerate(tokens):
        found = pattern.search(text)
        if found and (found.group(1) or token.lstrip().startswith('"') and token.strip() != '"'):
            return index
        text += token
    return None


def _label_for(token: str, labels: Sequence[str]) -> str | None:
    """The one label `token` can be the start of (case-insensitive), else None."""
    piece = token.strip().lstrip('"').casefold()
    if not piece:
        return None
    matches = [label for label in labels if label.casefold().startswith(piece)]
    return matches[0] if len(matches) == 1 else None


def label_probabilities(
    token_logprobs: list[dict] | None, field: str, labels: Sequence[str], chosen: str
) -> tuple[dict[str, float], bool]:
    """P(label) for each label of the string field `field`, and whether it came from logprobs.

    `token_logprobs` is the OpenAI `logprobs.content` list (token, logprob, top_logprobs).
    """
    fallback = {label: 1.0 if label == chosen else 0.0 for label in labels}
    if not token_logprobs:
        return fallback, False
    if not all(isinstance(entry, dict) for entry in token_logprobs):
        return fallback, False
    tokens = [entry.get("token", "") for entry in token_logprobs]
    if not all(isinstance(token, str) for token in tokens):
        return fallback, False
    position = _label_token_position(tokens, field)
    if position is None:
        return fallback, False
    entry = token_logprobs[position]
    alternatives = entry.get("top_logprobs")
    candidates = (list(alternatives) if isinstance(alternatives, list) else []) or [entry]
    mass: dict[str, float] = {label: 0.0 for label in labels}
    seen: set[str] = set()
    for candidate in candidates:
        # Replies are checked where they enter (`llm.reply_fields`); this guards direct callers.
        token = candidate.get("token", "") if isinstance(candidate, dict) else None
        logprob = candidate.get("logprob") if isinstance(candidate, dict) else None
        if (not isinstance(token, str) or token in seen or isinstance(logprob, bool)
                or not isinstance(logprob, (int, float)) or not math.isfinite(logprob)):
            continue
        seen.add(token)
        label = _label_for(token, labels)
        if label is not None:
            mass[label] += math.exp(min(0.0, logprob))
    total = sum(mass.values())
    if total <= 0:
        return fallback, False
    return {label: value / total for label, value in mass.items()}, True

