"""Do two revisions judge alike? Results, traces and the judge's requests, item by item.

    python -m benchmarks.same_results --revs main,WORKTREE --judge demo            # fake judge, seconds
    python -m benchmarks.same_results --revs main,WORKTREE --judge local           # embedded judge over HTTP
    python -m benchmarks.same_results --revs main,WORKTREE --judge URL --model NAME

Why: a refactor that moves code must not move a single judgement. Comparing scores is not
enough (two different prompts can give the same score on a small sample); comparing what the
judge was sent is: the same request bytes give the same replies from any deterministic judge.
So each revision judges the same inputs through its own command line, and this compares, per
input: the printed result (or the results file), the trace once its timings are removed, the
calls and tokens, and the multiset of request bodies the judge received. A trace's steps are
compared node by node (`in_node_order`): each node's events in their own order, whatever
order LangGraph interleaved the nodes in. That interleaving is scheduling, not judging: since
the claims node checks its claims itself (docs/architecture.md, "The claims node"), the claim
checks' events follow the extraction's instead of coming after every sibling judgment's.

Inputs: every `examples/` item (`*.json`, and the `*.jsonl` / `*.csv` batches) of this
checkout, and `--rows` report rows of each bench set as a batch (read at run time from
`--data-root`), the same files for every revision.

How: each revision is a detached checkout (`benchmarks.regression`'s, `WORKTREE` = the working
tree snapshotted as it is) run as a child process with `judgegraph` imported from it, the
step cache off (single items never cache; batches get no `--cache`), one item at a time
(`--concurrency 1`, so the requests' order is the same too). The judge is reached through a
counting proxy on 127.0.0.1 (`benchmarks.peers.proxy`, keeping bodies) that forwards every
request unchanged and keeps its body, tagged with the input being judged.
`--judge demo` starts `tests.support.demo_judge` (fake, instant); `--judge local` starts the
embedded judge's server once (`judgegraph serve-local`), shared by both revisions, so the
figures cover the model's replies over real HTTP; any other value is an OpenAI-compatible URL.

Outputs go to `<out-dir>/<key>/` per revision (normalised JSON per input, requests as JSONL),
and the comparison is printed: per input, same or the first difference. Exit 1 on any
difference. Repository-only (not installed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from benchmarks.datasets import DEFAULT_DATA_ROOT, REPO_ROOT, SETS, load_rows, sample_path, select_rows
from benchmarks.peers.proxy import CountingProxy
from benchmarks.regression import Side, base_side, checkout, working_tree_side

DEFAULT_OUT_DIR = Path("bench-out") / "same-results"
TIMING_KEYS = frozenset({"duration_s", "seconds", "started_at", "finished_at", "elapsed_s", "wall_seconds", "timestamp"})
"""Keys whose values are clock readings: removed before comparing (everything else must match)."""
WORKTREE = "WORKTREE"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(url: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/models", timeout=5):
                return
        except OSError:
            time.sleep(1)
    raise SystemExit(f"same_results: no judge answered at {url} within {seconds:.0f} s")


def start_judge(judge: str) -> tuple[str, subprocess.Popen | None]:
    """The upstream URL, and the child process serving it when this command started one."""
    if judge not in ("demo", "local"):
        return judge, None
    port = free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]))
    command = ([sys.executable, "-m", "tests.support.demo_judge", "--port", str(port)] if judge == "demo"
               else [sys.executable, str(REPO_ROOT / "cli.py"), "serve-local", "--port", str(port)])
    child = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    wait_for(url, 60 if judge == "demo" else 600)
    return url, child


def without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: without_timings(sub) for key, sub in value.items() if key not in TIMING_KEYS}
    if isinstance(value, list):
        return [without_timings(sub) for sub in value]
    return value


def in_node_order(outcome: dict) -> dict:
    """`outcome` with its trace's events grouped by node (a stable sort: each node's events keep
    their order), see the module docstring."""
    trace = outcome.get("trace")
    if not isinstance(trace, dict) or not isinstance(trace.get("nodes"), list):
        return outcome
    nodes = sorted(trace["nodes"], key=lambda event: str(event.get("node")) if isinstance(event, dict) else "")
    return outcome | {"trace": trace | {"nodes": nodes}}


def bench_inputs(data_root: Path, rows: int, folder: Path) -> list[Path]:
    """`rows` report rows of each bench set as one JSONL batch per set, in `folder`."""
    written = []
    for name, bench in SETS.items():
        chosen = select_rows(load_rows(sample_path(name, data_root)), bench, rows, "report")[:rows]
        path = folder / f"bench-{name}.jsonl"
        path.write_text("".join(json.dumps({"id": row["id"], **bench.to_item(row)}, ensure_ascii=False) + "\n" for row in chosen),
                        encoding="utf-8")
        written.append(path)
    return written


def example_inputs() -> list[Path]:
    examples = REPO_ROOT / "examples"
    return sorted(path for path in examples.iterdir() if path.suffix in (".json", ".jsonl", ".csv"))


def judge_input(tree: Path, source: Path, flags: list[str], work: Path) -> dict:
    """One input judged by the checkout at `tree`: its normalised outputs."""
    env = dict(os.environ, PYTHONPATH=str(tree.with_name(tree.name + ".py")))
    trace = work / f"{source.stem}.trace.json"
    out = work / f"{source.stem}.results.jsonl"
    for stale in (trace, out):
        stale.unlink(missing_ok=True)
    single = source.suffix == ".json" and isinstance(json.loads(source.read_text(encoding="utf-8")), dict)
    command = [sys.executable, str(tree / "cli.py"), "evaluate", str(source), *flags]
    command += ["--trace-out", str(trace)] if single else ["--out", str(out), "--concurrency", "1"]
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, check=False)
    outcome: dict[str, Any] = {"exit": done.returncode}
    try:
        outcome["printed"] = without_timings(json.loads(done.stdout)) if single else None
    except ValueError:
        outcome["printed"] = done.stdout
    if trace.exists():
        outcome["trace"] = without_timings(json.loads(trace.read_text(encoding="utf-8")))
    if out.exists():
        records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line.strip()]
        outcome["records"] = sorted((without_timings(record) for record in records), key=lambda r: str(r.get("id")))
    outcome["stderr_lines"] = len(done.stderr.splitlines())
    return outcome


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    if type(a) is not type(b):
        return f"{path or '/'}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return f"{path}/{key}: only on {'the second' if key in b else 'the first'}"
            found = first_difference(a[key], b[key], f"{path}/{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} vs {len(b)} entries"
        for index, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}[{index}]")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {str(a)[:80]!r} vs {str(b)[:80]!r}"


def run_side(side: Side, inputs: list[Path], proxy: CountingProxy, flags: list[str], out_dir: Path) -> Path:
    folder = out_dir / side.key
    folder.mkdir(parents=True, exist_ok=True)
    tree = checkout(side, out_dir)
    work = folder / "work"
    work.mkdir(exist_ok=True)
    for source in inputs:
        target = folder / f"{source.name}.json"
        if target.exists():
            continue
        tag = f"{side.key}/{source.name}"
        proxy.set_session({"item": tag, "metric": None, "attempt": None})
        outcome = judge_input(tree, source, flags, work)
        requests = [body.decode("utf-8", "replace") for item, body in proxy.bodies or [] if item == tag]
        outcome["requests"] = {"count": len(requests),
                               "sha256": sorted(hashlib.sha256(body.encode()).hexdigest() for body in requests)}
        (folder / f"{source.name}.requests.jsonl").write_text("".join(body + "\n" for body in requests), encoding="utf-8")
        target.write_text(json.dumps(outcome, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
        print(f"same_results: {side.label} ({side.key}) {source.name}: exit {outcome['exit']}, "
              f"{len(requests)} requests", file=sys.stderr, flush=True)
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.same_results", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--revs", required=True, help=f"two revisions, comma-separated ({WORKTREE} = the working tree)")
    parser.add_argument("--judge", default="demo", help="demo, local, or an OpenAI-compatible URL")
    parser.add_argument("--model", default=None, help="the model name to send (default: demo / local's)")
    parser.add_argument("--rows", type=int, default=5, help="report rows per bench set (default 5)")
    parser.add_argument("--data-root", type=Path, default=DEFAULT_DATA_ROOT)
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_OUT_DIR)
    args = parser.parse_args(argv)
    revisions = [name.strip() for name in args.revs.split(",") if name.strip()]
    if len(revisions) != 2:
        parser.error("--revs takes two revisions")
    judge_name = args.judge if args.judge in ("demo", "local") else "url-" + hashlib.sha256(args.judge.encode()).hexdigest()[:8]
    out_dir = (args.out_dir / judge_name).resolve()
    (out_dir / "inputs").mkdir(parents=True, exist_ok=True)
    inputs = example_inputs() + bench_inputs(args.data_root, args.rows, out_dir / "inputs")
    sides = [working_tree_side() if name == WORKTREE else base_side(name) for name in revisions]
    upstream, child = start_judge(args.judge)
    proxy = CountingProxy(upstream, keep_bodies=True).start()
    model = args.model or ("demo" if args.judge == "demo" else "qwen2.5-coder-1.5b-instruct-q4_k_m")
    flags = ["--base-url", proxy.base_url, "--model", model, "--api-key", "unused"]
    try:
        folders = [run_side(side, inputs, proxy, flags, out_dir) for side in dict.fromkeys(sides)]
    finally:
        proxy.stop()
        if child is not None:
            child.terminate()
            child.wait(timeout=60)
    if len(folders) == 1:
        print(f"same_results: {revisions[0]} and {revisions[1]} are the same tree: nothing to compare")
        return 0
    differences = 0
    for source in inputs:
        a, b = (in_node_order(json.loads((folder / f"{source.name}.json").read_text(encoding="utf-8")))
                for folder in folders)
        found = first_difference(a, b)
        differences += found is not None
        print(f"{source.name}: {'same' if found is None else 'DIFFERENT ' + found} "
              f"({a['requests']['count']} requests, exit {a['exit']})")
    print(f"{len(inputs) - differences} of {len(inputs)} inputs the same "
          f"({sides[0].label} {sides[0].key} vs {sides[1].label} {sides[1].key}, judge {args.judge})")
    return 1 if differences else 0


if __name__ == "__main__":
    raise SystemExit(main())
