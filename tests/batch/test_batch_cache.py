"""`--cache PATH`: the SQLite step cache behind LangChain's BaseCache."""

from __future__ import annotations

import json
import threading

import pytest
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration

from judgegraph.commands import cli
from judgegraph import prompts
from judgegraph.batch.cache import SqliteStepCache, normalise_llm_string
from judgegraph.llm.models import openai_compatible
from tests.support.scripted_server import ScriptedEndpoint
from tests.batch.test_batch_runner import rag_item, rag_judge, records, write_lines

STEPS = 3
"""Model calls for one rag item with a one-sentence answer: the claim check, context and answer
relevance (claims are cut in code and similarity comes from embeddings: no calls, no cache)."""


@pytest.fixture
def scripted():
    """A fresh scripted rag judge served on 127.0.0.1 (`run` passes its flags)."""
    with ScriptedEndpoint(rag_judge()) as endpoint:
        yield endpoint


ITEMS = [rag_item(f"q{i}", answer=f"Paris {i}.", context=f"Paris ({i}) is the capital of France.") for i in range(3)]
"""Each item's every prompt differs (answer and context both differ)."""


def run(items, out, cache, endpoint: ScriptedEndpoint, *extra: str) -> int:
    return cli.main(["evaluate", str(items), "--out", str(out), "--cache", str(cache), *endpoint.flags, *extra])


def test_identical_steps_of_different_items_share_the_cache(tmp_path, scripted):
    """Every step of an item opens with its question, answer and context (prompts.item_data), so
    the steps two items share are those of the same question, answer and context: here items
    that differ only in their evaluation goal (read by code, never shown to the judge) and in
    the reference context relevance reads."""
    same_data = [rag_item("q0", evaluation_goal="fact-checking"), rag_item("q1", evaluation_goal="creative writing"),
                 rag_item("q2", reference="The capital is Paris.")]
    items = write_lines(tmp_path / "items.jsonl", same_data)
    assert run(items, tmp_path / "out.jsonl", tmp_path / "steps.sqlite", scripted, "--concurrency", "1") == 0
    steps = [schema for schema, _, _ in scripted.judge.calls]
    assert steps.count("ContextRelevanceJudgment") == 2  # the third item's shows another reference
    assert steps.count("ClaimCheck") == 1 and steps.count("AnswerRelevanceJudgment") == 1
    usage = [r["usage"] for r in records(tmp_path / "out.jsonl")]
    assert sorted(u["cache_hits"] for u in usage) == [0, 2, 3]


def test_a_second_run_is_served_from_the_cache_with_zero_usage(tmp_path, scripted, capsys):
    items = write_lines(tmp_path / "items.jsonl", ITEMS)
    cache = tmp_path / "steps.sqlite"
    assert run(items, tmp_path / "first.jsonl", cache, scripted) == 0
    calls = len(scripted.judge.calls)
    assert calls == 3 * STEPS
    first = {r["id"]: r for r in records(tmp_path / "first.jsonl")}
    assert all(r["usage"]["cache_hits"] == 0 and r["usage"]["calls"] == STEPS for r in first.values())
    capsys.readouterr()

    assert run(items, tmp_path / "second.jsonl", cache, scripted) == 0
    assert len(scripted.judge.calls) == calls  # no model call at all
    second = {r["id"]: r for r in records(tmp_path / "second.jsonl")}
    for key, record in second.items():
        assert record["result"] == first[key]["result"]
        usage = record["usage"]
        assert usage["cache_hits"] == STEPS and usage["calls"] == 0
        assert usage["input_tokens"] == usage["output_tokens"] == 0  # no stale token counts
    assert "cache hits / lookups" in capsys.readouterr().err


def test_changing_one_prompt_re_asks_only_that_step(tmp_path, scripted, monkeypatch):
    items = write_lines(tmp_path / "items.jsonl", ITEMS)
    cache = tmp_path / "steps.sqlite"
    assert run(items, tmp_path / "first.jsonl", cache, scripted) == 0
    before = len(scripted.judge.calls)

    original = prompts._load

    def edited(name: str) -> str:
        text = original(name)
        return text.replace("{% block user %}", "{% block user %}Be strict.\n") if name == "judge_context_relevance.j2" else text

    monkeypatch.setattr(prompts, "_load", edited)
    prompts.environment.cache_clear()
    try:
        assert run(items, tmp_path / "second.jsonl", cache, scripted) == 0
    finally:
        monkeypatch.undo()
        prompts.environment.cache_clear()
    new_calls = scripted.judge.calls[before:]
    assert [schema for schema, _, _ in new_calls] == ["ContextRelevanceJudgment"] * 3
    assert all("Be strict." in prompt for _, prompt, _ in new_calls)
    usage = [r["usage"] for r in records(tmp_path / "second.jsonl")]
    assert all(u["calls"] == 1 and u["cache_hits"] == STEPS - 1 for u in usage)


def test_a_damaged_row_is_a_miss_replaced_and_named_in_one_line(tmp_path, scripted, capsys):
    """Issue 54: a reply that cannot be read back is asked again and its row replaced; the
    CLI names it in one stderr line, never "model call failed: JSONDecodeError"."""
    import sqlite3

    items = write_lines(tmp_path / "items.jsonl", ITEMS)
    cache = tmp_path / "steps.sqlite"
    assert run(items, tmp_path / "first.jsonl", cache, scripted) == 0
    with sqlite3.connect(cache) as connection:
        assert connection.execute("UPDATE replies SET generations = 'not json'").rowcount == 3 * STEPS
    capsys.readouterr()

    assert run(items, tmp_path / "second.jsonl", cache, scripted) == 0
    assert len(scripted.judge.calls) == 2 * 3 * STEPS  # every damaged step asked again
    first = {r["id"]: r["result"] for r in records(tmp_path / "first.jsonl")}
    assert {r["id"]: r["result"] for r in records(tmp_path / "second.jsonl")} == first
    damaged = [line for line in capsys.readouterr().err.splitlines() if "damaged" in line]
    assert damaged == [f"judgegraph: warning: the step cache {cache} held a damaged reply (JSONDecodeError); it was "
                       "treated as a miss: the judge is asked again and the row replaced"]

    assert run(items, tmp_path / "third.jsonl", cache, scripted) == 0
    assert len(scripted.judge.calls) == 2 * 3 * STEPS  # replaced: the third run is all hits


def test_the_embedded_judges_address_is_not_part_of_its_key(tmp_path):
    """Issue 54: the embedded judge's server takes a new port on every start; its replies are
    keyed by its model file and settings, while another judge's address stays in its key."""
    def llm_string(url: str) -> str:
        return openai_compatible(url, "local-judge").model._get_llm_string(stop=None)

    path = tmp_path / "c.sqlite"
    embedded = SqliteStepCache(path, "local:judge.gguf", identity="llama.cpp model judge.gguf, n_ctx 8192")
    embedded.update("prompt", llm_string("http://127.0.0.1:41001/v1"), generation("cached"))
    assert embedded.lookup("prompt", llm_string("http://127.0.0.1:52002/v1"))[0].message.content == "cached"
    other_file = SqliteStepCache(path, "local:judge.gguf", identity="llama.cpp model judge.gguf, n_ctx 4096")
    assert other_file.lookup("prompt", llm_string("http://127.0.0.1:52002/v1")) is None
    remote = SqliteStepCache(path, "openai-compatible:m")
    remote.update("prompt", llm_string("http://a:1/v1"), generation("from a"))
    assert remote.lookup("prompt", llm_string("http://b:1/v1")) is None


def generation(text: str) -> list[ChatGeneration]:
    message = AIMessage(content=text, response_metadata={"finish_reason": "stop"},
                        usage_metadata={"input_tokens": 100, "output_tokens": 20, "total_tokens": 120})
    return [ChatGeneration(message=message)]


def test_the_model_identity_is_part_of_the_key(tmp_path):
    path = tmp_path / "c.sqlite"
    one = SqliteStepCache(path, "openai-compatible:default@http://a/v1")
    two = SqliteStepCache(path, "openai-compatible:default@http://b/v1")
    one.update("prompt", "llm", generation("from a"))
    assert one.lookup("prompt", "llm")[0].message.content == "from a"
    assert two.lookup("prompt", "llm") is None
    assert one.hits == 1 and two.lookups == 1 and two.hits == 0


def test_transport_settings_are_not_part_of_the_key():
    def llm_string(**kwargs) -> str:
        model = openai_compatible("http://127.0.0.1:9/v1", kwargs.pop("name", "m"), **kwargs).model
        return normalise_llm_string(model._get_llm_string(stop=None, response_format={"type": "json_object"}))

    assert llm_string(timeout=5, max_retries=0) == llm_string(timeout=60, max_retries=3, api_key="k2")
    assert llm_string(name="m") != llm_string(name="other")
    assert llm_string(max_tokens=10) != llm_string(max_tokens=20)


def test_cached_replies_have_zero_usage_and_are_marked(tmp_path):
    cache = SqliteStepCache(tmp_path / "c.sqlite", "m")
    cache.update("p", "l", generation('{"a": 1}'))
    hit = cache.lookup("p", "l")[0].message
    assert hit.content == '{"a": 1}' and hit.response_metadata["finish_reason"] == "stop"
    assert hit.usage_metadata["input_tokens"] == 0 and hit.response_metadata["judgegraph_cache"] == "hit"


def test_the_cache_is_safe_across_threads(tmp_path):
    cache = SqliteStepCache(tmp_path / "c.sqlite", "m")
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for n in range(40):
                cache.update(f"p{worker}-{n}", "l", generation(json.dumps({"n": n})))
                assert cache.lookup(f"p{worker}-{n}", "l")[0].message.content == json.dumps({"n": n})
        except BaseException as error:  # noqa: BLE001 - collected and re-raised in the test thread
            errors.append(error)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and cache.entries() == 8 * 40 and cache.hits == 8 * 40


def test_an_unusable_cache_path_is_a_usage_error(tmp_path, scripted, capsys):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a")])
    assert run(items, tmp_path / "o.jsonl", tmp_path / "no-such-dir" / "c.sqlite", scripted) == 2
    assert capsys.readouterr().err.startswith("judgegraph: cannot open cache")
