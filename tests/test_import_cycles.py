"""No import circles between judgegraph's modules, counting imports deferred into functions.

A deferred `import cli` inside a function still ties the two modules together: it only moves
the failure from import time to run time. So every `import`/`from ... import` statement in
the package's source counts, wherever it sits. The batch runner must not import the CLI at all.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("graph", "nodes", "prompts", "schemas", "llm", "console", "local_model", "batch", "benchmarks",
           "report", "evaluators", "judgegraph")


def module_files() -> dict[str, Path]:
    """judgegraph.<dotted name> -> source file, for every module that installs."""
    modules = {"judgegraph.commands.cli": ROOT / "cli.py"}
    for folder in FOLDERS:
        base = ROOT / folder
        if not base.is_dir():
            continue
        for path in base.rglob("*.py"):
            if path.is_symlink():
                continue
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            prefix = ["judgegraph"] if folder == "judgegraph" else ["judgegraph", folder]
            modules[".".join(prefix + parts)] = path
    return modules


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # `from pkg import submodule` depends on the submodule; `from pkg import name`, on pkg.
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = module_files()
    known = set(modules)
    return {name: imports_of(name, path, known) for name, path in modules.items()}


KNOWN_REGISTRY_CYCLE = {
    "judgegraph.nodes.rubrics", "judgegraph.nodes.rag.result", "judgegraph.nodes.expected_output.result",
    "judgegraph.nodes.liverag.result", "judgegraph.nodes.coverage.result", "judgegraph.nodes.claims.check",
}
"""The rubric registry's self-registration: `nodes.rubrics` loads the built-in rubric modules,
which import it to register. A known plug-in pattern, not one of the circles issue #12 removes;
only edges among exactly these modules are ignored, so any other circle still fails."""


def without_registry_cycle(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    return {
        name: {dep for dep in deps if not (name in KNOWN_REGISTRY_CYCLE and dep == "judgegraph.nodes.rubrics")}
        for name, deps in graph.items()
    }


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


def test_the_checker_sees_deferred_imports_and_finds_a_planted_cycle():
    graph = import_graph()
    assert "judgegraph.graph.builder" in graph["judgegraph.graph.api"]
    assert "judgegraph.llm.models" in graph["judgegraph.graph.context"]  # imported inside a function
    planted = {name: set(deps) for name, deps in without_registry_cycle(graph).items()}
    planted["judgegraph.graph.builder"].add("judgegraph.graph.api")
    assert find_cycle(planted) is not None


def test_the_two_circles_named_in_issue_12_are_gone():
    graph = import_graph()
    assert "judgegraph.commands.cli" not in graph["judgegraph.batch.runner"]
    assert not ("judgegraph.llm.models" in graph["judgegraph.llm.local"]
                and "judgegraph.llm.local" in graph["judgegraph.llm.models"])


def test_no_module_level_or_deferred_import_cycles():
    cycle = find_cycle(without_registry_cycle(import_graph()))
    assert cycle is None, " -> ".join(cycle or [])
