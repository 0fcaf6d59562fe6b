"""What installs is the judge alone: no test hooks, and nothing that reaches into the
repository-only folders (tests/, benchmarks/) or, from the batch, into the command line.

The installed modules are the package folders pyproject lists; each import statement counts,
wherever it sits (a deferred import still needs the module at run time).
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def installed_files() -> dict[str, Path]:
    """Dotted module name -> source file, for every module of the packages pyproject lists."""
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    modules = {}
    for package in packages:
        folder = ROOT.joinpath(*package.split(".")[1:])
        for path in folder.glob("*.py"):
            name = package if path.stem == "__init__" else f"{package}.{path.stem}"
            modules[name] = path
    return modules


def absolute_imports(name: str, path: Path) -> set[str]:
    """Every module an import statement in `path` names, relative ones made absolute."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def test_the_scan_sees_every_package_folder():
    modules = installed_files()
    assert {"judgegraph.batch.runner", "judgegraph.stats", "judgegraph.commands.cli", "judgegraph.cli"} <= set(modules)


def test_no_installed_module_imports_tests_or_benchmarks():
    offenders = {name: sorted(target for target in absolute_imports(name, path)
                              if target.split(".")[0] in ("tests", "benchmarks"))
                 for name, path in installed_files().items()}
    assert not {name: found for name, found in offenders.items() if found}


def test_the_batch_never_imports_the_command_line():
    offenders = {name: sorted(target for target in absolute_imports(name, path)
                              if target.startswith("judgegraph.commands"))
                 for name, path in installed_files().items() if name.startswith("judgegraph.batch")}
    assert not {name: found for name, found in offenders.items() if found}


def test_no_test_hook_is_left_in_the_package():
    for name, path in installed_files().items():
        text = path.read_text(encoding="utf-8")
        assert "JUDGEGRAPH_FAKE_MODEL" not in text and "DEFAULT_MAX_CONCURRENCY" not in text, name
