"""No import cycles among judgegraph's production modules, counting imports deferred into functions.

A deferred `import` inside a function still ties the two modules together: it only moves the
failure from import time to run time. So every `import`/`from ... import` statement in the
package's source counts, wherever it sits, and any cycle fails: there is no allow-list.

The package is the repository's root: its `__init__.py` and the package folders below it.
`tests/`, `benchmarks/`, `tools/` and `examples/` are not part of it. Importing `a.b.c` also
runs the `__init__.py` of `a.b` (unless the importer already lives inside `a.b`), so those
package modules count as imported too: a module that imports `evaluators.items` depends on
whatever `evaluators/__init__.py` imports. And `from a.b import x` names the package `a.b`
itself, so it counts as importing `a.b` even from inside it (`from . import feedback` in
`evaluators/factories.py` and `evaluators/__init__.py` importing `factories` are a cycle).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "judgegraph"
NOT_THE_PACKAGE = frozenset({"tests", "benchmarks", "tools", "examples", "docs"})


def module_files() -> dict[str, Path]:
    """judgegraph.<dotted name> -> source file, for the root package and every package folder."""
    modules = {PACKAGE: ROOT / "__init__.py"}
    for folder in sorted(ROOT.iterdir()):
        if folder.name in NOT_THE_PACKAGE or not (folder / "__init__.py").is_file():
            continue
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join([PACKAGE, *parts])] = path
    return modules


def _ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _absolute(base: str, level: int, package: str) -> str:
    if not level:
        return base
    anchor = package.split(".")[: len(package.split(".")) - level + 1]
    return ".".join(anchor + ([base] if base else []))


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules importing `name` runs: its imports' targets and their packages' `__init__`."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: list[str] = []
    named_packages: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module or "", node.level, package)
            # `from pkg import submodule` runs the submodule; `from pkg import name`, only pkg.
            targets += [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                        for alias in node.names]
            named_packages.add(base)
    own = set(_ancestors(name)) | {name}
    found = {base for base in named_packages if base in known and base != name}
    for target in targets:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if not target:
            continue
        found.update(m for m in (*_ancestors(target), target) if m in known and m not in own)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = module_files()
    known = set(modules)
    return {name: imports_of(name, path, known) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_walk_covers_the_package_and_nothing_else():
    graph = import_graph()
    for module in ("judgegraph", "judgegraph.graph.builder", "judgegraph.graph.rubrics",
                   "judgegraph.nodes.claims.check_claim", "judgegraph.commands.cli", "judgegraph.evaluators"):
        assert module in graph, module
    assert not any(name.split(".")[1] in NOT_THE_PACKAGE for name in graph if name != PACKAGE)


def test_the_checker_resolves_relative_and_deferred_imports_and_finds_a_planted_cycle():
    graph = import_graph()
    assert "judgegraph.graph.builder" in graph["judgegraph.graph.api"]  # `from .builder import ...`
    assert "judgegraph.graph.rubrics" in graph["judgegraph.graph.builder"]  # `from . import rubrics`
    assert "judgegraph.llm.models" in graph["judgegraph.run.context"]  # imported inside a function
    planted = {name: set(deps) for name, deps in graph.items()}
    planted["judgegraph.graph.builder"].add("judgegraph.graph.api")
    assert find_cycle(planted) is not None


def test_importing_a_submodule_counts_its_packages_init(tmp_path):
    source = tmp_path / "user.py"
    source.write_text("from ..evaluators.items import pick\nfrom . import sibling\n", encoding="utf-8")
    known = {"judgegraph", "judgegraph.batch", "judgegraph.batch.user", "judgegraph.batch.sibling",
             "judgegraph.evaluators", "judgegraph.evaluators.items"}
    assert imports_of("judgegraph.batch.user", source, known) == {
        "judgegraph.evaluators", "judgegraph.evaluators.items", "judgegraph.batch", "judgegraph.batch.sibling"}


def test_from_the_own_package_import_is_a_cycle_with_a_package_that_imports_back(tmp_path):
    init, factories = tmp_path / "__init__.py", tmp_path / "factories.py"
    init.write_text("from .factories import make_evaluator\n", encoding="utf-8")
    factories.write_text("from . import feedback\n", encoding="utf-8")
    known = {"judgegraph", "judgegraph.evaluators", "judgegraph.evaluators.factories",
             "judgegraph.evaluators.feedback"}
    graph = {"judgegraph.evaluators": imports_of("judgegraph.evaluators", init, known),
             "judgegraph.evaluators.factories": imports_of("judgegraph.evaluators.factories", factories, known)}
    assert find_cycle(graph) is not None


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for dep in graph[todo.pop()] - seen:
            seen.add(dep)
            todo.append(dep)
    return seen


def test_the_batch_runner_never_imports_the_cli():
    graph = import_graph()
    assert "judgegraph.commands.cli" not in reachable(graph, "judgegraph.batch.runner")
    assert not ("judgegraph.llm.models" in graph["judgegraph.llm.local"]
                and "judgegraph.llm.local" in graph["judgegraph.llm.models"])


def test_no_module_level_or_deferred_import_cycles():
    cycle = find_cycle(import_graph())
    assert cycle is None, " -> ".join(cycle or [])


LAYERS = {
    "text": 1, "schemas": 1, "prompts": 1,
    "calibration": 1.5,
    "llm": 2, "local_model": 2,
    "run": 3,
    "declarations": 3.5,
    "nodes": 4,
    "graph": 5,
    "telemetry": 5.5,
    "batch": 6, "stats": 6,
    "estimates": 6.2,
    "comparison": 6.4,
    "report": 6.6, "console": 6.6,
    "labelling": 6.8, "fitting": 6.8, "evaluators": 6.8, "testing": 6.8,
    "commands": 7,
}
"""Each package folder's layer in docs/architecture.md's table: a folder is in one layer. The
uses (6) are layered too: the batch and the statistics, then the estimates, the comparison (which
corrects a difference with the estimates), the views of all three (`report/`, `console/`), and
what is built on the views or on everything below (`labelling/`, `fitting/`, `evaluators/`)."""

ROOT_LAYER = 7
"""The root `__init__.py`, the package's face: `judgegraph.evaluate` & co. load `graph/` and
`judgegraph.estimate` loads `estimates/`, so it sits with the command line, above every folder."""


def _folder(module: str) -> str:
    return module.split(".")[1] if module != PACKAGE else PACKAGE


def _layer(module: str) -> float:
    folder = _folder(module)
    if folder == PACKAGE:
        return ROOT_LAYER
    assert folder in LAYERS, f"{folder}/ is in no layer: add it to docs/architecture.md's table and LAYERS"
    return LAYERS[folder]


def _upward_imports(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    return {(module, target) for module, targets in graph.items() for target in targets
            if _layer(target) > _layer(module)}


def folder_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """folder -> the other folders its modules import (the root `__init__.py` is `judgegraph`)."""
    folders: dict[str, set[str]] = {}
    for module, targets in graph.items():
        folders.setdefault(_folder(module), set()).update(
            _folder(target) for target in targets if _folder(target) != _folder(module))
    return folders


def test_every_package_folder_is_in_a_layer():
    folders = {_folder(module) for module in module_files()} - {PACKAGE}
    assert folders - set(LAYERS) == set(), "add the folder to docs/architecture.md's table and LAYERS"
    assert set(LAYERS) - folders == set(), "LAYERS names a folder that is not a package folder"


def test_no_import_runs_back_up_a_layer():
    """Every import statement of every module, the root `__init__.py` included, module-level or
    deferred into a function (a lazy `from ..graph import api` counts as much as one at the top),
    and the `__init__` of every package it runs: none targets a higher layer."""
    assert _upward_imports(import_graph()) == set()


def test_no_folder_imports_a_folder_above_it():
    """By folder too, no arrow runs back up: the run's state and context (`run/`, below the
    rubrics) and the builder with the nodes every item runs (`graph/`, above them) are two
    folders, as are `calibration/` (profiles and decisions, below the nodes) and `fitting/`
    (which re-scores with the nodes, above them); the estimates read labels through
    `schemas/labels_file.py`, below them, not through `labelling/`, above them."""
    arrows = {(folder, target) for folder, targets in folder_graph(import_graph()).items() for target in targets
              if (ROOT_LAYER if target == PACKAGE else LAYERS[target])
              > (ROOT_LAYER if folder == PACKAGE else LAYERS[folder])}
    assert arrows == set()


def test_no_cycle_among_folders():
    """Folders of one layer may import each other, but never both ways round, directly or
    through others: read folder by folder, the package is a tree of layers."""
    cycle = find_cycle(folder_graph(import_graph()))
    assert cycle is None, " -> ".join(cycle or [])


def test_the_layer_check_sees_an_import_back_up():
    planted = {name: set(deps) for name, deps in import_graph().items()}
    planted["judgegraph.calibration.profile"].add("judgegraph.fitting.recompute")
    assert _upward_imports(planted) == {("judgegraph.calibration.profile", "judgegraph.fitting.recompute")}


def test_the_layer_check_sees_the_uses_and_the_root():
    """Inside the uses' layer and at the root: the estimates reading labels from `labelling/`,
    and the batch reading the version from the root package, are imports back up."""
    planted = {name: set(deps) for name, deps in import_graph().items()}
    planted["judgegraph.estimates.estimate"].add("judgegraph.labelling.session")
    planted["judgegraph.batch.provenance"].add("judgegraph")
    assert _upward_imports(planted) == {("judgegraph.estimates.estimate", "judgegraph.labelling.session"),
                                        ("judgegraph.batch.provenance", "judgegraph")}
    planted = {folder: set(targets) for folder, targets in folder_graph(import_graph()).items()}
    planted["batch"].add("report")
    assert find_cycle(planted) is not None
