"""Reading a chat reply's fields as untrusted input: content, finish_reason, usage, logprobs.

Why: an OpenAI-compatible server is someone else's code. The reply's JSON is parsed by the
SDK, and LangChain copies its fields onto the message without checking them, so a `\\ud800`
escape in the content, a `finish_reason` of 7, a `logprobs` that is a number, a log-probability
of 800 (which `math.exp` cannot take) or a negative token count all arrive as they were sent.
Unchecked, each of them would raise somewhere after the call, outside the step's error
handling, and wipe out the whole item. Here every field the judge reads is checked once, where the reply
enters (`llm.structured`), and sorted into:

- `problems`: the reply cannot be used (content that is not text, or not Unicode text; a
  finish_reason that is not a string, so truncation cannot be ruled out). The attempt fails
  with these reasons and goes through the step's repair loop like an invalid JSON reply.
- `notes`: side data that is ignored rather than trusted (malformed or out-of-range logprobs:
  the graded verdict falls back to the label the model wrote, `llm.verdict_probabilities`;
  token counts that are not non-negative integers: counted as 0). The reply itself is still
  judged, and the notes are kept with the attempt in the trace.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..schemas.untrusted_json import lone_surrogate_at

LOGPROB_TOLERANCE = 1e-3
"""Log-probabilities are <= 0; servers round, so values up to this are read as 0. Anything
larger is not a log-probability, and the reply's logprobs are ignored."""

MAX_TOKEN_COUNT = 10**9
"""A token count above this is not a count: no context window is that large."""


@dataclass
class ReplyFields:
    """A reply's fields after checking; `text` is always a str safe to log, store and resend."""

    text: str
    finish_reason: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    token_logprobs: list[dict] | None = None
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def printable(text: str) -> str:
    """`text` with lone surrogates replaced by U+FFFD, so it can be encoded, logged, stored in
    the trace and sent back to the model in a repair request."""
    if lone_surrogate_at(text) is None:
        return text
    return text.encode("utf-8", "replace").decode("utf-8")


def read_text(content: Any, fields: ReplyFields) -> str:
    """The reply's text; anything but Unicode text is a problem (and is shown sanitised)."""
    if not isinstance(content, str):
        fields.problems.append(f"the reply's content is {_kind(content)}, not text")
        return "" if content is None else printable(repr(content))[:2000]
    position = lone_surrogate_at(content)
    if position is not None:
        fields.problems.append(
            f"the reply holds a lone surrogate (U+{ord(content[position]):04X}) at character {position}: "
            "it is not Unicode text; reply with valid JSON text only")
        return printable(content)
    return content


def read_finish_reason(value: Any, fields: ReplyFields) -> str | None:
    if value is None or isinstance(value, str):
        return printable(value) if isinstance(value, str) else None
    fields.problems.append(f"the reply's finish_reason is {_kind(value)}, not a string, so it may be cut off")
    return None


def read_count(value: Any, name: str, fields: ReplyFields) -> int:
    """A token count: a non-negative integer, else 0 with a note (never a made-up cost)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TOKEN_COUNT:
        fields.notes.append(f"usage {name} ignored ({_kind(value)} {str(value)[:40]!s}): counted as 0")
        return 0
    return value


def _checked_entry(entry: Any, where: str) -> dict:
    if not isinstance(entry, dict):
        raise ValueError(f"{where} is {_kind(entry)}, not an object")
    token, logprob = entry.get("token"), entry.get("logprob")
    if not isinstance(token, str):
        raise ValueError(f"{where}.token is {_kind(token)}, not a string")
    if isinstance(logprob, bool) or not isinstance(logprob, (int, float)) or not math.isfinite(logprob):
        raise ValueError(f"{where}.logprob is {_kind(logprob)} {str(logprob)[:20]}, not a finite number")
    if logprob > LOGPROB_TOLERANCE:
        raise ValueError(f"{where}.logprob is {logprob:g}, above 0")
    return {"token": printable(token), "logprob": min(0.0, float(logprob))}


def read_logprobs(value: Any, fields: ReplyFields) -> list[dict] | None:
    """OpenAI's `logprobs` object -> its checked `content` list, or None (with a note) when
    any entry is malformed or out of range: half-trusted probabilities are not probabilities."""
    if value is None:
        return None
    try:
        if not isinstance(value, dict):
            raise ValueError(f"logprobs is {_kind(value)}, not an object")
        content = value.get("content")
        if content is None:
            return None
        if not isinstance(content, list):
            raise ValueError(f"logprobs.content is {_kind(content)}, not a list")
        checked = []
        for index, entry in enumerate(content):
            where = f"logprobs.content[{index}]"
            clean = _checked_entry(entry, where)
            alternatives = entry.get("top_logprobs") or []
            if not isinstance(alternatives, list):
                raise ValueError(f"{where}.top_logprobs is {_kind(alternatives)}, not a list")
            clean["top_logprobs"] = [_checked_entry(alt, f"{where}.top_logprobs[{n}]")
                                     for n, alt in enumerate(alternatives)]
            checked.append(clean)
        return checked
    except ValueError as error:
        fields.notes.append(f"logprobs ignored: {error}")
        return None


REFUSAL_KEEP = 500
"""Characters of a refusal's text kept in the attempt's errors (and the repair request)."""


def read_refusal(refusal: Any, tool_calls: list, fields: ReplyFields) -> None:
    """A reply that refuses (OpenAI's `message.refusal`) or calls a tool instead of writing
    JSON text: a problem that says so, with the refusal's text, rather than "Invalid JSON: EOF"
    about the empty content it comes with."""
    if refusal:
        text = printable(refusal if isinstance(refusal, str) else repr(refusal))
        text = text if len(text) <= REFUSAL_KEEP else text[:REFUSAL_KEEP] + " ..."
        fields.problems.append(f"the judge refused to answer: {text!r}")
    if tool_calls:
        names = [printable(str(call.get("name") if isinstance(call, dict) else call))[:60] for call in tool_calls[:3]]
        fields.problems.append(f"the judge called a tool ({', '.join(names)}) instead of replying with JSON text")


def read_reply(content: Any, finish_reason: Any, input_tokens: Any, output_tokens: Any,
               logprobs: Any) -> ReplyFields:
    """Every field the judge reads, checked (module doc)."""
    fields = ReplyFields(text="")
    fields.text = read_text(content, fields)
    fields.finish_reason = read_finish_reason(finish_reason, fields)
    fields.input_tokens = read_count(input_tokens, "input_tokens", fields)
    fields.output_tokens = read_count(output_tokens, "output_tokens", fields)
    fields.token_logprobs = read_logprobs(logprobs, fields)
    return fields
