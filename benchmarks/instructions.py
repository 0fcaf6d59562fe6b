"""The graph's own work per item as instructions, against the frameworks' floor: a figure that
other processes on the machine cannot move.

    python -m benchmarks.instructions [--items 5,25]

Why: `benchmarks.overhead` reads CPU seconds, and on a shared 2-core machine those move by 10-20 %
between runs minutes apart (the floor alone read 3.2 to 4.3 ms in one hour). valgrind's callgrind
counts the instructions a process executes, the same on every run. Each side (our item through
`arun_evaluation`, as in `benchmarks.overhead`'s orchestration pass; the floor, an empty graph
of the same shape whose judging nodes make the 7 model calls, `benchmarks.framework_floor`; and
that floor's graph and calls apart, the empty graph then the 7 calls bare) runs twice in a child
under callgrind, with few and with more items after the same warm-up; the difference divided by
the difference in items is the work per item, free of imports and start-up.

Instructions are not seconds: code that misses the CPU's caches more costs more time per
instruction, so the two ratios differ (docs/benchmarks.md, "Graph overhead"). Needs `valgrind`
on PATH (Debian: `apt-get install valgrind`); takes a few minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WARM_UP_ITEMS = 3


def _our_items(count: int) -> None:
    from judgegraph.graph.api import arun_evaluation, default_graph

    from benchmarks.overhead import SEVEN_CALLS, _check, _context
    from tests.support.latency_judge import item

    context, _ = _context(0.0, 3, SEVEN_CALLS)
    default_graph()

    async def runs(n: int) -> None:
        for _ in range(n):
            _check(await arun_evaluation(item(), model=context))

    asyncio.run(runs(WARM_UP_ITEMS))
    asyncio.run(runs(count))


def _floor_items(count: int, calls_in_nodes: bool = True) -> None:
    """The floor's items (`benchmarks.framework_floor`): its graph with the calls in its nodes, or
    (`calls_in_nodes=False`) the empty graph followed by the same calls made bare."""
    from benchmarks.framework_floor import MESSAGES, OPTIONS, calls_per_item, graph_of_the_same_shape
    from tests.support.latency_judge import FixedLatencyJudge

    model = FixedLatencyJudge(latency_s=0.0, claims=3)
    graph = graph_of_the_same_shape(3, model if calls_in_nodes else None)

    async def runs(n: int) -> None:
        for _ in range(n):
            await graph.ainvoke({"item": {}, "done": []})
            if not calls_in_nodes:
                for _ in range(calls_per_item(3)):
                    await model.ainvoke(MESSAGES, **OPTIONS)

    asyncio.run(runs(WARM_UP_ITEMS))
    asyncio.run(runs(count))


def _floor_items_apart(count: int) -> None:
    _floor_items(count, calls_in_nodes=False)


SIDES = {"ours": _our_items, "floor": _floor_items, "floor_apart": _floor_items_apart}


def instructions(side: str, items: int, workdir: Path) -> int:
    """Instructions callgrind counts for a child that judges `items` items on `side`."""
    out = workdir / f"callgrind.{side}.{items}.out"
    child = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-m",
         "benchmarks.instructions", "--child", side, str(items)],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )
    found = re.search(r"Collected : (\d+)", child.stderr)
    if child.returncode != 0 or found is None:
        raise RuntimeError(f"callgrind run of {side} x {items} failed: {child.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", default="5,25", help="the two item counts per side (default 5,25)")
    parser.add_argument("--child", nargs=2, metavar=("SIDE", "ITEMS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        SIDES[args.child[0]](int(args.child[1]))
        return 0
    if shutil.which("valgrind") is None:
        print("benchmarks.instructions needs valgrind on PATH (apt-get install valgrind)", file=sys.stderr)
        return 2
    few, more = (int(n) for n in args.items.split(","))
    per_item = {}
    with tempfile.TemporaryDirectory() as workdir:
        for side in SIDES:
            counts = [instructions(side, n, Path(workdir)) for n in (few, more)]
            per_item[side] = (counts[1] - counts[0]) / (more - few)
            print(f"[instructions] {side}: {counts[0]:,} for {few} items, {counts[1]:,} for {more}: "
                  f"{per_item[side] / 1e6:.2f} M per item", file=sys.stderr)
    print(f"ours {per_item['ours'] / 1e6:.2f} M instructions per item, the frameworks' floor "
          f"{per_item['floor'] / 1e6:.2f} M: {per_item['ours'] / per_item['floor']:.2f}x "
          f"(the floor's graph and calls measured apart: {per_item['floor_apart'] / 1e6:.2f} M, "
          f"{per_item['ours'] / per_item['floor_apart']:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
