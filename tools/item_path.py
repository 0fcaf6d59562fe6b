"""The path of one item through the package: which files run, and how often a call climbs
back up a layer.

    python tools/item_path.py [examples/rag_item.json] [--pairs] [--files]

Why: docs/architecture.md follows one item from `commands/cli.py` to its printed JSON and
orders the package in layers; a newcomer who follows that item meets every file it crosses,
and every call from a lower layer into a higher one (a callback, a driver resuming a node)
is a place where reading top-down stops working. This counts both, so a refactor can say
whether the corridor got shorter.

How: the demo judge (`tests/support/demo_judge.py`, fake replies, no model) is started on
127.0.0.1 in a subprocess, and `judgegraph evaluate ITEM --base-url ...` runs in this process
under `sys.setprofile` (and `threading.setprofile`, for LangGraph's worker threads). Each call
of a function defined in a package file is recorded with its caller: the nearest package
frame below it on the stack (library frames in between, LangGraph's runner for instance, are
skipped; a call with no package frame below it, in a worker thread, has no caller). Code run
while a module is imported (a `<module>` frame on the stack) is not the item's path and is
left out. Each file is mapped to its layer by `LAYERS` below, docs/architecture.md's table.

Repository-only (not installed); it prints, it changes nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPOSITORY_ONLY = ("tests/", "benchmarks/", "tools/", "examples/", "docs/")

LAYERS: tuple[tuple[str, float, str], ...] = (
    # (path prefix, layer, name), the longest matching prefix wins; docs/architecture.md's table
    ("text/", 1, "data"), ("schemas/", 1, "data"), ("prompts/", 1, "data"),
    ("calibration/", 1.5, "decisions"),
    ("llm/", 2, "models"), ("local_model/", 2, "models"),
    ("run/", 3, "run"), ("declarations/", 3.5, "declarations"),
    ("nodes/", 4, "rubrics"),
    ("graph/", 5, "graph"),  # the registry, the nodes every item runs, the builder, the API, the served graph
    ("telemetry/", 5.5, "telemetry"),
    ("batch/", 6, "batches"), ("stats/", 6, "batches"),
    ("estimates/", 6.2, "estimates"),
    ("comparison/", 6.4, "comparison"),
    ("report/", 6.6, "views"), ("console/", 6.6, "views"),
    ("labelling/", 6.8, "built on the views"), ("fitting/", 6.8, "built on the views"),
    ("evaluators/", 6.8, "built on the views"), ("testing/", 6.8, "built on the views"),
    ("commands/", 7, "command line"), ("cli.py", 7, "command line"), ("__init__.py", 7, "command line"),
)
"""Where each package file sits (tests/test_import_cycles.py holds the same table by folder);
the root `__init__.py` is the package's face, counted with the command line above everything."""


def layer_of(relative: str) -> float:
    matches = [(len(prefix), layer) for prefix, layer, _ in LAYERS
               if relative == prefix or (prefix.endswith("/") and relative.startswith(prefix))]
    if not matches:
        raise SystemExit(f"item_path: {relative} has no layer in LAYERS; add it (docs/architecture.md)")
    return max(matches)[1]


class PathRecorder:
    """The profile function: package files whose functions run, and caller -> callee file pairs."""

    def __init__(self, package_root: Path):
        # the package as imported and as resolved: a symlinked checkout names its files either way
        self.prefixes = tuple({str(package_root) + os.sep, str(package_root.resolve()) + os.sep})
        self.files: Counter[str] = Counter()
        self.pairs: Counter[tuple[str, str]] = Counter()
        self._relative: dict[str, str | None] = {}

    def relative(self, filename: str) -> str | None:
        """The package-relative path of a package file, else None (libraries, repository-only)."""
        known = self._relative.get(filename, "?")
        if known != "?":
            return known
        found = None
        for prefix in self.prefixes:
            if filename.startswith(prefix):
                candidate = filename[len(prefix):].replace(os.sep, "/")
                if not candidate.startswith(REPOSITORY_ONLY):
                    found = candidate
                break
        self._relative[filename] = found
        return found

    def __call__(self, frame, event, _arg):
        if event != "call":
            return
        callee = self.relative(frame.f_code.co_filename)
        if callee is None or frame.f_code.co_name == "<module>":
            return
        caller = None
        below = frame.f_back
        while below is not None:
            if below.f_code.co_name == "<module>" and below.f_globals.get("__name__") != "__main__":
                return  # run while importing a module: not the item's path
            if caller is None:
                caller = self.relative(below.f_code.co_filename)
            below = below.f_back
        self.files[callee] += 1
        if caller is not None and caller != callee:
            self.pairs[(caller, callee)] += 1


@contextlib.contextmanager
def demo_judge():
    """The demo judge's base URL, served from a subprocess for the duration."""
    process = subprocess.Popen([sys.executable, "-m", "tests.support.demo_judge"], cwd=ROOT,
                               stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        line = process.stdout.readline()
        if " at " not in line:
            raise SystemExit(f"item_path: the demo judge did not start: {line!r}")
        yield line.rsplit(" at ", 1)[1].strip()
    finally:
        process.terminate()
        process.wait(timeout=10)


def record(item: Path) -> PathRecorder:
    import judgegraph
    from judgegraph.commands.cli import main

    recorder = PathRecorder(Path(judgegraph.__file__).parent)
    with demo_judge() as base_url:
        argv = ["evaluate", str(item), "--base-url", base_url, "--model", "demo"]
        printed = io.StringIO()
        threading.setprofile(recorder)
        sys.setprofile(recorder)
        try:
            with contextlib.redirect_stdout(printed):
                code = main(argv)
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
    if not printed.getvalue().lstrip().startswith("{"):
        raise SystemExit(f"item_path: evaluate printed no JSON (exit {code})")
    return recorder


def files_by_folder(files: Iterable[str]) -> dict[str, list[str]]:
    """The files crossed under their top-level folder (`batch/`, `graph/`; `.` for the root's
    files), folders in layer order: whether the one-item path enters `batch/` reads at a glance."""
    grouped: dict[str, list[str]] = {}
    for name in sorted(files, key=lambda name: (layer_of(name), name)):
        folder, _, rest = name.partition("/")
        grouped.setdefault(f"{folder}/" if rest else ".", []).append(rest or folder)
    return grouped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("item", nargs="?", default=str(ROOT / "examples" / "rag_item.json"))
    parser.add_argument("--pairs", action="store_true", help="also list every caller -> callee file pair")
    parser.add_argument("--files", action="store_true", help="also list the files crossed, by folder")
    args = parser.parse_args(argv)
    recorder = record(Path(args.item))
    upward = sorted((pair, count) for pair, count in recorder.pairs.items() if layer_of(pair[0]) < layer_of(pair[1]))
    print(f"files crossed: {len(recorder.files)}")
    print(f"caller -> callee file pairs: {len(recorder.pairs)} ({sum(recorder.pairs.values())} calls)")
    print(f"calls from a lower layer into a higher one: {sum(count for _, count in upward)} "
          f"({len(upward)} distinct file pairs)")
    for (caller, callee), count in upward:
        print(f"  {caller} ({layer_of(caller):g}) -> {callee} ({layer_of(callee):g}): {count}")
    by_layer = Counter(layer_of(name) for name in recorder.files)
    print("files per layer: " + ", ".join(f"{layer:g}: {by_layer[layer]}" for layer in sorted(by_layer)))
    by_folder = files_by_folder(recorder.files)
    print("files per folder: " + ", ".join(f"{folder} {len(names)}" for folder, names in by_folder.items()))
    if args.files:
        for folder, names in by_folder.items():
            print(f"  {folder}: {', '.join(names)}")
    if args.pairs:
        for (caller, callee), count in sorted(recorder.pairs.items()):
            print(f"  {caller} -> {callee}: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
