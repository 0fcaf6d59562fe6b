"""`judgegraph evaluate ... --otel` as a user runs it, for the tests that read its spans back from
a receiver (ours in `tests.support.otlp_receiver`, or Phoenix in `tests.support.phoenix_server`).

Why a child process: the exporter, its environment variables and the flush at exit are the
ones a user gets; the test's own OpenTelemetry settings must not leak into it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ITEMS = [json.loads(line) for line in (ROOT / "examples" / "batch.jsonl").read_text().splitlines()[:3]]
"""The first three items of the example batch: three traces, each with LLM spans."""


def write_batch(path: Path, items: list[dict[str, Any]] = ITEMS) -> Path:
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


def run_cli(argv: list[str], **env: str) -> subprocess.CompletedProcess:
    """`judgegraph <argv>` in a child process, with only `env`'s OpenTelemetry settings."""
    variables = {k: v for k, v in os.environ.items() if k != "JUDGEGRAPH_OTEL" and not k.startswith("OTEL_")}
    variables |= env
    variables["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT.parent), os.environ.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "judgegraph.cli", *argv], capture_output=True, text=True,
                          env=variables, timeout=300, check=False)


def read_records(path: Path) -> dict[str, dict[str, Any]]:
    """The output JSONL's records by item id."""
    return {r["id"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
