"""Arize Phoenix's server in a child process on 127.0.0.1: a real OTLP/HTTP receiver
(`<endpoint>/v1/traces`) whose stored spans the tests read back over its REST API.

Why a separate interpreter: Phoenix is about 143 packages and 570 MiB and would upgrade
protobuf, pydantic and rich in the project's environment, so it lives in a virtualenv of its
own (`JUDGEGRAPH_PHOENIX_PYTHON` names that venv's python; `.ci/run` builds it) and the tests
only speak HTTP with it. It runs offline: a temporary working dir (SQLite database inside), no
telemetry, no public-internet resources, no agent assistant, and neither the project's
`PYTHONPATH` nor its working dir on the server's import path (the repo's top-level packages,
`telemetry/` among them, must not shadow Phoenix's).

    with PhoenixServer(python, workdir) as phoenix:   # phoenix.endpoint: OTEL_EXPORTER_OTLP_ENDPOINT
        ...; phoenix.spans("my-project")
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self
from urllib.parse import quote, urlencode

from tests.support.child_server import free_port, wait_until_ok

PYTHON_ENV = "JUDGEGRAPH_PHOENIX_PYTHON"
"""The python of a virtualenv with arize-phoenix installed."""

REQUIRE_ENV = "JUDGEGRAPH_REQUIRE_PHOENIX"
"""Set to 1 (CI does) so a missing or unusable Phoenix fails the test instead of skipping it."""


def phoenix_version(python: str) -> str | None:
    """The arize-phoenix version `python` has installed, or None (no such python, no Phoenix).
    Reads the package metadata: importing phoenix itself takes seconds."""
    try:
        found = subprocess.run([python, "-c", "from importlib.metadata import version; print(version('arize-phoenix'))"],
                               capture_output=True, text=True, timeout=60, check=False, env=_server_environment({}))
    except OSError:
        return None
    return found.stdout.strip() if found.returncode == 0 else None


def _server_environment(settings: dict[str, str]) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items()
            if not k.startswith(("PHOENIX_", "OTEL_", "PYTHON")) and k != "VIRTUAL_ENV"}
    return keep | settings


class PhoenixServer:
    """`python -m phoenix.server.main serve` with its data in `workdir`, from `__enter__` (ready:
    `/healthz` answers) to `__exit__` (stopped)."""

    def __init__(self, python: str, workdir: Path, ready_timeout: float = 180.0) -> None:
        self.python = python
        self.workdir = workdir
        self.ready_timeout = ready_timeout
        self.port = free_port()
        self.log = workdir / "phoenix.log"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> str:
        """The base for `OTEL_EXPORTER_OTLP_ENDPOINT` (the exporter appends `/v1/traces`)."""
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Self:
        self.workdir.mkdir(parents=True, exist_ok=True)
        environment = _server_environment({
            "PHOENIX_WORKING_DIR": str(self.workdir), "PHOENIX_HOST": "127.0.0.1", "PHOENIX_PORT": str(self.port),
            "PHOENIX_GRPC_PORT": str(free_port()),  # OTLP/gRPC cannot be switched off; any free port
            "PHOENIX_TELEMETRY_ENABLED": "false", "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
            "PHOENIX_DISABLE_AGENT_ASSISTANT": "true",
        })
        with self.log.open("wb") as log:
            self._process = subprocess.Popen([self.python, "-m", "phoenix.server.main", "serve"], cwd=self.workdir,
                                             env=environment, stdin=subprocess.DEVNULL, stdout=log,
                                             stderr=subprocess.STDOUT)
        try:
            self._wait_until_ready()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)

    def _wait_until_ready(self) -> None:
        assert self._process is not None
        wait_until_ok(f"{self.endpoint}/healthz", self._process, self.ready_timeout,
                      lambda reason: f"Phoenix {reason}:\n{self.log_tail()}")

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:]) if self.log.exists() else ""

    def _get(self, path: str, **query: Any) -> dict[str, Any]:
        url = f"{self.endpoint}{path}?{urlencode({k: v for k, v in query.items() if v is not None})}"
        with urllib.request.urlopen(url, timeout=30) as response:
            return json.load(response)

    def _pages(self, path: str) -> list[dict[str, Any]]:
        """Every row of a paginated REST listing (`data`, `next_cursor`); [] while the project
        does not exist yet (Phoenix creates it with its first span)."""
        rows: list[dict[str, Any]] = []
        cursor = None
        while True:
            try:
                page = self._get(path, limit=1000, cursor=cursor)
            except urllib.error.HTTPError as error:
                if error.code == 404:
                    return rows
                raise
            rows.extend(page["data"])
            if not (cursor := page.get("next_cursor")):
                return rows

    def spans(self, project: str) -> list[dict[str, Any]]:
        """The project's spans as Phoenix stores them: `context.trace_id`, `parent_id`,
        `span_kind`, `attributes` (flat, dotted keys)."""
        return self._pages(f"/v1/projects/{quote(project, safe='')}/spans")

    def traces(self, project: str) -> list[dict[str, Any]]:
        """The project's traces with the token counts Phoenix totals over their LLM spans
        (`token_count_prompt`, `token_count_completion`)."""
        return self._pages(f"/v1/projects/{quote(project, safe='')}/traces")

    def wait_for_spans(self, project: str, until: Callable[[list[dict[str, Any]]], bool],
                       timeout: float = 60.0) -> list[dict[str, Any]]:
        """The project's spans once `until(spans)` holds, or as they are after `timeout`:
        Phoenix answers the exporter before it writes the spans to its database."""
        deadline = time.monotonic() + timeout
        while True:
            spans = self.spans(project)
            if until(spans) or time.monotonic() > deadline:
                return spans
            time.sleep(0.25)
