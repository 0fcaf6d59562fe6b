"""The embedded server takes OpenAI's `json_schema` response format (`local_model.json_schema_requests`):
the request is rewritten into the `json_object` + `schema` shape llama-cpp-python's server
constrains by, every other body passes through byte for byte. Pure ASGI with a recording app,
then the server's own request model behind FastAPI."""

from __future__ import annotations

import asyncio
import json

import pytest

from judgegraph.local_model.json_schema_requests import (
    MAX_BODY_BYTES,
    AcceptingJsonSchema,
    install,
    rewritten_body,
)

SCHEMA = {"type": "object", "properties": {"verdict": {"enum": ["yes", "no"]}}, "required": ["verdict"]}


def openai_request(**extra) -> dict:
    return {"model": "m", "messages": [{"role": "user", "content": "Is it? {\"type\": \"json_schema\"}"}], **extra}


def test_a_json_schema_format_becomes_json_object_with_the_same_schema():
    body = json.dumps(openai_request(response_format={"type": "json_schema", "json_schema": {
        "name": "Verdict", "schema": SCHEMA, "strict": False}}, temperature=0)).encode()
    request = json.loads(rewritten_body(body))
    assert request["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert request["messages"] == openai_request()["messages"] and request["temperature"] == 0


def test_a_json_schema_format_without_a_schema_still_asks_for_json():
    body = json.dumps(openai_request(response_format={"type": "json_schema", "json_schema": {"name": "x"}})).encode()
    assert json.loads(rewritten_body(body))["response_format"] == {"type": "json_object"}


@pytest.mark.parametrize("body", [
    json.dumps(openai_request()).encode(),
    json.dumps(openai_request(response_format={"type": "json_object", "schema": SCHEMA})).encode(),
    json.dumps(openai_request(response_format={"type": "text"})).encode(),
    json.dumps(openai_request(response_format="json_schema")).encode(),
    b"not json {", b"\xff\xfe", b"[1, 2]", b"",
])
def test_anything_else_is_not_rewritten(body):
    assert rewritten_body(body) is None


class RecordingApp:
    """An ASGI app that reads the whole body and records it with the scope's headers."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        self.headers: list[dict[bytes, bytes]] = []

    async def __call__(self, scope, receive, send):
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            body += message.get("body", b"")
            more = message.get("more_body", False)
        self.bodies.append(body)
        self.headers.append(dict(scope.get("headers", [])))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})


def call(app, path: str, chunks: list[bytes], method: str = "POST") -> list[dict]:
    messages = [{"type": "http.request", "body": chunk, "more_body": n < len(chunks) - 1} for n, chunk in enumerate(chunks)]
    sent: list[dict] = []

    async def receive():
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    total = sum(len(chunk) for chunk in chunks)
    scope = {"type": "http", "method": method, "path": path,
             "headers": [(b"content-type", b"application/json"), (b"content-length", str(total).encode())]}
    asyncio.run(app(scope, receive, send))
    return sent


def test_the_asgi_layer_rewrites_a_chat_request_sent_in_chunks_and_fixes_its_length():
    inner = RecordingApp()
    body = json.dumps(openai_request(response_format={"type": "json_schema", "json_schema": {"name": "V", "schema": SCHEMA}})).encode()
    sent = call(AcceptingJsonSchema(inner), "/v1/chat/completions", [body[:10], body[10:50], body[50:]])
    assert sent[0]["status"] == 200
    [received] = inner.bodies
    assert json.loads(received)["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert inner.headers[0][b"content-length"] == str(len(received)).encode()


@pytest.mark.parametrize("path, method", [("/v1/embeddings", "POST"), ("/v1/models", "GET"), ("/v1/chat/completions", "GET")])
def test_other_routes_and_methods_pass_through_byte_for_byte(path, method):
    inner = RecordingApp()
    body = json.dumps(openai_request(response_format={"type": "json_schema", "json_schema": {"schema": SCHEMA}})).encode()
    call(AcceptingJsonSchema(inner), path, [body], method=method)
    assert inner.bodies == [body]


def test_a_body_too_large_to_rewrite_reaches_the_server_whole_and_untouched(monkeypatch):
    import judgegraph.local_model.json_schema_requests as module

    monkeypatch.setattr(module, "MAX_BODY_BYTES", 16)
    inner = RecordingApp()
    body = json.dumps(openai_request(response_format={"type": "json_schema", "json_schema": {"schema": SCHEMA}})).encode()
    call(AcceptingJsonSchema(inner), "/v1/chat/completions", [body[:20], body[20:40], body[40:]])
    assert inner.bodies == [body] and MAX_BODY_BYTES > 1024


def test_the_servers_own_request_model_accepts_json_schema_only_behind_the_layer():
    pytest.importorskip("llama_cpp.server.types", reason="the local extra is not installed")
    fastapi = pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient
    from llama_cpp.server.types import CreateChatCompletionRequest

    def app_with(layer: bool):
        app = fastapi.FastAPI()

        def create(body) -> dict:
            return {"response_format": body.response_format}

        create.__annotations__["body"] = CreateChatCompletionRequest  # a class, not this module's string annotation
        app.post("/v1/chat/completions")(create)
        if layer:
            app.add_middleware(AcceptingJsonSchema)
        return app

    request = openai_request(response_format={"type": "json_schema", "json_schema": {"name": "V", "schema": SCHEMA}})
    bare = TestClient(app_with(False)).post("/v1/chat/completions", json=request)
    assert bare.status_code == 422  # llama_cpp.server turns this validation error into its HTTP 500
    assert "json_object" in bare.text  # refused for its response format, the only thing wrong with it
    served = TestClient(app_with(True)).post("/v1/chat/completions", json=request)
    assert served.status_code == 200
    assert served.json()["response_format"] == {"type": "json_object", "schema": SCHEMA}


def test_install_wraps_create_app_once():
    server_app = pytest.importorskip("llama_cpp.server.app", reason="the local extra is not installed")
    original = server_app.create_app
    try:
        install()
        wrapped = server_app.create_app
        install()
        assert server_app.create_app is wrapped is not original
        assert getattr(wrapped, "judgegraph_json_schema", False)
    finally:
        server_app.create_app = original
