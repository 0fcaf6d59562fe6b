"""How long a failure takes to be reported (issue 54): a judge whose connection is refused, and
an OTLP receiver that is down. Prints seconds; asserts nothing (no timed tests).

    python -m benchmarks.failure_waits [--runs 3]

Each figure is the wall time of `python cli.py evaluate examples/rag_item.json ...` in a fresh
child process (median of `--runs`), next to a floor of the same start-up that waits for nothing,
so the difference is the wait the failure itself adds:

- **refused**: `--base-url` a closed port on 127.0.0.1 (exit 2, one line, empty stdout), against
  the floor of an invalid item (the same imports and graph, no judge call; exit 1). The SDK's
  retries of a refused connection (3, with backoff) made this some 13 s more.
- **otlp-down**: a one-item run against the demo judge on 127.0.0.1 with `--otel` and
  `OTEL_EXPORTER_OTLP_ENDPOINT` a closed port, against the same run without `--otel`. The
  exporter's retries made this some 10 to 20 s more.

Start-up dominates both floors and grows with the machine's load: read the added seconds, and
the load average printed with them. So the same two waits are also timed in this process, with
everything imported and the graph built, where start-up does not enter: `in_process.refused`
is `run_evaluation` against the closed port plus the probe that names it (what the CLI does
before it exits 2), `in_process.otlp_down` opening the tracer, recording a span and closing it
with the receiver down.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ITEM = ROOT / "examples" / "rag_item.json"


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def timed(argv: list[str], **env: str) -> tuple[float, subprocess.CompletedProcess]:
    variables = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_") and k != "JUDGEGRAPH_OTEL"}
    started = time.perf_counter()
    child = subprocess.run([sys.executable, str(ROOT / "cli.py"), "evaluate", *argv], cwd=ROOT, capture_output=True,
                           text=True, env=variables | env, check=False, timeout=600)
    return time.perf_counter() - started, child


def median_of(runs: int, argv: list[str], expect: int, **env: str) -> tuple[float, str]:
    seconds, stderr = [], ""
    for _ in range(runs):
        took, child = timed(argv, **env)
        if child.returncode != expect:
            raise SystemExit(f"{argv}: exit {child.returncode}, expected {expect}: {child.stderr[-500:]}")
        seconds.append(took)
        stderr = child.stderr
    return statistics.median(seconds), stderr


def in_process(runs: int, dead_judge: str, dead_receiver: str) -> dict[str, float]:
    """Median seconds of each wait in this process, after one warm-up run (module docstring)."""
    import logging

    from judgegraph.commands.item_outcome import judge_problem
    from judgegraph.graph.api import run_evaluation
    from judgegraph.llm.models import resolve_model
    from judgegraph.run.context import JudgeContext
    from judgegraph.telemetry.exporter import ItemTracer

    logging.getLogger("judgegraph.telemetry").setLevel(logging.ERROR)  # its one line, once per run
    item = json.loads(ITEM.read_text())
    resolved = resolve_model("m", base_url=dead_judge)
    context = JudgeContext(model=resolved.model, model_id=resolved.model_id, endpoint=resolved.endpoint,
                           embeddings=False)

    def refused() -> None:
        assert judge_problem(run_evaluation(item, model=context), context) is not None

    def otlp_down() -> None:
        tracer = ItemTracer()
        with tracer.tracer.start_as_current_span("item"):
            pass
        tracer.close()

    os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] = dead_receiver
    found = {}
    for name, step in (("refused", refused), ("otlp_down", otlp_down)):
        step()  # warm-up: graph compiled, exporter modules imported
        seconds = []
        for _ in range(runs):
            started = time.perf_counter()
            step()
            seconds.append(time.perf_counter() - started)
        found[f"{name}_seconds"] = round(statistics.median(seconds), 3)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from tests.support.demo_judge import reply
    from tests.support.fault_server import FaultServer

    invalid = Path(tempfile.mkdtemp(prefix="judgegraph-waits-")) / "invalid.json"
    invalid.write_text(json.dumps({"question": "Where is it?", "answer": "", "context": "It is here."}))
    dead_judge = f"http://127.0.0.1:{closed_port()}/v1"
    dead_receiver = f"http://127.0.0.1:{closed_port()}"
    figures: dict[str, dict[str, float | str]] = {}
    floor, _ = median_of(args.runs, [str(invalid), "--base-url", dead_judge, "--model", "m", "--no-embeddings"], 1)
    refused, said = median_of(args.runs, [str(ITEM), "--base-url", dead_judge, "--model", "m", "--no-embeddings"], 2)
    figures["refused"] = {"seconds": round(refused, 2), "floor_seconds": round(floor, 2),
                          "added_seconds": round(refused - floor, 2), "stderr": said.strip()}
    with FaultServer(reply=reply) as judge:
        flags = [str(ITEM), "--base-url", judge.base_url, "--model", "demo", "--no-embeddings"]
        plain, _ = median_of(args.runs, flags, 0)
        down, said = median_of(args.runs, [*flags, "--otel"], 0, OTEL_EXPORTER_OTLP_ENDPOINT=dead_receiver)
    figures["otlp-down"] = {"seconds": round(down, 2), "floor_seconds": round(plain, 2),
                            "added_seconds": round(down - plain, 2), "stderr": said.strip()}
    figures["in_process"] = in_process(args.runs, dead_judge, dead_receiver)
    print(json.dumps({"runs": args.runs, "load_average": [round(x, 2) for x in os.getloadavg()],
                      "cores": os.cpu_count(), **figures}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
