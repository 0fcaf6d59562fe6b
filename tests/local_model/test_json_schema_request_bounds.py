"""`serve-local`'s request rewrite is bounded and total (`local_model.json_schema_requests`): a
body it cannot or will not parse (nested past the recursion limit, over the size or value
bound, invalid JSON) reaches the server untouched, through raw ASGI, never as a 500."""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judgegraph.local_model.json_schema_requests import (
    MAX_BODY_BYTES,
    MAX_DEPTH,
    MAX_JSON_VALUES,
    AcceptingJsonSchema,
    rewritten_body,
)
from tests.local_model.test_json_schema_requests import SCHEMA, RecordingApp, call, openai_request

FORMAT = {"type": "json_schema", "json_schema": {"name": "V", "schema": SCHEMA}}


def through_the_layer(body: bytes, chunk: int = 65_536) -> tuple[list[dict], bytes]:
    inner = RecordingApp()
    chunks = [body[i:i + chunk] for i in range(0, len(body), chunk)] or [b""]
    sent = call(AcceptingJsonSchema(inner), "/v1/chat/completions", chunks)
    [received] = inner.bodies
    return sent, received


def nested(depth: int) -> bytes:
    """A chat request whose `messages` nest `depth` lists deep, with a json_schema format."""
    head = json.dumps(openai_request(response_format=FORMAT))[:-1]
    return (head + ', "extra": ' + "[" * depth + "]" * depth + "}").encode()


def test_a_body_nested_past_the_recursion_limit_passes_through_untouched():
    body = nested(sys.getrecursionlimit() * 20)
    sent, received = through_the_layer(body)
    assert sent[0]["status"] == 200 and received == body


def test_a_body_nested_past_the_depth_bound_is_not_rewritten_but_one_within_it_is():
    assert rewritten_body(nested(MAX_DEPTH + 5)) is None
    shallow = json.loads(rewritten_body(nested(3)))
    assert shallow["response_format"] == {"type": "json_object", "schema": SCHEMA}


def test_a_body_of_many_tiny_values_is_never_parsed(monkeypatch):
    import judgegraph.local_model.json_schema_requests as module

    def no_parse(*args, **kwargs):
        raise AssertionError("parsed a body over the value bound")

    body = json.dumps(openai_request(response_format=FORMAT, extra=[[]] * (MAX_JSON_VALUES + 1))).encode()
    assert len(body) < MAX_BODY_BYTES
    monkeypatch.setattr(module.json, "loads", no_parse)
    sent, received = through_the_layer(body)
    assert sent[0]["status"] == 200 and received == body


def test_a_body_over_the_size_bound_is_never_parsed_and_arrives_whole(monkeypatch):
    import judgegraph.local_model.json_schema_requests as module

    monkeypatch.setattr(module, "MAX_BODY_BYTES", 1000)
    monkeypatch.setattr(module.json, "loads", lambda *a, **k: pytest.fail("parsed a body over the size bound"))
    body = json.dumps(openai_request(response_format=FORMAT, pad="x" * 5000)).encode()
    sent, received = through_the_layer(body, chunk=700)
    assert sent[0]["status"] == 200 and received == body


@given(st.binary(max_size=300) | st.text(max_size=200).map(str.encode)
       | st.recursive(st.none() | st.booleans() | st.floats() | st.text(max_size=5),
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                      max_leaves=20).map(lambda value: json.dumps({"response_format": FORMAT, "v": value}).encode()))
def test_any_body_is_either_rewritten_or_passed_through_byte_for_byte(body):
    sent, received = through_the_layer(body)
    assert sent[0]["status"] == 200
    rewritten = rewritten_body(body)
    assert received == (body if rewritten is None else rewritten)
    if rewritten is not None:
        assert json.loads(received)["response_format"]["type"] == "json_object"
