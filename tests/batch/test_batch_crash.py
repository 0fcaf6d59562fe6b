"""kill -9 a real `python cli.py evaluate ... --out` child mid-batch, resume, and check that
the union of the runs holds every id exactly once, every line a complete JSON record.

The child reaches a scripted judge behind the fake OpenAI-compatible server in this process
(`--base-url`); each reply comes after a little sleep, so the batch is still running when the
kill lands. `--no-embeddings`: the child has no conftest, so it would load the real embedding
model; the judge scores similarity instead.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from judgegraph.schemas.rag import RagResult
from tests.support.fakes import ScriptedJudge, answer_relevance, claims, context_relevance, judge, similarity, verdict
from tests.support.scripted_server import ScriptedEndpoint

ROOT = Path(__file__).resolve().parents[2]
ITEMS = 60


def slow_judge() -> ScriptedJudge:
    """The child's judge: valid rag replies, each after 20 ms."""
    def slow(reply):
        def answer(_prompt: str):
            time.sleep(0.02)
            return reply
        return answer

    return judge(
        extract_claims=slow(claims("Paris is the capital of France.")),
        check_claim=slow(verdict("supported", 1)),
        judge_context_relevance=slow(context_relevance("partly", [1])),
        judge_answer_relevance=slow(answer_relevance()),
        judge_semantic_similarity=slow(similarity(4)),
    )


def start(items: Path, out: Path, endpoint: ScriptedEndpoint) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(ROOT / "cli.py"), "evaluate", str(items), "--out", str(out), "--concurrency", "4",
         "--no-embeddings", *endpoint.flags],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )


def wait_for_lines(out: Path, count: int, child: subprocess.Popen, limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if out.exists() and out.read_bytes().count(b"\n") >= count:
            return
        assert child.poll() is None, "the child finished before it could be killed"
        time.sleep(0.01)
    raise AssertionError(f"fewer than {count} lines after {limit}s")


def test_sigkill_mid_batch_then_resume_loses_and_duplicates_nothing(tmp_path):
    items = tmp_path / "items.jsonl"
    lines = [json.dumps({"id": f"q{i}", "question": "What is the capital of France?",
                         "context": "Paris is the capital of France.", "answer": f"Paris ({i}).",
                         "reference": "Paris"}) for i in range(ITEMS)]
    lines[10] = "{not json"  # a bad line survives the crash too (as id line-11)
    items.write_text("\n".join(lines) + "\n")
    out = tmp_path / "results.jsonl"
    expected = {f"q{i}" for i in range(ITEMS) if i != 10} | {"line-11"}

    kills = 0
    with ScriptedEndpoint(slow_judge()) as endpoint:
        for threshold in (8, 25):
            child = start(items, out, endpoint)
            wait_for_lines(out, threshold, child)
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=30)
            kills += 1
            assert child.returncode == -signal.SIGKILL
        with out.open("ab") as handle:  # what a kill in the middle of a write would leave
            handle.write(b'{"id": "q59", "result": {"faithful')

        final = start(items, out, endpoint)
        _, err = final.communicate(timeout=120)
    assert final.returncode == 0, err.decode()[-2000:]
    assert b"cut a partial last line" in err

    data = out.read_bytes()
    assert data.endswith(b"\n")
    records = [json.loads(line) for line in data.splitlines()]
    ids = [r["id"] for r in records]
    assert len(ids) == len(set(ids)), "an id was written twice"
    assert set(ids) == expected
    for record in records:
        RagResult.model_validate(record["result"])
    assert kills == 2
