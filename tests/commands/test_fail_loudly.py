"""Issue #28, failing loudly: a judge that cannot be used stops the command with exit 2 and one
line naming its URL and the cause; an item or a batch with nothing judged exits 1; a resume
judged another way is refused unless forced; `--retry-failed` replaces failed records. Through
`commands.cli.main`, against real HTTP servers on 127.0.0.1 (a closed port for the dead judge)."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from judgegraph.commands import cli
from tests.support.fakes import answer_relevance, claims, context_relevance, judge, similarity, verdict
from tests.support.scripted_server import MODEL_NAME, ScriptedEndpoint
from tests.batch.test_batch_runner import rag_item, rag_judge, records, write_lines


def closed_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens (the port was free a moment ago)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def item_file(tmp_path: Path, item: dict | None = None) -> Path:
    path = tmp_path / "item.json"
    path.write_text(json.dumps(item or rag_item()), encoding="utf-8")
    return path


# --- the dead judge ------------------------------------------------------------------------------

def test_a_dead_judge_fails_one_item_with_exit_2_and_one_line_naming_the_url(tmp_path, capsys):
    url = closed_port_url()
    code = cli.main(["evaluate", str(item_file(tmp_path)), "--base-url", url, "--model", "m", "--retries", "0"])
    out, err = capsys.readouterr()
    assert code == 2
    assert err.strip().splitlines() == [f"judgegraph: cannot use the judge at {url}: connection refused"]
    assert out == ""  # issue 54: an all-null result the judge never judged is not printed


def test_a_refused_connection_is_not_retried(tmp_path, capsys, monkeypatch):
    """Issue 54: nothing listens there, and waiting will not change that, so the default
    retries (3, with backoff: some 13 s) are not spent on it; the SDK's retry sleep is never
    reached, by the blocking or the async client."""
    import openai._base_client as sdk

    waits: list[int] = []

    def no_wait(self, **kwargs):
        waits.append(kwargs["retries_taken"])

    async def no_async_wait(self, **kwargs):
        waits.append(kwargs["retries_taken"])

    monkeypatch.setattr(sdk.SyncAPIClient, "_sleep_for_retry", no_wait)
    monkeypatch.setattr(sdk.AsyncAPIClient, "_sleep_for_retry", no_async_wait)
    url = closed_port_url()
    code = cli.main(["evaluate", str(item_file(tmp_path)), "--base-url", url, "--model", "m"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [f"judgegraph: cannot use the judge at {url}: connection refused"]
    assert waits == []


def test_a_dead_judge_stops_a_batch_before_any_record(tmp_path, capsys):
    url = closed_port_url()
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a"), rag_item("b")])
    out = tmp_path / "out.jsonl"
    code = cli.main(["evaluate", str(items), "--out", str(out), "--base-url", url, "--model", "m", "--retries", "0"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().splitlines() == [f"judgegraph: cannot use the judge at {url}: connection refused"]
    assert not out.exists()  # no record judged as a success, nor any failed record to clean up


def test_the_dry_run_does_not_probe_the_judge(tmp_path, capsys):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a")])
    code = cli.main(["evaluate", str(items), "--dry-run", "--base-url", closed_port_url(), "--model", "m"])
    assert code == 0 and "cannot use the judge" not in capsys.readouterr().err


class _StrictServer:
    """An OpenAI-style server that checks the key and the model name (as OpenAI and vLLM do)."""

    def __init__(self, key: str, models: tuple[str, ...]) -> None:
        owner = self
        self.key, self.models, self.posts = key, models, 0

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args) -> None:
                pass

            def _send(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _authorised(self) -> bool:
                if self.headers.get("Authorization") == f"Bearer {owner.key}":
                    return True
                self._send(401, {"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}})
                return False

            def do_GET(self) -> None:  # noqa: N802
                if not self._authorised():
                    return
                name = self.path.rsplit("/models/", 1)[-1]
                if name in owner.models:
                    self._send(200, {"id": name, "object": "model", "owned_by": "test"})
                else:
                    self._send(404, {"error": {"message": f"The model '{name}' does not exist"}})

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                owner.posts += 1
                if self._authorised():
                    self._send(404, {"error": {"message": "The model does not exist", "code": "model_not_found"}})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> _StrictServer:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.mark.parametrize(("key", "model", "cause"), [
    ("wrong-key", "served", "the API key was refused (HTTP 401)"),
    ("right-key", "typo", "model 'typo' not found (HTTP 404)"),
])
def test_the_probe_names_a_refused_key_and_an_unknown_model(tmp_path, capsys, key, model, cause):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a")])
    with _StrictServer("right-key", ("served",)) as server:
        code = cli.main(["evaluate", str(items), "--out", str(tmp_path / "out.jsonl"), "--base-url", server.url,
                         "--model", model, "--api-key", key, "--retries", "0"])
    assert code == 2
    assert capsys.readouterr().err.strip().splitlines() == [f"judgegraph: cannot use the judge at {server.url}: {cause}"]


def test_a_listed_model_passes_the_probe_without_a_completion(tmp_path):
    with _StrictServer("k", ("served",)) as server:
        from judgegraph.llm.judge_probe import probe_judge
        from judgegraph.llm.models import resolve_model

        probe_judge(resolve_model("served", base_url=server.url, api_key="k").model)
        assert server.posts == 0  # GET /models/served verified URL, key and name: no token spent


# --- nothing judged --------------------------------------------------------------------------------

def test_a_batch_where_every_item_failed_exits_1(tmp_path, capsys):
    items = write_lines(tmp_path / "items.jsonl", [{"id": "a", "answer": "x", "rubric": "rag"}, "not json"])
    out = tmp_path / "out.jsonl"
    with ScriptedEndpoint(rag_judge()) as endpoint:
        code = cli.main(["evaluate", str(items), "--out", str(out), *endpoint.flags])
    assert code == 1
    assert len(records(out)) == 2
    assert "no metric of any record this run wrote could be judged (exit 1)" in capsys.readouterr().err


def test_a_batch_with_a_judged_item_among_failed_ones_exits_1(tmp_path):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("good"), {"id": "bad", "answer": "x"}])
    with ScriptedEndpoint(rag_judge()) as endpoint:
        assert cli.main(["evaluate", str(items), "--out", str(tmp_path / "out.jsonl"), *endpoint.flags]) == 1
    assert sorted(record["id"] for record in records(tmp_path / "out.jsonl")) == ["bad", "good"]  # both written


def test_a_metric_that_could_not_be_judged_is_named_on_stderr(tmp_path, capsys):
    broken = judge(extract_claims=claims("Paris is the capital of France."), check_claim=verdict("supported", 1),
                   judge_context_relevance="not json at all", judge_answer_relevance=answer_relevance(),
                   judge_semantic_similarity=similarity(5))
    with ScriptedEndpoint(broken) as endpoint:
        code = cli.main(["evaluate", str(item_file(tmp_path)), *endpoint.flags])
    err = capsys.readouterr().err
    assert code == 1  # judged with a failure; the judge answers (the probe passes), so not 2
    assert "judgegraph: context_relevance not judged:" in err and "cannot use the judge" not in err


def test_an_item_whose_every_metric_failed_exits_1(tmp_path, capsys):
    broken = judge(extract_claims=claims("Paris is the capital of France."), check_claim="no",
                   judge_context_relevance="no", judge_answer_relevance="no", answer_from_context="no",
                   judge_semantic_similarity="no")
    item = rag_item()
    del item["reference"]  # similarity does not apply: every metric left needs the judge
    with ScriptedEndpoint(broken) as endpoint:
        code = cli.main(["evaluate", str(item_file(tmp_path, item)), *endpoint.flags, "--max-repairs", "0"])
    err = capsys.readouterr().err
    not_judged = [line for line in err.splitlines() if " not judged: " in line]
    assert code == 1 and "cannot use the judge" not in err
    assert len(not_judged) == 1 and "faithfulness" in not_judged[0].split(" not judged: ")[0]  # the reason said once


# --- resume ------------------------------------------------------------------------------------------

def _run(items: Path, out: Path, flags: list[str], *extra: str) -> int:
    return cli.main(["evaluate", str(items), "--out", str(out), *flags, *extra])


def test_a_resume_with_another_model_is_refused_unless_forced(tmp_path, capsys):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a")])
    out = tmp_path / "out.jsonl"
    with ScriptedEndpoint(rag_judge()) as endpoint:
        assert _run(items, out, endpoint.flags) == 0
        before = out.read_bytes()
        write_lines(items, [rag_item("a"), rag_item("b")])
        other = ["--base-url", endpoint.base_url, "--model", "another-judge"]
        capsys.readouterr()
        assert _run(items, out, other) == 2
        [line] = capsys.readouterr().err.strip().splitlines()
        assert line.startswith(f"judgegraph: {out} was judged another way than this run (judge ")
        assert f"openai-compatible:{MODEL_NAME}@" in line and "-> openai-compatible:another-judge@" in line
        assert "--force-resume" in line
        assert out.read_bytes() == before  # nothing appended, nothing judged
        assert _run(items, out, other, "--force-resume") == 0
    lines = records(out)
    assert [line["id"] for line in lines] == ["a", "b"]
    assert "another-judge" in lines[1]["provenance"]["judge_model"]


def test_a_resume_with_other_judging_flags_is_refused(tmp_path, capsys):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a")])
    out = tmp_path / "out.jsonl"
    with ScriptedEndpoint(rag_judge()) as endpoint:
        assert _run(items, out, endpoint.flags) == 0
        capsys.readouterr()
        assert _run(items, out, endpoint.flags, "--max-repairs", "0") == 2
    assert "max_repairs 2 -> 0" in capsys.readouterr().err


def test_a_resume_through_another_spelling_of_the_same_server_is_accepted(tmp_path, capsys):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a"), rag_item("b")])
    out = tmp_path / "out.jsonl"
    with ScriptedEndpoint(rag_judge()) as endpoint:
        write_lines(items, [rag_item("a")])
        assert _run(items, out, endpoint.flags) == 0
        write_lines(items, [rag_item("a"), rag_item("b")])
        localhost = ["--base-url", endpoint.base_url.replace("127.0.0.1", "localhost"), "--model", MODEL_NAME]
        assert _run(items, out, localhost) == 0
    assert [line["id"] for line in records(out)] == ["a", "b"]


def _failing_then_good_judge():
    """Context relevance fails (invalid replies) for the first run's items, then answers."""
    return judge(extract_claims=claims("Paris is the capital of France."), check_claim=verdict("supported", 1),
                 judge_context_relevance=["nonsense"] * 6 + [context_relevance("yes", [1])] * 4,
                 judge_answer_relevance=answer_relevance(), judge_semantic_similarity=similarity(5))


def test_retry_failed_judges_failed_records_again_and_replaces_them(tmp_path, capsys):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a"), rag_item("b")])
    out = tmp_path / "out.jsonl"
    with ScriptedEndpoint(_failing_then_good_judge()) as endpoint:
        flags = [*endpoint.flags, "--concurrency", "1", "--max-repairs", "2"]
        assert _run(items, out, flags) == 1  # judged (answer relevance...), with a metric failed
        first = records(out)
        assert all(r["result"]["context_relevance"] is None for r in first)
        capsys.readouterr()
        assert _run(items, out, flags) == 0  # a plain resume judges nothing new, and says how to retry
        assert records(out) == first
        assert "2 record(s) in out.jsonl failed; they are kept as they are (add --retry-failed" in capsys.readouterr().err
        assert _run(items, out, flags, "--retry-failed") == 0
    again = records(out)
    assert sorted(r["id"] for r in again) == ["a", "b"]  # replaced, not duplicated
    assert all(r["result"]["context_relevance"] == 1.0 for r in again)
    assert "--retry-failed: 2 failed record(s) removed from out.jsonl" in capsys.readouterr().err
