"""The built wheel installs everything under `judgegraph.` and nothing generic at top level.

The repository's root is the package (pyproject: `package-dir = {"judgegraph" = "."}`), with an
explicit list of its subpackages so the repository-only folders (tests/, benchmarks/, tools/)
stay out of the wheel; the first tests check that list against the folders on disk.

The wheel is built from this checkout and installed into a fresh virtual environment whose
site-packages also holds unrelated top-level `graph` and `schemas` modules (the names an app
is most likely to have). Both must import, each as itself. The fresh venv gets judgegraph's
dependencies from the running environment through a `.pth` path line (plain path lines do not
run that environment's editable-install finder), so the test needs no network and no index.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NO_MODEL = ["--base-url", "http://127.0.0.1:9/v1"]
"""A judge that is never called: the items below are invalid, judged by rule."""


def run(cmd: list[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300, env=env, **kwargs)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # Built from a copy without build/: setuptools builds in the source tree and would ship what
    # an earlier build left in build/lib (modules and templates since moved or deleted).
    source = tmp_path_factory.mktemp("source") / "judgegraph"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", "build", "dist", "*.egg-info", "__pycache__", ".venv", "bench-out", ".pytest_cache", ".hypothesis"))
    proc = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(source)], cwd=source.parent)
    assert proc.returncode == 0, proc.stderr[-2000:]
    [built] = out.glob("judgegraph-*.whl")
    return built


@pytest.fixture(scope="module")
def fresh_venv(wheel, tmp_path_factory) -> Path:
    venv = tmp_path_factory.mktemp("venv") / "v"
    proc = run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=venv.parent)
    assert proc.returncode == 0, proc.stderr
    python = venv / "bin" / "python"
    site = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                    cwd=venv.parent).stdout.strip())
    # Unrelated top-level modules an app might have, installed beside judgegraph.
    (site / "graph.py").write_text('WHO = "an unrelated graph module"\n')
    (site / "schemas").mkdir()
    (site / "schemas" / "__init__.py").write_text('WHO = "an unrelated schemas package"\n')
    proc = run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
               cwd=venv.parent)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # judgegraph's dependencies, from this environment (after the wheel, so they rank last).
    deps = [p for p in sys.path if p.endswith("site-packages")]
    (site / "zz_judgegraph_test_deps.pth").write_text("\n".join(deps) + "\n")
    return venv


REPOSITORY_ONLY = {"tests", "benchmarks", "tools", "examples", "docs", "build", "dist", "bench-out"}
"""Folders of the checkout that never install (`bench-out/`, git-ignored, holds the regression
check's checkouts of other revisions)."""


def package_folders() -> set[str]:
    """`judgegraph.<dotted folder>` for every folder of the checkout that holds an __init__.py."""
    found = {"judgegraph"}
    for init in ROOT.rglob("__init__.py"):
        parts = init.parent.relative_to(ROOT).parts
        if parts and parts[0] not in REPOSITORY_ONLY and not any(p.startswith(".") for p in parts):
            found.add(".".join(("judgegraph", *parts)))
    return found


def test_pyproject_lists_every_package_folder_and_nothing_repository_only():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-dir"] == {"judgegraph": "."}
    assert set(config["packages"]) == package_folders()


def test_wheel_has_one_top_level_package(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert tops == {"judgegraph"}
    for folder in ("graph", "nodes", "prompts", "schemas", "llm", "batch"):
        assert f"judgegraph/{folder}/__init__.py" in names
    assert "judgegraph/cli.py" in names
    assert any(name.startswith("judgegraph/prompts/") and name.endswith(".j2") for name in names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    declared = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "judgegraph = judgegraph.commands.cli:main" in declared
    assert "[pytest11]\njudgegraph = judgegraph.testing.plugin" in declared  # assert_judged's plugin, on by default


def test_wheel_ships_no_test_or_benchmark_material(wheel):
    """Test doubles (tests/support), the benchmarks, the tools, examples and docs, and the
    baseline's prompts are repository-only. (That no installed module imports `tests` or
    `benchmarks` is checked on the sources, tests/test_shipped_code.py.)"""
    names = zipfile.ZipFile(wheel).namelist()
    assert "judgegraph/stats/__init__.py" in names
    shipped = [name for name in names if not name.split("/")[0].endswith(".dist-info")]
    assert not [name for name in shipped if name.split("/")[1] in REPOSITORY_ONLY
                or "/tests/" in name or "/benchmarks/" in name
                or name.rsplit("/", 1)[-1].startswith("baseline_")]


def test_wheel_imports_beside_unrelated_graph_and_schemas_modules(fresh_venv, tmp_path):
    script = textwrap.dedent("""
        import json
        import graph  # the unrelated top-level module, not judgegraph's
        import schemas
        from judgegraph.graph import build_graph, evaluate
        from judgegraph.prompts import environment
        import judgegraph, judgegraph.schemas

        compiled = build_graph().compile()
        environment().get_template("extract_claims.j2")  # prompts ship as package data
        # Invalid input: judged by rule, no model call, so no model is needed here.
        result = evaluate({"question": "", "context": "c", "answer": "a"})
        print(json.dumps({
            "graph": graph.WHO, "schemas": schemas.WHO,
            "judgegraph": judgegraph.__file__, "judgegraph.schemas": judgegraph.schemas.__file__,
            "nodes": sorted(compiled.get_graph().nodes)[:3], "status": result["evaluation_status"],
            "reason": result["reason"],
        }))
    """)
    proc = run([str(fresh_venv / "bin" / "python"), "-c", script], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads(proc.stdout)
    assert seen["graph"] == "an unrelated graph module"
    assert seen["schemas"] == "an unrelated schemas package"
    assert str(fresh_venv) in seen["judgegraph"] and str(fresh_venv) in seen["judgegraph.schemas"]
    assert seen["status"] == "failed" and seen["reason"]


def test_console_script_of_the_wheel_runs(fresh_venv, tmp_path):
    item = tmp_path / "item.json"
    item.write_text(json.dumps({"question": "Q?", "context": "c", "answer": ""}))
    proc = run([str(fresh_venv / "bin" / "judgegraph"), "evaluate", str(item), *NO_MODEL], cwd=tmp_path)
    # an invalid item is not judged: exit 1, its reason on stderr (docs/exit-codes.md)
    assert proc.returncode == 1 and "the item was not judged" in proc.stderr, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["evaluation_status"] == "failed"


def test_python_cli_py_runs_from_a_checkout_with_the_wheel_installed(fresh_venv, tmp_path):
    """`python cli.py` from the repository root runs the installed package: the root's `cli.py` is
    only an entry point (`judgegraph.commands.cli.main`)."""
    item = tmp_path / "item.json"
    item.write_text(json.dumps({"question": "Q?", "context": "c", "answer": ""}))
    proc = run([str(fresh_venv / "bin" / "python"), "cli.py", "evaluate", str(item), *NO_MODEL], cwd=ROOT)
    # an invalid item is not judged: exit 1, its reason on stderr (docs/exit-codes.md)
    assert proc.returncode == 1 and "the item was not judged" in proc.stderr, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["evaluation_status"] == "failed"


def test_pytest_loads_the_installed_plugin_by_itself(fresh_venv, tmp_path):
    """Installed from the wheel, the plugin is on with no conftest line: its options are there."""
    proc = run([str(fresh_venv / "bin" / "python"), "-m", "pytest", "--help", "-p", "no:cacheprovider"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "--judgegraph-base-url" in proc.stdout and "judgegraph_cache_dir" in proc.stdout
