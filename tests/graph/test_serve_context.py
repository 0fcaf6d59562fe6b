"""A served run's `context` is checked before anything is judged: a setting of the wrong type
or out of range fails the run with one line naming the setting, instead of an IndexError deep
in a step, a judge asked for an unknown dialect, or an unknown mode judged as another one."""

from __future__ import annotations

import asyncio

import pytest

from tests.support import demo_judge
from tests.support.fault_server import FaultServer

ITEM = {"question": "Who founded Craigslist?", "answer": "Craig Newmark founded Craigslist.",
        "context": ["Craigslist was founded in 1995 by Craig Newmark."]}


@pytest.fixture
def judge():
    with FaultServer(reply=demo_judge.reply) as server:
        yield server


def served(context: dict, config: dict | None = None) -> dict:
    from judgegraph.graph.server import graph

    return asyncio.run(graph.ainvoke({"item": ITEM}, context=context, config=config))


@pytest.mark.parametrize(("setting", "value"), [
    ("max_repairs", -1), ("max_repairs", "abc"), ("max_repairs", 10**9), ("max_repairs", True),
    ("max_concurrency", -3), ("max_concurrency", "x"), ("max_concurrency", 2.5),
    ("claim_check", "evil"), ("response_format", "evil"), ("model", {"a": 1}), ("base_url", ["x"]),
])
def test_a_bad_setting_fails_the_run_naming_it_and_asks_no_judge(judge, setting, value):
    context = {"model": "demo", "base_url": judge.base_url, setting: value}
    with pytest.raises(ValueError, match=f"'{setting}'"):
        served(context)
    assert judge.requests == 0


def test_a_bad_setting_in_configurable_is_refused_the_same_way(judge):
    with pytest.raises(ValueError, match="'claim_check'"):
        served({"model": "demo", "base_url": judge.base_url}, {"configurable": {"claim_check": "all"}})
    assert judge.requests == 0


def test_good_settings_judge(judge):
    output = served({"model": "demo", "base_url": judge.base_url, "max_repairs": 0, "max_concurrency": 1,
                     "claim_check": "batch", "response_format": "json_object"})
    assert output["result"]["evaluation_status"] == "success" and judge.steps["BatchClaimChecks"] == 1


def test_an_item_over_the_text_limit_fails_the_run_and_asks_no_judge(judge, monkeypatch):
    """Any client's item is bounded before anything runs: over `MAX_ITEM_TEXT_CHARS` the run fails
    naming the size, and no judge is asked (a 20 MB passage held the server for minutes)."""
    from judgegraph.graph import server

    monkeypatch.setattr(server, "MAX_ITEM_TEXT_CHARS", 500)
    big = dict(ITEM, context=["x" * 600])
    from judgegraph.graph.server import graph

    with pytest.raises(ValueError, match="677 characters of text, over the limit of 500: nothing was judged .the served graph"):
        asyncio.run(graph.ainvoke({"item": big}, context={"model": "demo", "base_url": judge.base_url}))
    assert judge.requests == 0
    served({"model": "demo", "base_url": judge.base_url})  # an item under the limit is judged
    assert judge.requests > 0
