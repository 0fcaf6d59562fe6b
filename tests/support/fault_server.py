"""A real OpenAI-compatible HTTP server on 127.0.0.1 that injects faults, for tests and soaks.

It answers `POST /v1/chat/completions` with a valid chat completion whose content is JSON for
the judgegraph step that asked: the step is read from the request's `response_format` (the
schema's `json_schema.name`, or the `schema.title` of the llama.cpp dialect). The `rag` steps
get sensible replies; any other schema (rubrics added later) gets a minimal instance built from
the JSON schema itself, so the server stays useful as rubrics are added. A `reply` function
replaces those replies: its dict is sent as JSON, its string verbatim, a `RawReply` as the
completion fields it sets (any JSON value, so a fuzzer can send a `finish_reason` of 7 or a
log-probability of 800), and if it raises, the request gets a 500
(`tests.support.scripted_server` serves a scripted judge this way).

Faults, per request: a scripted sequence first (`script=["429", "500", "ok"]`), then random
ones at `fault_rate` drawn from `fault_modes` (seeded, so runs repeat):
- `slow`      sleeps `slow_seconds` (longer than the client's timeout) before answering
- `429`       Too Many Requests with `Retry-After` (seconds) and `retry-after-ms`
- `500`/`503` server errors (also with the retry headers, so client back-off stays short)
- `drop`      closes the connection without any response
- `malformed` 200 with a body that is not JSON
- `prose`     a valid completion whose content is prose, not JSON (exercises repair)

Hostile-server shapes (the reply is the step's usual one, delivered badly):
- `trickle`          the body one byte every `trickle_seconds` (each read is quick, the whole is not)
- `trickle_headers`  the status line and headers one byte every `trickle_seconds`, then the body
- `gzip`             the body gzip-compressed (`Content-Encoding: gzip`), as a proxy may send it
- `gzip_bomb`        a valid completion padded with `bomb_bytes` of JSON whitespace, gzip-compressed
                     (about 1,000 times smaller on the wire)
- `oversized`        the same padding sent plain

Usage:
    with FaultServer(fault_rate=0.2, seed=1) as server:
        model = ChatOpenAI(base_url=server.base_url, ...)
        ...
        server.counts  # Counter of modes served
"""

from __future__ import annotations

import contextlib
import gzip
import json
import random
import re
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.loopback_server import LoopbackServer

FAULT_MODES = ("slow", "429", "500", "drop", "malformed")
"""The transport-level faults (the soak's "server fails N% of calls")."""

BAD_DELIVERIES = ("trickle", "trickle_headers", "gzip", "gzip_bomb", "oversized")
"""A valid reply delivered in a hostile way (module doc)."""


# --- replies ---------------------------------------------------------------------------------

def _resolve(schema: dict, root: dict) -> dict:
    while isinstance(schema, dict) and "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = root.get("$defs", {}).get(name, {})
    return schema


def instance_for(schema: dict, root: dict | None = None) -> Any:
    """A minimal value that validates against a (pydantic-generated) JSON schema."""
    root = root or schema
    schema = _resolve(schema, root)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for combinator in ("anyOf", "oneOf", "allOf"):
        if combinator in schema:
            options = [_resolve(s, root) for s in schema[combinator]]
            non_null = [s for s in options if s.get("type") != "null"] or options
            return instance_for(non_null[0], root)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        return {name: instance_for(properties[name], root) for name in schema.get("required", properties)}
    if kind == "array":
        count = schema.get("minItems", 1 if "items" in schema else 0)
        return [instance_for(schema.get("items", {}), root) for _ in range(count)]
    if kind == "string":
        return "x" * max(1, schema.get("minLength", 1))
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        value = max(low, 0) if schema.get("maximum", 10**9) >= 0 else low
        return int(value) if kind == "integer" else float(value)
    if kind == "boolean":
        return False
    return None


RAG_REPLIES: dict[str, dict] = {
    "ExtractedClaims": {"declines_to_answer": False, "claims": ["The answer states a checkable fact."]},
    "ClaimCheck": {"verdict": "not-in-context", "line": 0},
    "ContextRelevanceJudgment": {"answer_in_context": "partly", "useful_lines": [1]},
    "AnswerRelevanceJudgment": {
        "reasoning": "judged", "question_parts": [{"part": "the question", "answered": True}],
        "directness": "direct", "is_refusal": False, "refusal_reason_given": False,
        "refusal_category": "none", "refusal_cites_missing_info_or_policy": False,
        "context_contains_answer": True,
    },
    "AnswerRelevanceLabels": {
        "question_parts": [{"part": "the question", "answered": True}], "directness": "direct", "refusal": None,
    },
    "SimilarityJudgment": {"reasoning": "judged", "similarity": 3},
}


def step_and_schema(body: dict) -> tuple[str, dict]:
    """The step's schema name and JSON schema from a request body (either dialect)."""
    response_format = body.get("response_format") or {}
    if "json_schema" in response_format:
        spec = response_format["json_schema"]
        return str(spec.get("name", "")), spec.get("schema", {})
    if "schema" in response_format:
        return str(response_format["schema"].get("title", "")), response_format["schema"]
    return "", {}


def default_reply(step: str, schema: dict, body: dict) -> Any:
    """Content for a step: rag replies, a per-claim batch reply, or a minimal instance."""
    if step == "BatchClaimChecks":
        prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        section = prompt.rsplit("<claims>", 1)[-1].split("</claims>", 1)[0]
        count = max(1, len(re.findall(r"^\s*\d+\. ", section, flags=re.MULTILINE)))
        one = RAG_REPLIES["ClaimCheck"]
        return {"checks": [dict(one, claim=n) for n in range(1, count + 1)]}
    if step in RAG_REPLIES:
        return RAG_REPLIES[step]
    return instance_for(schema) if schema else {"reply": "ok"}


@dataclass(frozen=True)
class RawReply:
    """A reply that also sets the completion's other fields, verbatim (untrusted-server tests).

    `content` may be any JSON value (a string is the usual case); `choice` and `body` entries
    are merged over the choice and the whole completion last, so any field can be broken."""

    content: Any = ""
    finish_reason: Any = "stop"
    logprobs: Any = None
    usage: Any = None
    choice: dict = field(default_factory=dict)
    body: dict = field(default_factory=dict)


# --- the server ------------------------------------------------------------------------------

class FaultServer(LoopbackServer):
    """The server and its fault plan; thread-safe counters of what it served."""

    thread_name = "fault-server"

    def __init__(
        self,
        *,
        script: Sequence[str] = (),
        fault_rate: float = 0.0,
        fault_modes: Sequence[str] = FAULT_MODES,
        seed: int = 0,
        slow_seconds: float = 2.0,
        retry_after_ms: int = 20,
        reply: Callable[[str, dict, dict], Any] | None = None,
        port: int = 0,
        trickle_seconds: float = 0.5,
        bomb_bytes: int = 50 * 1024 * 1024,
    ) -> None:
        super().__init__(port)
        self.trickle_seconds = trickle_seconds
        self.bomb_bytes = bomb_bytes
        self.script = list(script)
        self.fault_rate = fault_rate
        self.fault_modes = tuple(fault_modes)
        self.slow_seconds = slow_seconds
        self.retry_after_ms = retry_after_ms
        self.reply = reply or default_reply
        self.counts: Counter[str] = Counter()
        self.steps: Counter[str] = Counter()
        self.arrivals: list[tuple[float, str]] = []
        """(monotonic time, mode) of every request, in arrival order."""
        self.host_headers: Counter[str] = Counter()
        """How each request spelled its Host header: "Host" from httpx, "host" from aiohttp (the
        batch's transport, `llm.loop_local_http`), so a test can tell which one sent it."""
        self.authorizations: Counter[str] = Counter()
        """The Authorization header of every request ("Bearer <key>"; "" when none), so a test
        can tell which API key reached the server."""
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self._request = threading.local()

    # plan
    def next_mode(self) -> str:
        with self._lock:
            if self.script:
                mode = self.script.pop(0)
            elif self.fault_rate and self._random.random() < self.fault_rate:
                mode = self._random.choice(self.fault_modes)
            else:
                mode = "ok"
            self.counts[mode] += 1
            self.arrivals.append((time.monotonic(), mode))
            return mode

    @property
    def requests(self) -> int:
        return sum(self.counts.values())

    @property
    def client_address(self) -> tuple[str, int] | None:
        """Inside a reply function: the (host, port) the request being answered came from."""
        return getattr(self._request, "client", None)

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(_Handler):
            owner = server

        return Handler


class _Handler(BaseHTTPRequestHandler):
    owner: FaultServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    """Headers and body go out in two writes: with Nagle on, the body waits for the client's
    delayed ACK of the headers (40 ms on Linux), which doubled a 50 ms latency in benchmarks."""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Silent: the tests read counters, not logs."""

    def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            self.close_connection = True

    def _send_badly(self, mode: str, payload: bytes) -> None:
        """The hostile delivery modes (module doc)."""
        pause = self.owner.trickle_seconds
        headers = {"Content-Type": "application/json"}
        if mode in ("gzip_bomb", "oversized"):
            payload = payload[:-1] + b" " * self.owner.bomb_bytes + payload[-1:]
        if mode in ("gzip", "gzip_bomb"):
            payload = gzip.compress(payload, compresslevel=9)
            headers["Content-Encoding"] = "gzip"
        head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(payload)}\r\n".encode()
        head += b"".join(f"{name}: {value}\r\n".encode() for name, value in headers.items()) + b"\r\n"
        try:
            if mode == "trickle_headers":
                for byte in range(len(head)):
                    self.wfile.write(head[byte:byte + 1])
                    self.wfile.flush()
                    time.sleep(pause)
            else:
                self.wfile.write(head)
            if mode == "trickle":
                for byte in range(len(payload)):
                    self.wfile.write(payload[byte:byte + 1])
                    self.wfile.flush()
                    time.sleep(pause)
            else:
                self.wfile.write(payload)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            pass
        self.close_connection = True

    def _retry_headers(self) -> dict[str, str]:
        ms = self.owner.retry_after_ms
        return {"Retry-After": str(max(1, round(ms / 1000))), "retry-after-ms": str(ms)}

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        """`/v1/models` lists one model; `/v1/models/<name>` answers for any name, as a server
        that serves whatever model it is asked for (llama.cpp) would."""
        name = self.path.split("/models/", 1)[1] if "/models/" in self.path else ""
        if name:
            self._send(200, json.dumps({"id": name, "object": "model", "owned_by": "fault-server"}).encode())
            return
        self._send(200, json.dumps({"object": "list", "data": [{"id": "fault-model", "object": "model"}]}).encode())

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send(400, b'{"error": {"message": "request body is not JSON"}}')
            return
        owner = self.owner
        owner._request.client = self.client_address
        mode = owner.next_mode()
        step, schema = step_and_schema(body)
        with owner._lock:
            owner.steps[step or "?"] += 1
            owner.host_headers.update(name for name in self.headers.keys() if name.lower() == "host")
            owner.authorizations[self.headers.get("Authorization") or ""] += 1
        if mode == "drop":
            self.close_connection = True
            with contextlib.suppress(OSError):  # the client may be gone already: no reply either way
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        if mode == "429":
            self._send(429, b'{"error": {"message": "rate limited", "type": "rate_limit"}}', self._retry_headers())
            return
        if mode in ("500", "503"):
            self._send(int(mode), b'{"error": {"message": "server error"}}', self._retry_headers())
            return
        if mode == "malformed":
            self._send(200, b'{"id": "x", "choices": [{"message": {"content": "trunc')
            return
        if mode == "slow":
            time.sleep(owner.slow_seconds)
        if mode == "prose":
            content = "Sure! Here is my careful evaluation of the answer."
        else:
            try:
                reply = owner.reply(step, schema, body)
            except Exception as error:  # noqa: BLE001 - a scripted fault: the client sees a 500
                message = json.dumps({"error": {"message": f"{type(error).__name__}: {error}"}})
                self._send(500, message.encode(), self._retry_headers())
                return
            if isinstance(reply, RawReply):
                self._send(200, json.dumps(raw_completion(body, reply)).encode())
                return
            content = reply if isinstance(reply, str) else json.dumps(reply)
        payload = json.dumps(completion(body, content)).encode()
        if mode in BAD_DELIVERIES:
            self._send_badly(mode, payload)
            return
        self._send(200, payload)


def completion(body: dict, content: str) -> dict:
    prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
    prompt_tokens, completion_tokens = max(1, prompt_chars // 4), max(1, len(content) // 4)
    return {
        "id": "chatcmpl-fault", "object": "chat.completion", "created": int(time.time()),
        "model": body.get("model", "fault-model"),
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


def raw_completion(body: dict, reply: RawReply) -> dict:
    """A completion whose fields come from `reply` as they are (NaN and all: `json.dumps`
    writes the literal, as a careless server would)."""
    data = completion(body, reply.content if isinstance(reply.content, str) else "")
    choice = data["choices"][0]
    choice["message"]["content"] = reply.content
    choice["finish_reason"] = reply.finish_reason
    if reply.logprobs is not None:
        choice["logprobs"] = reply.logprobs
    if reply.usage is not None:
        data["usage"] = reply.usage
    choice.update(reply.choice)
    data.update(reply.body)
    return data


def serve_until_interrupted(reply: Callable[[str, dict, dict], Any], port: int, name: str) -> int:
    """The fake judges' command line: `reply` served on 127.0.0.1:`port` until Ctrl-C, the URL
    on stdout for the shell that started it."""
    with FaultServer(reply=reply, port=port) as server:
        print(f"{name} (fake replies, no model) at {server.base_url}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            return 0
