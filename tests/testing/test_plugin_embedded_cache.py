"""End to end (issue 54): two pytest sessions judged by the real embedded judge over real HTTP;
the second makes no model call. Each session starts its own llama.cpp server, on a new port,
and the step cache keys the embedded judge's replies by its model file and settings, not by
that port (`llm.local`, `batch.cache`), so the cache file does not grow either.

Slow (the server starts twice; a few minutes on 2 cores). Skipped where the local runtime is
not installed, except in CI (JUDGEGRAPH_REQUIRE_E2E=1), as `tests/test_e2e_local.py`. Run it
by hand under the machine's lock: `flock /tmp/judgegraph-local-model.lock python -m pytest -m
e2e tests/testing/test_plugin_embedded_cache.py`.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.test_e2e_local import E2E_TIMEOUT_S, llama_server_pids, local_runtime  # noqa: F401 - autouse

pytestmark = pytest.mark.e2e

CASE = textwrap.dedent('''
    from judgegraph.testing import assert_judged

    def test_founder():
        assert_judged({"question": "Who founded Craigslist?",
                       "context": "Craigslist is a classified advertisements website founded in 1995 by Craig Newmark.",
                       "answer": "Craigslist was founded by Craig Newmark."},
                      answer_relevance=0.1)
''')
"""One item, one metric whose threshold any honest judgement meets: the test is about calls."""

TOTALS = re.compile(r"1 item\(s\) judged by (local:\S+): .*; ([\d,]+) call\(s\), .*; ([\d,]+) step\(s\) from the cache")


def run_session(folder: Path) -> tuple[str, int, int]:
    """(the judge, calls, cache hits) of one pytest session judged by the default judge."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "JUDGEGRAPH_MODEL", "OPENAI_API_KEY")}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_case.py"],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=E2E_TIMEOUT_S)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    found = TOTALS.search(proc.stdout)
    assert found, proc.stdout[-3000:]
    return found.group(1), int(found.group(2).replace(",", "")), int(found.group(3).replace(",", ""))


def cached_rows(folder: Path) -> int:
    with sqlite3.connect(folder / ".judgegraph_cache" / "steps.sqlite") as connection:
        return connection.execute("SELECT COUNT(*) FROM replies").fetchone()[0]


def test_a_second_session_with_the_embedded_judge_makes_no_model_call(tmp_path):
    (tmp_path / "test_case.py").write_text(CASE, encoding="utf-8")
    before = llama_server_pids()
    judge, calls, hits = run_session(tmp_path)
    assert judge.startswith("local:") and calls > 0 and hits == 0
    rows = cached_rows(tmp_path)
    assert rows > 0

    judge_again, calls_again, hits_again = run_session(tmp_path)
    assert judge_again == judge
    assert calls_again == 0 and hits_again == calls  # every step read back, none asked
    assert cached_rows(tmp_path) == rows  # and the cache did not grow by a copy of each reply
    assert llama_server_pids() - before == set()
