"""judgegraph beside RAGAS and DeepEval on the same judge server and the same embedder (issue #33).

Repository-only, never imported by judgegraph's code, and not collected by CI: the peers run
in their own virtual environment (`/work/peers-venv`, pins in `requirements.txt` beside this
file), judgegraph in its own. `run` is the command; see its docstring and docs/benchmarks.md.

The modules a peer's worker imports (`records`, `worker`, `ragas_side`, `deepeval_side`) use
the standard library and the peer's own packages only, so they run in the peers' venv; the
orchestrator, the proxy, the item builder and the summary run in judgegraph's venv.
"""
