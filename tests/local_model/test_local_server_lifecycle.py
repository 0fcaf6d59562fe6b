"""Lifecycle tests for local_model.server: start, health, stop, and no orphans.

Two layers:

* Cheap tests run a tiny fake OpenAI-ish server module (written to tmp_path)
  through the same bootstrap, process-group and cleanup code as the real one,
  so the lifecycle is covered on any machine.
* Tests marked ``e2e`` start the real ``llama_cpp.server`` with the real model;
  they skip, with the reason, when llama-cpp-python or the model parts are not
  installed. The garbage-model test needs llama-cpp-python only.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgegraph.local_model import LocalServer, LocalServerError
from judgegraph.local_model.assembly import ModelAssemblyError, ensure_local_model

PROJECT_ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process checks use /proc (Linux)")

FAKE_SERVER = textwrap.dedent(
    """
    import argparse, json, os, sys, time
    from http.server import BaseHTTPRequestHandler, HTTPServer

    parser = argparse.ArgumentParser()
    parser.add_argument("--host")
    parser.add_argument("--port", type=int)
    parser.add_argument("--model_alias")
    args, _ = parser.parse_known_args()
    mode = os.environ.get("FAKE_SERVER_MODE", "ok")
    print("fake server starting", flush=True)
    if mode == "crash":
        for i in range(1, 31):
            print(f"fake log line {i}", flush=True)
        sys.exit(3)
    if mode == "hang":
        time.sleep(3600)

    class Handler(BaseHTTPRequestHandler):
        def _reply(self, payload):
            body = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            self._reply({"object": "list", "data": [{"id": args.model_alias, "object": "model"}]})

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if mode == "die_on_post":
                os._exit(1)
            self._reply({"choices": [{"text": "OK"}]})

    HTTPServer((args.host, args.port), Handler).serve_forever()
    """
)

# Started as a separate process: starts a server, prints its pid, then waits to be killed.
PARENT_SCRIPT = textwrap.dedent(
    """
    import json, sys, threading, time
    from pathlib import Path
    from judgegraph.local_model import LocalServer

    cfg = json.loads(sys.argv[1])
    server = LocalServer(Path(cfg["model"]), log_path=Path(cfg["log"]), **cfg["kwargs"])
    if cfg["from_thread"]:
        t = threading.Thread(target=server.start)
        t.start()
        t.join()  # the starting thread is gone: PDEATHSIG must not have been armed
    else:
        server.start()
    print(server.pid, flush=True)
    while True:
        time.sleep(1)
    """
)


def _alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait_gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return not _alive(pid)


def _get_json(url: str) -> dict:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=10) as resp:
        return json.loads(resp.read())


@pytest.fixture
def fake_env(tmp_path: Path) -> Path:
    """A directory holding the fake server module; returns it for PYTHONPATH."""
    (tmp_path / "fake_llama_server.py").write_text(FAKE_SERVER)
    (tmp_path / "model.gguf").write_bytes(b"not used by the fake server")
    return tmp_path


def _fake_server(fake_env: Path, mode: str = "ok", **kwargs: object) -> LocalServer:
    return LocalServer(
        fake_env / "model.gguf",
        log_path=fake_env / "server.log",
        server_module="fake_llama_server",
        env={"PYTHONPATH": str(fake_env), "FAKE_SERVER_MODE": mode},
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.fixture
def reap() -> Iterator[list[int]]:
    """Pids to SIGKILL after the test if still alive, so a failing test leaves no process behind."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def _spawn_parent(
    model: Path, log: Path, kwargs: dict, reap: list[int], *, from_thread: bool = False
) -> tuple[subprocess.Popen[str], int]:
    """Run PARENT_SCRIPT; return the process and the server pid it reports (both registered in ``reap``)."""
    cfg = {"model": str(model), "log": str(log), "kwargs": kwargs, "from_thread": from_thread}
    extra_path = kwargs.get("env", {}).get("PYTHONPATH", "")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PROJECT_ROOT), extra_path])}
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT_SCRIPT, json.dumps(cfg)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    reap.append(parent.pid)
    assert parent.stdout is not None
    line = parent.stdout.readline()
    if not line.strip():
        parent.kill()
        _, err = parent.communicate(timeout=10)
        pytest.fail(f"parent script did not report a server pid; stderr:\n{err}")
    reap.append(int(line))
    return parent, int(line)


# --------------------------------------------------------------------------- cheap: fake server


def test_fake_server_starts_healthy_and_stop_leaves_no_process(fake_env: Path) -> None:
    server = _fake_server(fake_env, model_alias="judge-x")
    with server:
        assert server.base_url == f"http://127.0.0.1:{server.port}/v1"
        assert _get_json(server.base_url + "/models")["data"][0]["id"] == "judge-x"
        pid = server.pid
        assert pid is not None and _alive(pid)
    assert not _alive(pid)
    assert not server.running
    server.stop()  # idempotent


def test_the_start_says_the_port_the_wait_the_warm_up_and_ready_in_seconds(fake_env: Path) -> None:
    told: list[str] = []
    with _fake_server(fake_env, status=told.append) as server:
        port = server.port
        assert told[0] == (f"starting the llama.cpp server for model.gguf on 127.0.0.1:{port} "
                           f"(log: {fake_env / 'server.log'})")
        assert told[1:3] == ["waiting for the server to load the model and answer", "warming up (a one-token completion)"]
        assert re.fullmatch(rf"ready at http://127\.0\.0\.1:{port}/v1 in \d+\.\d s", told[3])
        assert len(told) == 4


def test_the_embedded_judges_first_start_tells_stderr_and_a_reuse_does_not(
    fake_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`llm.local` starts the judge's server with its steps told on stderr (here the fake
    server stands in for llama.cpp), then reuses it in silence."""
    from judgegraph import local_model
    from judgegraph.llm import local

    def fake_server(path: Path, **kwargs: object) -> LocalServer:
        return LocalServer(path, log_path=fake_env / "server.log", server_module="fake_llama_server",
                           env={"PYTHONPATH": str(fake_env), "FAKE_SERVER_MODE": "ok"}, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(local_model, "LocalServer", fake_server)
    try:
        server = local.local_server(str(fake_env / "model.gguf"))
        err = capsys.readouterr().err
        assert f"judgegraph: local judge: starting the llama.cpp server for model.gguf on 127.0.0.1:{server.port}" in err
        assert "judgegraph: local judge: waiting for the server to load the model" in err
        assert re.search(r"judgegraph: local judge: ready at http://127\.0\.0\.1:\d+/v1 in \d+\.\d s", err)
        assert local.local_server(str(fake_env / "model.gguf")) is server
        assert capsys.readouterr().err == ""
    finally:
        local.stop_local_servers()


def test_child_runs_in_its_own_process_group(fake_env: Path) -> None:
    with _fake_server(fake_env) as server:
        assert server.pid is not None
        assert os.getpgid(server.pid) == server.pid != os.getpgid(0)


def test_early_exit_raises_with_the_last_log_lines(fake_env: Path) -> None:
    server = _fake_server(fake_env, mode="crash")
    with pytest.raises(LocalServerError) as exc:
        server.start()

    message = str(exc.value)
    assert "exited with code 3 before becoming healthy" in message
    assert "fake log line 30" in message
    assert "fake log line 16" in message
    assert "fake log line 15\n" not in message  # only the last 15 lines are quoted
    assert server.pid is None and not server.running


def test_startup_timeout_stops_the_child_and_quotes_the_log(fake_env: Path) -> None:
    server = _fake_server(fake_env, mode="hang", startup_timeout=1.5)
    started = time.monotonic()
    with pytest.raises(LocalServerError) as exc:
        server.start()

    assert time.monotonic() - started < 15
    assert "not healthy after 2s" in str(exc.value)
    assert "fake server starting" in str(exc.value)
    assert not server.running


def test_death_during_warm_up_is_reported(fake_env: Path) -> None:
    server = _fake_server(fake_env, mode="die_on_post")
    with pytest.raises(LocalServerError) as exc:
        server.start()
    assert "exited with code 1 during its warm-up completion" in str(exc.value)


def test_missing_model_file_fails_before_spawning(tmp_path: Path) -> None:
    server = LocalServer(tmp_path / "nope.gguf", log_path=tmp_path / "server.log")
    with pytest.raises(LocalServerError, match="model file not found"):
        server.start()
    assert not (tmp_path / "server.log").exists()


def test_log_holds_only_this_runs_lines(fake_env: Path) -> None:
    with pytest.raises(LocalServerError):
        _fake_server(fake_env, mode="crash").start()
    with _fake_server(fake_env) as server:
        assert "fake log line" not in server.log_tail()
        assert "fake server starting" in server.log_tail()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_killed_parent_leaves_no_server(fake_env: Path, sig: signal.Signals, reap: list[int]) -> None:
    kwargs = {"server_module": "fake_llama_server", "env": {"PYTHONPATH": str(fake_env)}}
    parent, server_pid = _spawn_parent(fake_env / "model.gguf", fake_env / "server.log", kwargs, reap)
    assert _alive(server_pid)

    parent.send_signal(sig)
    parent.wait(timeout=15)

    assert _wait_gone(server_pid), f"server pid {server_pid} outlived its parent ({sig.name})"
    if sig == signal.SIGTERM:
        assert parent.returncode == -signal.SIGTERM  # our handler re-delivers the signal


def test_server_started_from_a_thread_survives_the_thread_but_not_the_process(
    fake_env: Path, reap: list[int]
) -> None:
    """PDEATHSIG would fire when the starting thread ends; the lifeline pipe is process-wide."""
    kwargs = {"server_module": "fake_llama_server", "env": {"PYTHONPATH": str(fake_env)}}
    parent, server_pid = _spawn_parent(fake_env / "model.gguf", fake_env / "server.log", kwargs, reap, from_thread=True)
    time.sleep(0.5)
    assert _alive(server_pid), "server died with the thread that started it"

    parent.kill()
    parent.wait(timeout=15)
    assert _wait_gone(server_pid)


def test_serve_forever_prints_only_the_url_and_stops_on_ctrl_c(fake_env: Path) -> None:
    # A user's shell delivers Ctrl-C to a process whose SIGINT is neither ignored nor blocked. A
    # pytest started as a background job by a shell without job control has SIGINT ignored, its
    # children inherit that, and Python installs no Ctrl-C handler when SIGINT starts ignored: so
    # the child starts from the shell's state, and what is tested is serve_forever's own handling.
    script = (
        "import signal; signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT]); "
        "signal.signal(signal.SIGINT, signal.default_int_handler); "
        "from pathlib import Path; from local_model import serve_forever; "
        f"serve_forever({str(fake_env / 'model.gguf')!r}, log_path=Path({str(fake_env / 'server.log')!r}), "
        f"server_module='fake_llama_server', env={{'PYTHONPATH': {str(fake_env)!r}}})"
    )
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
    assert _get_json(url + "/models")["object"] == "list"

    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert out == ""
    assert "stopped" in err
    with pytest.raises(OSError):
        _get_json(url + "/models")


# --------------------------------------------------------------------------- real llama_cpp.server


@pytest.fixture(scope="module")
def llama_cpp_available() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed (pip install -e '.[local]')")


@pytest.fixture(scope="module")
def real_model(llama_cpp_available: None) -> Path:
    try:
        return ensure_local_model()
    except ModelAssemblyError as exc:
        pytest.skip(f"the local model is not available: {exc}")


@pytest.fixture
def real_server(real_model: Path, tmp_path: Path) -> Iterator[LocalServer]:
    with LocalServer(real_model, log_path=tmp_path / "server.log") as server:
        yield server


@pytest.mark.e2e
def test_real_server_answers_models_and_a_constrained_completion(real_server: LocalServer) -> None:
    assert [m["id"] for m in _get_json(real_server.base_url + "/models")["data"]] == [real_server.model_alias]

    schema = {
        "type": "object",
        "properties": {"answer": {"type": "string", "maxLength": 20}},
        "required": ["answer"],
    }
    request = urllib.request.Request(
        real_server.base_url + "/chat/completions",
        data=json.dumps(
            {
                "model": real_server.model_alias,
                "messages": [{"role": "user", "content": "What is 2+2? Reply in JSON."}],
                "temperature": 0,
                "max_tokens": 30,
                "response_format": {"type": "json_object", "schema": schema},
            }
        ).encode(),
        headers={"Content-Type": "application/json"},
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=120) as resp:
        reply = json.loads(resp.read())
    assert set(json.loads(reply["choices"][0]["message"]["content"])) == {"answer"}


@pytest.mark.e2e
def test_real_server_stop_leaves_no_process(real_model: Path, tmp_path: Path) -> None:
    server = LocalServer(real_model, log_path=tmp_path / "server.log").start()
    pid = server.pid
    assert pid is not None and _alive(pid)
    server.stop()
    assert not _alive(pid)


@pytest.mark.e2e
def test_real_server_does_not_outlive_a_sigtermed_parent(real_model: Path, tmp_path: Path, reap: list[int]) -> None:
    parent, server_pid = _spawn_parent(real_model, tmp_path / "server.log", {}, reap)
    assert _alive(server_pid)
    parent.send_signal(signal.SIGTERM)
    parent.wait(timeout=30)
    assert _wait_gone(server_pid)


def test_real_server_rejects_a_garbage_model_with_log_lines(llama_cpp_available: None, tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.gguf"
    garbage.write_bytes(os.urandom(1 << 20))
    server = LocalServer(garbage, log_path=tmp_path / "server.log", startup_timeout=120)

    with pytest.raises(LocalServerError) as exc:
        server.start()

    message = str(exc.value)
    assert "before becoming healthy" in message
    assert "last log lines:" in message
    tail = message.split("last log lines:\n", 1)[1]
    assert len(tail.splitlines()) >= 3
    assert "gguf" in tail.lower() or "model" in tail.lower()
    assert not server.running
