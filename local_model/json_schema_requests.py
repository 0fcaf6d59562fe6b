"""Let the embedded server take OpenAI's `json_schema` response format.

Why: llama-cpp-python's server (0.3.x) constrains a reply to a JSON schema only when asked with
`{"type": "json_object", "schema": {...}}`, and answers OpenAI's own shape,
`{"type": "json_schema", "json_schema": {"name": ..., "schema": {...}}}`, with HTTP 500. That
shape is what OpenAI's SDK, LangChain's `with_structured_output` and judgegraph itself send
first, so every client of `judgegraph serve-local` met a failed request before it could fall back
(judgegraph: one rejected call per process and step kind, counted by any proxy in between).

`install()` wraps the app llama_cpp.server builds (`create_app`) in an ASGI layer that rewrites a
chat or completion request's `json_schema` response format into the `json_object` + `schema`
shape the server already supports, before the server reads it. The reply is then constrained by
the same grammar a client falling back would have asked for, so results do not change. Any other
body passes through byte for byte; a body that is not JSON is left for the server to refuse.

The rewrite is bounded and total: it parses a body only when the body is at most
`MAX_BODY_BYTES` and can hold at most `MAX_JSON_VALUES` values (counted from its separators
before parsing, so a body of many tiny arrays, which parsing inflates tens of times in memory,
is never parsed), and it rewrites only a request nested at most `MAX_DEPTH` deep. A body it
cannot parse or will not rewrite (too large, too many values, too deep, invalid JSON, not
UTF-8) reaches the server untouched: the layer never answers in the server's place, and never
with a traceback.
It runs only inside judgegraph's own server child process (`local_model.server`), like
`chat_guard`.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

REWRITTEN_PATHS = ("/v1/chat/completions", "/v1/completions")
MAX_BODY_BYTES = 8 * 1024 * 1024
"""Bodies larger than this are passed through untouched, unparsed (the server applies its own
limits). The embedded judge's context window holds a few thousand tokens: a request it can
answer is far smaller."""
MAX_JSON_VALUES = 200_000
"""Bodies that may hold more JSON values than this are passed through unparsed. A judge request
of a few megabytes of prose holds tens of thousands; the bound keeps the parsed objects' memory
in tens of megabytes whatever the body's shape."""
MAX_DEPTH = 64
"""Requests nested deeper than this are passed through as they came (a chat request with a
schema is nested a dozen levels or so)."""


def _most_values(body: bytes) -> int:
    """An upper bound on the number of JSON values in `body`: every value but the first follows a
    `,`, a `:`, a `[` or a `{` (those inside strings are counted too, which only overstates)."""
    return sum(body.count(separator) for separator in (b",", b":", b"[", b"{")) + 1


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether `value` nests more than `limit` containers deep (iterative: no recursion)."""
    stack = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, (dict, list)):
            if depth > limit:
                return True
            stack += [(sub, depth + 1) for sub in (current.values() if isinstance(current, dict) else current)]
    return False


def rewritten_body(body: bytes) -> bytes | None:
    """The request body with a `json_schema` response format in the `json_object` + `schema`
    shape, or None when there is nothing to rewrite (not JSON, no such format, no schema) or the
    body is beyond the bounds the module docstring gives. Never raises."""
    if len(body) > MAX_BODY_BYTES or _most_values(body) > MAX_JSON_VALUES:
        return None
    try:
        request = json.loads(body)
    except (UnicodeDecodeError, ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(request, dict) or _deeper_than(request, MAX_DEPTH):
        return None
    response_format = request.get("response_format")
    if not isinstance(response_format, dict) or response_format.get("type") != "json_schema":
        return None
    declared = response_format.get("json_schema")
    schema = declared.get("schema") if isinstance(declared, dict) else None
    request["response_format"] = {"type": "json_object", **({"schema": schema} if isinstance(schema, dict) else {})}
    try:
        return json.dumps(request).encode("utf-8")
    except (ValueError, RecursionError, MemoryError):
        return None


class AcceptingJsonSchema:
    """An ASGI app in front of llama_cpp.server's that rewrites `json_schema` requests (see the
    module docstring); the shape Starlette's `add_middleware` takes."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        app = self.app
        if scope.get("type") != "http" or scope.get("method") != "POST" or scope.get("path") not in REWRITTEN_PATHS:
            await app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        message: Message = {"type": "http.request", "body": b"", "more_body": True}
        while message.get("more_body", False):
            message = await receive()
            if message["type"] != "http.request":  # the client went away: let the app see it
                await app(scope, _replay([message]), send)
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > MAX_BODY_BYTES:
                replay = [{"type": "http.request", "body": b"".join(chunks), "more_body": message.get("more_body", False)}]
                await app(scope, _replay(replay, receive), send)
                return
        body = b"".join(chunks)
        new_body = rewritten_body(body)
        if new_body is not None:
            body = new_body
            scope = {**scope, "headers": [(name, value) for name, value in scope.get("headers", [])
                                          if name.lower() != b"content-length"]
                     + [(b"content-length", str(len(body)).encode("ascii"))]}
        await app(scope, _replay([{"type": "http.request", "body": body, "more_body": False}], receive), send)


def _replay(messages: list[Message], then: Receive | None = None) -> Receive:
    """A `receive` that returns `messages` first, then defers to `then` (a disconnect, or the
    rest of a body too large to rewrite)."""
    pending = list(messages)

    async def receive() -> Message:
        if pending:
            return pending.pop(0)
        if then is None:
            return {"type": "http.disconnect"}
        return await then()

    return receive


def install() -> None:
    """Wrap `llama_cpp.server.app.create_app` so the app it returns accepts `json_schema`;
    idempotent. Must run before `llama_cpp.server.__main__` imports `create_app`."""
    import llama_cpp.server.app as server_app

    original = server_app.create_app
    if getattr(original, "judgegraph_json_schema", False):
        return

    def create_app(*args: Any, **kwargs: Any) -> Any:
        app = original(*args, **kwargs)
        app.add_middleware(AcceptingJsonSchema)  # type: ignore[attr-defined]  # a FastAPI app
        return app

    create_app.judgegraph_json_schema = True  # type: ignore[attr-defined]
    server_app.create_app = create_app

