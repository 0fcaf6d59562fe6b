"""The pytest plugin end to end: a test file of `assert_judged` cases run by pytest (pytester,
in process) against the demo judge on 127.0.0.1, then again from the cache, then against a
judge that is not there."""

from __future__ import annotations

import socket
import textwrap

import pytest

# Imported here, before any inner run: pytester drops the modules an in-process run imported, and
# a module imported again (openai's error classes) would no longer match the classes caught by
# modules kept from an earlier run.
import judgegraph.batch.cache  # noqa: F401
import judgegraph.graph.api  # noqa: F401
import judgegraph.llm.judge_probe  # noqa: F401
import judgegraph.llm.local  # noqa: F401
import judgegraph.llm.models  # noqa: F401
import judgegraph.testing.plugin  # noqa: F401
import langchain_openai  # noqa: F401
import openai  # noqa: F401
from tests.support import demo_judge
from tests.support.fault_server import FaultServer

pytest_plugins = ("pytester",)

PLUGIN = ("-p", "no:judgegraph", "-p", "judgegraph.testing.plugin", "-p", "no:cacheprovider",
          "-W", "ignore::pytest.PytestAssertRewriteWarning")
"""The plugin by module, whether or not an installed entry point would also load it (already
imported by this module, so pytest says it cannot rewrite its asserts: it has none)."""

CASES = textwrap.dedent('''
    from judgegraph.testing import assert_judged

    CONTEXT = [
        "Craigslist is a classified advertisements website founded in 1995 by Craig Newmark.",
        "24 Hours on Craigslist is a 2005 documentary about a single day of Craigslist posts.",
    ]

    def test_founder():
        assert_judged({"question": "Who founded Craigslist?", "context": CONTEXT,
                       "answer": "Craigslist was founded in 1995 by Craig Newmark."},
                      faithfulness=0.8, answer_relevance=0.7)

    def test_documentary():
        assert_judged({"question": "What is 24 Hours on Craigslist?", "context": CONTEXT,
                       "answer": "24 Hours on Craigslist is a documentary about a single day of Craigslist posts."},
                      faithfulness=0.8, answer_relevance=0.7)

    def test_release_year():
        assert_judged({"question": "When did the documentary come out?", "context": CONTEXT,
                       "answer": "The documentary came out in 2007."},
                      faithfulness=0.8, answer_relevance=0.7)
''')


@pytest.fixture
def demo():
    with FaultServer(reply=demo_judge.reply) as server:
        yield server


def judge_flags(server: FaultServer) -> tuple[str, ...]:
    return ("--judgegraph-base-url", server.base_url, "--judgegraph-model", "demo")


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_two_pass_one_fails_with_its_claim_and_the_session_ends_with_a_table(pytester, demo):
    pytester.makepyfile(test_cases=CASES)
    result = pytester.runpytest(*PLUGIN, *judge_flags(demo))
    result.assert_outcomes(passed=2, failed=1)
    output = result.stdout.str()
    failure = output.split("test_release_year", 1)[1]
    assert "faithfulness: 0.00 < threshold 0.8: FAILED" in failure
    assert "'The documentary came out in 2007.': contradicted (the claim says 2007, the context says 2005)" in failure
    assert "answer_relevance: 1.00 >= threshold 0.7: passed" in failure
    result.stdout.re_match_lines([
        r"=+ judgegraph =+",
        r"item +metric +score +threshold +result +calls +tokens",
        r"test_cases\.py::test_founder +faithfulness +1\.00 +0\.8 +pass +[1-9]\d* +[\d,]+",
        r" +answer_relevance +1\.00 +0\.7 +pass",
        r"test_cases\.py::test_release_year +faithfulness +0\.00 +0\.8 +FAIL ",
        r"3 item\(s\) judged by openai-compatible:demo@http://127\.0\.0\.1:\d+/v1: 1 of 6 metric\(s\) below "
        r"threshold; [1-9]\d* call\(s\)",
    ], consecutive=False)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert (pytester.path / ".judgegraph_cache" / "steps.sqlite").is_file()
    assert (pytester.path / ".judgegraph_cache" / ".gitignore").read_text().endswith("*\n")


def test_a_second_run_makes_no_judge_call(pytester, demo):
    pytester.makepyfile(test_cases=CASES)
    first = pytester.runpytest(*PLUGIN, *judge_flags(demo))
    first.assert_outcomes(passed=2, failed=1)
    requests = demo.requests
    assert requests > 0

    second = pytester.runpytest(*PLUGIN, *judge_flags(demo))
    second.assert_outcomes(passed=2, failed=1)
    assert demo.requests == requests  # every step answered from .judgegraph_cache/
    assert "contradicted (the claim says 2007, the context says 2005)" in second.stdout.str()
    second.stdout.re_match_lines([r"3 item\(s\) judged by .*: 1 of 6 metric\(s\) below threshold; 0 call\(s\), "
                                  r"0 tokens in, 0 out; [1-9]\d* step\(s\) from the cache "])


def test_a_judge_that_is_not_there_ends_the_session_naming_its_url(pytester):
    pytester.makepyfile(test_cases=CASES)
    url = f"http://127.0.0.1:{closed_port()}/v1"
    result = pytester.runpytest(*PLUGIN, "--judgegraph-base-url", url, "--judgegraph-model", "demo")
    assert result.ret == 2
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) == 0 and outcomes.get("failed", 0) == 0
    assert f"judgegraph: cannot use the judge at {url}: connection refused" in result.stdout.str()
    assert "test_documentary" not in result.stdout.str()  # the session stopped at the first judged test


def test_the_judge_and_cache_from_the_ini_file(pytester, demo):
    pytester.makeini(f"""
        [pytest]
        judgegraph_base_url = {demo.base_url}
        judgegraph_model = demo
        judgegraph_cache_dir = build/judge-cache
    """)
    pytester.makepyfile(test_cases=CASES)
    result = pytester.runpytest(*PLUGIN, "-k", "founder")
    result.assert_outcomes(passed=1, deselected=2)
    assert (pytester.path / "build" / "judge-cache" / "steps.sqlite").is_file()
    assert not (pytester.path / ".judgegraph_cache").exists()


def test_the_judge_from_the_environment_as_the_cli_reads_it(pytester, demo, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", demo.base_url)
    monkeypatch.setenv("JUDGEGRAPH_MODEL", "demo")
    pytester.makepyfile(test_cases=CASES)
    result = pytester.runpytest(*PLUGIN, "-k", "founder", "--judgegraph-no-cache")
    result.assert_outcomes(passed=1, deselected=2)
    result.stdout.re_match_lines([rf"1 item\(s\) judged by openai-compatible:demo@{demo.base_url}: .*; no cache"])
    assert not (pytester.path / ".judgegraph_cache").exists()


def test_a_session_that_judges_nothing_gets_no_table_and_no_cache_folder(pytester):
    pytester.makepyfile(test_plain="def test_plain():\n    assert 1 + 1 == 2\n")
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(passed=1)
    assert " judgegraph " not in result.stdout.str()  # no table
    assert not (pytester.path / ".judgegraph_cache").exists()


def test_importing_the_plugin_loads_no_judging_stack():
    """The plugin is imported by every pytest session of a project that installs judgegraph."""
    import json
    import os
    import subprocess
    import sys

    script = ("import json, sys\nimport judgegraph.testing.plugin, judgegraph.testing\n"
              "print(json.dumps(sorted(m for m in ('langgraph', 'langchain_core', 'openai', 'pydantic', 'numpy')"
              " if m in sys.modules)))")
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=dict(os.environ),
                           timeout=120, check=True)
    assert json.loads(child.stdout) == []


class StartedLocalServer:
    """The embedded judge's server as `llm.local` sees one: the demo judge, reached on the port
    this start got (each start its own `FaultServer`, so its own port)."""

    model_alias = "local-judge"
    n_ctx = 8192

    def __init__(self, server: FaultServer) -> None:
        self.base_url = server.base_url

    def identity(self) -> str:
        return "llama.cpp model judge.gguf (1000 bytes, modified 1), n_ctx 8192, alias local-judge"


def test_a_second_run_with_the_embedded_judge_on_a_new_port_makes_no_judge_call(pytester, monkeypatch):
    """Issue 54: the embedded judge's server gets a new port on every start; its replies are
    cached under its model file and settings, so the second session asks nothing of it."""
    import judgegraph.llm.local as local

    monkeypatch.setattr(local, "find_spec", lambda name: object())  # the runtime "installed"
    pytester.makepyfile(test_cases=CASES)
    with FaultServer(reply=demo_judge.reply) as first_start:
        monkeypatch.setattr(local, "local_server", lambda path=None: StartedLocalServer(first_start))
        first = pytester.runpytest(*PLUGIN, "--judgegraph-model", "local")
        first.assert_outcomes(passed=2, failed=1)
        assert first_start.requests > 0
        first_url = first_start.base_url
    with FaultServer(reply=demo_judge.reply) as second_start:
        assert second_start.base_url != first_url
        monkeypatch.setattr(local, "local_server", lambda path=None: StartedLocalServer(second_start))
        second = pytester.runpytest(*PLUGIN, "--judgegraph-model", "local")
        second.assert_outcomes(passed=2, failed=1)
        assert second_start.requests == 0  # every step answered from .judgegraph_cache/
    second.stdout.re_match_lines([r"3 item\(s\) judged by local:.*: 1 of 6 metric\(s\) below threshold; 0 call\(s\)"])


def test_a_damaged_cache_row_is_asked_again_replaced_and_named_once(pytester, demo):
    """Issue 54: a cached reply that cannot be read back is a miss, not a failed test on every
    later run ("model call failed: JSONDecodeError")."""
    import sqlite3

    pytester.makepyfile(test_cases=CASES)
    pytester.runpytest(*PLUGIN, *judge_flags(demo)).assert_outcomes(passed=2, failed=1)
    asked = demo.requests
    database = pytester.path / ".judgegraph_cache" / "steps.sqlite"
    with sqlite3.connect(database) as connection:
        damaged = connection.execute("UPDATE replies SET generations = '[{\"content\": tru'").rowcount
    assert damaged > 0

    second = pytester.runpytest(*PLUGIN, *judge_flags(demo))
    second.assert_outcomes(passed=2, failed=1)  # the same outcomes, judged again
    assert demo.requests > asked
    output = second.stdout.str()
    assert "JSONDecodeError" not in output.replace("(JSONDecodeError)", "")
    assert output.count("CacheDamageWarning: the step cache") == 1  # once, though every row was damaged
    asked = demo.requests
    pytester.runpytest(*PLUGIN, *judge_flags(demo)).assert_outcomes(passed=2, failed=1)
    assert demo.requests == asked  # the rows were replaced: the third run is served from the cache


def test_a_second_judge_that_is_not_there_ends_the_session_naming_its_url(pytester, demo):
    pytester.makepyfile(test_cases=CASES)
    url = f"http://127.0.0.1:{closed_port()}/v1"
    result = pytester.runpytest(*PLUGIN, *judge_flags(demo), "--judgegraph-escalate-to", "demo",
                                "--judgegraph-escalate-base-url", url)
    assert result.ret == 2
    assert f"judgegraph: cannot use the second judge at {url}: connection refused" in result.stdout.str()


def test_the_second_judge_decides_what_the_first_cannot_grade(pytester, demo):
    pytester.makepyfile(test_cases=CASES)
    with FaultServer(reply=demo_judge.reply) as second:
        result = pytester.runpytest(*PLUGIN, *judge_flags(demo), "--judgegraph-escalate-to", "demo",
                                    "--judgegraph-escalate-base-url", second.base_url, "--judgegraph-no-cache")
        result.assert_outcomes(passed=2, failed=1)
        assert second.requests > 0  # the demo judge sends no log-probabilities: every decision escalates
