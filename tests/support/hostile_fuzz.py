"""Replies of a hostile judge, by name, for the fuzz suite (tests/hostile/test_hostile_fuzz.py): what a
server can send that parses as JSON but must not be read as a verdict or a score (issue #29),
and valid replies delivered badly (trickled, compressed, inflated).

`LAX_KINDS` always make a reply invalid under the strict schemas, whatever the step: a judge
that sends only these can never produce a score. `DELIVERIES` are `FaultServer` modes.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import Counter
from typing import Any

from tests.support.fault_server import RawReply, default_reply


def _lax(value: Any, pick: int) -> Any:
    """`value` with every number and bool written in a type a lax parser would coerce."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return [float(value), str(value), value != 0][pick % 3]
    if isinstance(value, float):
        return str(value)
    if isinstance(value, dict):
        return {key: _lax(item, pick) for key, item in value.items()}
    if isinstance(value, list):
        return [_lax(item, pick) for item in value]
    return value


def _typed(value: Any) -> bool:
    """Whether `value` holds a number or a bool somewhere (so `_lax` changes it)."""
    if isinstance(value, (bool, int, float)):
        return True
    if isinstance(value, dict):
        return any(_typed(item) for item in value.values())
    if isinstance(value, list):
        return any(_typed(item) for item in value)
    return False


def _duplicated(valid: dict) -> str:
    """The valid reply with its first key written again, last, with another value."""
    text = json.dumps(valid)
    key = next(iter(valid))
    other = "not-in-context" if valid[key] != "not-in-context" else "supported"
    return text[:-1] + f", {json.dumps(key)}: {json.dumps(other)}}}"


def hostile_reply(kind: str, step: str, schema: dict, body: dict, pick: int) -> Any:
    valid = default_reply(step, schema, body)
    if kind == "lax_types":
        if isinstance(valid, dict) and _typed(valid):
            return _lax(valid, pick)
        return _duplicated(valid) if isinstance(valid, dict) and valid else "not json"
    if kind == "duplicate_key":
        return _duplicated(valid) if isinstance(valid, dict) and valid else "not json"
    if kind == "refusal":
        return RawReply(content=None, choice={"message": {"role": "assistant", "content": None,
                                                          "refusal": "I can't help with that." * (1 + pick % 3)}})
    if kind == "tool_call":
        call = {"id": "call_1", "type": "function", "function": {"name": "judge", "arguments": json.dumps(valid)}}
        return RawReply(content=None, finish_reason="tool_calls",
                        choice={"message": {"role": "assistant", "content": None, "tool_calls": [call]}})
    if kind == "huge_invalid":
        return "not json, " * (20_000 + pick % 1000)
    if kind == "valid":
        return valid
    raise ValueError(f"unknown hostile reply kind {kind!r}")


LAX_KINDS: tuple[str, ...] = ("lax_types", "duplicate_key", "refusal", "tool_call")
"""Replies that must never be read as a verdict or a score."""

HOSTILE_KINDS: tuple[str, ...] = (*LAX_KINDS, "huge_invalid", "valid")

DELIVERIES: tuple[str, ...] = ("trickle", "trickle_headers", "gzip", "gzip_bomb", "oversized")


class HostileReplies:
    """A `FaultServer` reply function answering with `kinds`, deterministically per prompt
    (as `tests.support.untrusted_fuzz.FuzzReplies`); records the largest request it got."""

    def __init__(self, kinds: list[str] | tuple[str, ...], salt: int = 0) -> None:
        self.kinds = list(kinds) or ["valid"]
        self.salt = salt
        self.asked: Counter[str] = Counter()
        self.sent: Counter[str] = Counter()
        self.largest_request = 0
        self._lock = threading.Lock()

    def __call__(self, step: str, schema: dict, body: dict) -> Any:
        prompt = json.dumps(body.get("messages", []), sort_keys=True)
        with self._lock:
            self.asked[prompt] += 1
            seen = self.asked[prompt]
            self.largest_request = max(self.largest_request, len(prompt))
        digest = hashlib.sha256(f"{self.salt}:{seen}:{prompt}".encode("utf-8", "replace")).digest()
        pick = int.from_bytes(digest[:4], "big")
        kind = self.kinds[pick % len(self.kinds)]
        with self._lock:
            self.sent[kind] += 1
        return hostile_reply(kind, step, schema, body, pick)
