"""The served graph's API key goes only where the server's own environment sends it.

A run's `context` may name its judge's `base_url`; the server's `OPENAI_API_KEY` is meant for
the server's own endpoint (`OPENAI_BASE_URL`, else OpenAI's), so a run naming another server
must not carry it there (any client of the server could otherwise collect the key). Run in
process against two fake OpenAI-compatible servers that count each request's Authorization (`FaultServer.authorizations`)."""

from __future__ import annotations

import asyncio

import pytest

from tests.support import demo_judge
from tests.support.fault_server import FaultServer

SECRET = "sk-server-secret-key"
ITEM = {"question": "Who founded Craigslist?", "answer": "Craig Newmark founded Craigslist.",
        "context": ["Craigslist was founded in 1995 by Craig Newmark."]}


@pytest.fixture
def servers(monkeypatch):
    with FaultServer(reply=demo_judge.reply) as own, FaultServer(reply=demo_judge.reply) as other:
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        monkeypatch.setenv("OPENAI_BASE_URL", own.base_url)
        monkeypatch.delenv("JUDGEGRAPH_MODEL", raising=False)
        yield own, other


def served(context: dict) -> dict:
    from judgegraph.graph.server import graph

    return asyncio.run(graph.ainvoke({"item": ITEM}, context=context))


def test_the_servers_key_goes_to_its_own_endpoint(servers):
    own, _ = servers
    output = served({"model": "demo"})
    assert output["result"]["evaluation_status"] == "success"
    assert own.authorizations and set(own.authorizations) == {f"Bearer {SECRET}"}


def test_a_run_naming_another_server_does_not_get_the_servers_key(servers):
    own, other = servers
    output = served({"model": "demo", "base_url": other.base_url})
    assert output["result"]["evaluation_status"] == "success" and other.base_url in output["model"]
    assert other.authorizations and not own.authorizations
    assert not any(SECRET in (header or "") for header in other.authorizations)


def test_a_run_naming_the_servers_own_endpoint_keeps_the_key(servers):
    own, _ = servers
    served({"model": "demo", "base_url": own.base_url + "/"})
    assert own.authorizations and set(own.authorizations) == {f"Bearer {SECRET}"}
