"""`--engine ray` on a local Ray started here (`ray.init(num_cpus=2)`), with scripted judges.

The actors reach a scripted judge behind the fake OpenAI-compatible server in this process
(`--base-url`; `--no-embeddings`, since Ray's workers have no conftest and would load the real
embedding model). On the first claim check the server SIGKILLs the worker process that sent
it (once; the process is found from the request's client port): Ray Data restarts the actor
and re-runs the block, and the output must still hold every id exactly once.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path

import pytest

try:
    import ray
    import ray.data  # noqa: F401
except ImportError:
    if os.environ.get("JUDGEGRAPH_REQUIRE_RAY"):  # CI installs the extra: a missing Ray is a failure
        raise
    pytest.skip("the [ray] extra is not installed", allow_module_level=True)

from judgegraph.commands.cli import main  # noqa: E402
from judgegraph.schemas.rag import RagResult  # noqa: E402
from tests.support.fakes import (ScriptedJudge, answer_relevance, context_relevance, judge,  # noqa: E402
                                 similarity, verdict)
from tests.support.scripted_server import ScriptedEndpoint  # noqa: E402

NEVER_CALLED = ["--base-url", "http://127.0.0.1:9/v1", "--model", "never-called"]
"""For runs refused before any judge is set up."""


def _judge(check_claim) -> ScriptedJudge:
    return judge(
        check_claim=check_claim,
        judge_context_relevance=context_relevance("partly", [1]),
        judge_answer_relevance=answer_relevance(),
        judge_semantic_similarity=similarity(4),
    )


def ray_judge() -> ScriptedJudge:
    """Valid rag replies for every step."""
    return _judge(verdict("supported", 1))


def pid_of_client(port: int) -> int | None:
    """The process holding the TCP socket whose local port is `port` (Linux: /proc)."""
    sockets = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[9] != "0":
                sockets.add(f"socket:[{fields[9]}]")
    for fds in Path("/proc").glob("[0-9]*/fd"):
        try:
            if any(os.readlink(fd) in sockets for fd in fds.iterdir()):
                return int(fds.parent.name)
        except OSError:  # a process that ended, or one we may not look into
            continue
    return None


class WorkerKiller:
    """A claim-check reply that SIGKILLs the worker process sending the first claim check."""

    def __init__(self) -> None:
        self.endpoint: ScriptedEndpoint | None = None
        self.killed: list[int] = []
        self.lock = threading.Lock()

    def __call__(self, _prompt: str) -> dict:
        with self.lock:
            if not self.killed:
                assert self.endpoint is not None and self.endpoint.server.client_address is not None
                pid = pid_of_client(self.endpoint.server.client_address[1])
                assert pid is not None and pid != os.getpid(), "cannot tell which process asked"
                self.killed.append(pid)
                os.kill(pid, signal.SIGKILL)
        return verdict("supported", 1)


@pytest.fixture(scope="module")
def local_ray():
    # address="local": a Ray of the test's own, even where another cluster is running
    ray.init(address="local", num_cpus=2, include_dashboard=False, configure_logging=False,
             log_to_driver=False)
    yield
    ray.shutdown()


def _items(path: Path, count: int, answer: str = "Paris") -> set[str]:
    lines = [json.dumps({"id": f"q{i}", "question": "What is the capital of France?",
                         "context": "Paris is the capital of France.", "answer": f"{answer} ({i}).",
                         "reference": "Paris"}) for i in range(count)]
    lines[3] = "{not json"  # a bad line: written by the driver, never sent to Ray
    lines.append(lines[5])  # a duplicate id: skipped with a warning
    path.write_text("\n".join(lines) + "\n")
    return {f"q{i}" for i in range(count) if i != 3} | {"line-4"}


def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in out.read_text().splitlines()]


def _run(flags: list[str], items: Path, out: Path, *extra: str) -> int:
    return main(["evaluate", str(items), "--out", str(out), "--engine", "ray", "--concurrency", "3",
                 "--ray-actors", "2", "--no-embeddings", *flags, *extra])


def test_ray_engine_writes_every_id_once_with_the_local_records_and_resumes(local_ray, tmp_path, capsys):
    items = tmp_path / "items.jsonl"
    expected = _items(items, 16)
    out = tmp_path / "ray.jsonl"
    out.write_text(json.dumps({"id": "q0", "line": 1, "rubric": "rag", "result": {}, "usage": {}}) + "\n")

    with ScriptedEndpoint(ray_judge()) as endpoint:
        assert _run(endpoint.flags, items, out) == 1  # line 4 is not JSON: judged with failures (docs/exit-codes.md)
        err = capsys.readouterr().err
        assert "resuming: 1 id(s)" in err and "duplicate id 'q5'" in err

        records = _records(out)
        ids = [r["id"] for r in records]
        assert sorted(ids) == sorted(expected) and len(ids) == len(set(ids))
        assert records[0]["result"] == {}, "the resumed record is left as it was, not judged again"
        by_id = {r["id"]: r for r in records}
        assert by_id["line-4"]["input_error"]
        local_out = tmp_path / "local.jsonl"
        assert main(["evaluate", str(items), "--out", str(local_out), "--concurrency", "3", "--no-embeddings",
                     *endpoint.flags]) == 1  # line 4 is not JSON: judged with failures (docs/exit-codes.md)
        for record in _records(local_out):
            if record["id"] == "q0":
                continue
            twin = by_id[record["id"]]
            assert {k: v for k, v in twin.items() if k != "usage"} == {k: v for k, v in record.items() if k != "usage"}
            assert twin["usage"]["calls"] == record["usage"]["calls"]
            if "input_error" not in record:
                assert RagResult.model_validate(twin["result"]).evaluation_status == "success"

        assert _run(endpoint.flags, items, out) == 0  # everything done: nothing re-judged
        assert len(_records(out)) == len(records)


def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(local_ray, tmp_path):
    items = tmp_path / "items.jsonl"
    expected = _items(items, 24)
    out = tmp_path / "results.jsonl"
    killer = WorkerKiller()

    with ScriptedEndpoint(_judge(killer)) as endpoint:
        killer.endpoint = endpoint
        assert _run(endpoint.flags, items, out) == 1  # line 4 is not JSON: judged with failures (docs/exit-codes.md)

    assert killer.killed, "no worker was killed: the test proved nothing"
    records = _records(out)
    ids = [r["id"] for r in records]
    assert len(ids) == len(set(ids)), "an id was written twice"
    assert set(ids) == expected
    for record in records:
        result = RagResult.model_validate(record["result"])
        if "input_error" not in record:
            assert result.evaluation_status == "success" and "internal_error" not in record


def test_ray_actors_call_an_http_judge_with_httpx(local_ray, tmp_path):
    """A judge behind a URL (the engine's real use). The actors keep httpx, not the local
    batch's aiohttp transport: with aiohttp a Ray run against a server whose accept queue
    overflowed stalled on requests that timed out (docs/batch.md). The fake server tells the
    transports apart by the spelling of the Host header."""
    from tests.support.fault_server import FaultServer
    from tests.support.latency_judge import CLAIMS, replies

    items = tmp_path / "items.jsonl"
    expected = _items(items, 8, answer=" ".join(CLAIMS))  # the judge's listed claims come from the answer
    out = tmp_path / "results.jsonl"
    scripted = replies(3)
    with FaultServer(reply=lambda step, schema, body: scripted[step]) as server:
        code = main(["evaluate", str(items), "--out", str(out), "--engine", "ray", "--concurrency", "3",
                     "--ray-actors", "2", "--base-url", server.base_url, "--model", "fake-judge",
                     "--claims", "model", "--no-embeddings"])
    assert code == 1  # line 4 is not JSON: judged with failures (docs/exit-codes.md)
    records = _records(out)
    ids = [r["id"] for r in records]
    assert sorted(ids) == sorted(expected) and len(ids) == len(set(ids))
    judged = [r for r in records if "input_error" not in r]
    for record in judged:
        assert RagResult.model_validate(record["result"]).evaluation_status == "success", record
    calls = sum(record["usage"]["calls"] for record in judged)
    assert calls >= 7 * len(judged) and server.host_headers == {"Host": calls}


def test_ray_engine_refuses_the_local_cache_before_any_work(tmp_path, capsys):
    items = tmp_path / "items.jsonl"
    _items(items, 8)
    out = tmp_path / "results.jsonl"
    assert _run(NEVER_CALLED, items, out, "--cache", str(tmp_path / "c.sqlite")) == 2
    assert "--cache" in capsys.readouterr().err
    assert not out.exists()


def test_without_ray_data_the_engine_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    from judgegraph.batch import ray_engine

    def missing():
        raise ray_engine.RayUnavailable("--engine ray needs Ray Data: pip install 'judgegraph[ray]' (test)")

    monkeypatch.setattr(ray_engine, "import_ray", missing)
    items = tmp_path / "items.jsonl"
    _items(items, 8)
    out = tmp_path / "results.jsonl"
    assert _run(NEVER_CALLED, items, out) == 2
    err = capsys.readouterr().err
    assert "judgegraph[ray]" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


TOKEN_REFUSAL = (
    "Failed to connect to GCS. Last connection error: Traceback (most recent call last):\n"
    '  File "python/ray/includes/common.pxi", line 119, in ray._raylet.check_status\n'
    "ray.exceptions.AuthenticationError: RPC error: InvalidAuthToken: Authentication token is missing or incorrect. "
    "Note: RAY_AUTH_MODE is currently 'disabled' (not 'token'). Ensure that the token for the cluster is available "
    "in a local file (e.g., ~/.ray/auth_token or via RAY_AUTH_TOKEN_PATH) or as the `RAY_AUTH_TOKEN` environment "
    "variable.")
"""What Ray 2.60's `ray.init(address=...)` raises behind its ConnectionError when the cluster was
started with RAY_AUTH_MODE=token and the driver sends no token (captured from a real
`ray start --head`, the traceback cut to its last frame)."""


class ClusterAskingForAToken:
    """`ray` as the engine sees it, joining a cluster that uses token authentication."""

    @staticmethod
    def is_initialized() -> bool:
        return False

    @staticmethod
    def init(address: str, **settings) -> None:
        try:
            raise RuntimeError(TOKEN_REFUSAL)
        except RuntimeError as cause:
            raise ConnectionError(f"Failed to connect to Ray cluster at {address}") from cause


@pytest.mark.parametrize("mode", [None, "token"])
def test_a_cluster_with_token_authentication_is_named_with_the_fix(tmp_path, monkeypatch, capsys, mode):
    """Issue 54: was "cannot write results.jsonl: Failed to connect to Ray cluster at ..."."""
    from judgegraph.batch import ray_engine

    monkeypatch.setattr(ray_engine, "import_ray", lambda: ClusterAskingForAToken)
    if mode is None:
        monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    else:
        monkeypatch.setenv("RAY_AUTH_MODE", mode)
    items = tmp_path / "items.jsonl"
    _items(items, 8)
    out = tmp_path / "results.jsonl"
    assert _run(NEVER_CALLED, items, out, "--ray-address", "192.0.2.2:6379") == 2
    err = capsys.readouterr().err.strip().splitlines()
    if mode is None:
        assert err == ["judgegraph: cannot join the Ray cluster at 192.0.2.2:6379: it uses token authentication and "
                       "this process sent no token; set RAY_AUTH_MODE=token, with the cluster's token in "
                       "~/.ray/auth_token, RAY_AUTH_TOKEN or RAY_AUTH_TOKEN_PATH (docs/batch.md)"]
    else:
        assert len(err) == 1 and "refused this process's token" in err[0] and "RAY_AUTH_TOKEN" in err[0]
    assert not out.exists()  # refused before the results file is opened


def test_a_cluster_that_is_not_there_is_named_without_the_token_fix(tmp_path, monkeypatch, capsys):
    from judgegraph.batch import ray_engine

    class NoCluster(ClusterAskingForAToken):
        @staticmethod
        def init(address: str, **settings) -> None:
            raise ConnectionError(f"Failed to connect to Ray cluster at {address}")

    monkeypatch.setattr(ray_engine, "import_ray", lambda: NoCluster)
    items = tmp_path / "items.jsonl"
    _items(items, 8)
    assert _run(NEVER_CALLED, items, tmp_path / "results.jsonl", "--ray-address", "192.0.2.2:6379") == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "judgegraph: cannot join the Ray cluster at 192.0.2.2:6379: Failed to connect to Ray cluster at 192.0.2.2:6379"]


def test_ray_actors_escalate_to_the_second_judge_like_the_local_engine(local_ray, tmp_path):
    """`--escalate-to` reaches the actors (each rebuilds both judges from the flags): the uncertain
    claim is the second judge's in a Ray run's records as in a local run's, the confident one the
    first judge's, and the provenance names the second judge and the band."""
    from tests.run.test_escalation import ITEMS, GradedJudge, _escalation

    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(item) + "\n" for item in ITEMS), encoding="utf-8")
    with GradedJudge({"When was": 0.97, "Who designed": 0.62}) as first, \
            GradedJudge({"When was": 0.99, "Who designed": 0.02}) as second:
        flags = ["--base-url", first.server.base_url, "--model", "first", "--details",
                 "--escalate-to", "second", "--escalate-base-url", second.server.base_url]
        assert _run(flags, items, tmp_path / "ray.jsonl") == 0
        assert main(["evaluate", str(items), "--out", str(tmp_path / "local.jsonl"), "--no-embeddings", *flags]) == 0
        asked = [json.dumps(body) for body in second.claim_checks()]
    ray_records = {r["id"]: r for r in _records(tmp_path / "ray.jsonl")}
    local_records = {r["id"]: r for r in _records(tmp_path / "local.jsonl")}
    for records in (ray_records, local_records):
        assert [d["decided_by"] for d in _escalation(records["sure"])] == ["first"]
        assert [d["decided_by"] for d in _escalation(records["unsure"])] == ["second"]
        assert records["unsure"]["result"]["faithfulness"] == pytest.approx(0.02)  # the second judge's verdict
        assert records["unsure"]["usage"]["escalation"]["second_judge"]["calls"] == 1
    for item_id, record in ray_records.items():
        assert _escalation(record) == _escalation(local_records[item_id])
        assert record["result"] == local_records[item_id]["result"]
        assert record["provenance"] == local_records[item_id]["provenance"]
        assert "escalation" in record["provenance"]
    assert len(asked) == 2 and all("Who designed" in body for body in asked)  # one per run, the uncertain claim


def test_the_second_judges_key_from_the_environment_reaches_the_actors(local_ray, tmp_path, monkeypatch):
    """`JUDGEGRAPH_ESCALATE_API_KEY` is passed to the actors with the first judge's variables: set
    after this Ray started (as on a cluster, whose workers never saw the driver's environment),
    every request the second judge gets carries it, the actors' as well as the driver's probe."""
    from tests.run.test_escalation import ITEMS, GradedJudge

    monkeypatch.setenv("JUDGEGRAPH_ESCALATE_API_KEY", "sk-second-judge")
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(item) + "\n" for item in ITEMS), encoding="utf-8")
    with GradedJudge({"When was": 0.6, "Who designed": 0.6}) as first, \
            GradedJudge({"When was": 0.99, "Who designed": 0.99}) as second:
        flags = ["--base-url", first.server.base_url, "--model", "first",
                 "--escalate-to", "second", "--escalate-base-url", second.server.base_url]
        assert _run(flags, items, tmp_path / "ray.jsonl") == 0
        keys = dict(second.server.authorizations)
    assert len(second.claim_checks()) == 2  # both claims escalated, from the actors
    assert keys == {"Bearer sk-second-judge": sum(keys.values())}
