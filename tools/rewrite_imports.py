"""Rewrite old top-level imports (`from graph import ...`) to the `judgegraph.` namespace.

Why: judgegraph used to install eight generic top-level packages (`graph`, `nodes`, `schemas`,
...). They now install as `judgegraph.graph`, `judgegraph.nodes`, ... (pyproject's
`package-dir` maps the same folders), so every import has to say `judgegraph.`. This script
does that rewriting mechanically, so that a branch written against the old layout can be
converted after a merge by running it again:

    python tools/rewrite_imports.py            # rewrite the whole repository in place
    python tools/rewrite_imports.py --check    # list files that still need it; exit 1 if any

It is idempotent: a tree that already uses `judgegraph.` imports is left byte-for-byte alone.

What it rewrites (in *.py, and in the Python lines of *.md code blocks):
- `from graph import x` / `from graph.api import x`  -> `from judgegraph.graph... import x`
- `import cli`                                       -> `from judgegraph import cli`
- `import graph.api`                                 -> `from judgegraph import graph` plus
                                                        `import judgegraph.graph.api` (so both
                                                        the name and the submodule attribute exist)
- in *.py only, string literals naming a module of the tree, as used by monkeypatch, lazy
  export tables and `importlib` (`"llm.models.resolve_model"`, `"graph.api"`), and the bare
  package name passed to `find_spec(...)`, `resources.files(...)`, `import_module(...)` or
  `PackageLoader(...)`.
`tests` stays a top-level, uninstalled folder and is not touched; nor is this script.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

PACKAGES = ("graph", "nodes", "schemas", "prompts", "llm", "console", "batch", "benchmarks",
            "local_model", "cli")
"""Old top-level names; each now lives at `judgegraph.<name>` (`cli` is the root `cli.py`)."""

NAMESPACE = "judgegraph"
SKIP_DIRS = {".git", ".venv", "venv", "build", "dist", "__pycache__", ".pytest_cache", ".hypothesis",
             "node_modules"}
_NAMES = "|".join(PACKAGES)

FROM_RE = re.compile(rf"^(?P<indent>[ \t]*(?:>>> |\.\.\. )?)from (?P<mod>(?:{_NAMES})(?:\.\w+)*) import ",
                     re.MULTILINE)
IMPORT_RE = re.compile(
    rf"^(?P<indent>[ \t]*(?:>>> |\.\.\. )?)import (?P<mods>(?:{_NAMES})(?:\.\w+)*(?:[ \t]*,[ \t]*\w+(?:\.\w+)*)*)"
    rf"(?P<alias>[ \t]+as[ \t]+\w+)?(?P<rest>[ \t]*(?:#.*)?)$",
    re.MULTILINE,
)
STRING_RE = re.compile(rf"(?P<q>['\"])(?P<path>(?:{_NAMES})(?:\.\w+)+)(?P<tail>:\w+)?(?P=q)")
BARE_CALL_RE = re.compile(
    rf"(?P<call>\b(?:find_spec|files|import_module|PackageLoader)\()(?P<q>['\"])(?P<name>{_NAMES})(?P=q)"
)


def _module_exists(root: Path, dotted: str) -> bool:
    """Whether `dotted` starts with a submodule of the tree (`graph.api`, `llm.models.x`), or
    names something defined in `cli.py` (`cli.main`). File names (`"cli.py"`,
    `"benchmarks.json"`) are not modules and stay as they are."""
    parts = dotted.split(".")
    if parts[0] == "cli":
        cli = root / "cli.py"
        pattern = rf"^(?:def|class|async def) {re.escape(parts[1])}\b|^{re.escape(parts[1])}\s*[:=]"
        return cli.is_file() and re.search(pattern, cli.read_text(encoding="utf-8"), re.MULTILINE) is not None
    base = root.joinpath(*parts[:2])
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _rewrite_import(match: re.Match) -> str:
    indent, mods, alias, rest = match["indent"], match["mods"], match["alias"], match["rest"] or ""
    names = [m.strip() for m in mods.split(",")]
    if any(name.split(".")[0] not in PACKAGES for name in names):
        return match.group(0)  # a mixed `import os, graph` line: leave it for a human
    lines = []
    for name in names:
        head, _, sub = name.partition(".")
        if alias:
            target = f"{NAMESPACE}.{name}"
            package, _, leaf = target.rpartition(".")
            lines.append(f"{indent}from {package} import {leaf}{alias}{rest}")
        elif sub:
            lines.append(f"{indent}from {NAMESPACE} import {head}{rest}")
            lines.append(f"{indent}import {NAMESPACE}.{name}  # noqa: F401 - loads the submodule")
        else:
            lines.append(f"{indent}from {NAMESPACE} import {head}{rest}")
    return "\n".join(lines)


def rewrite_text(text: str, root: Path, *, python: bool) -> str:
    """The text with every old-style import (and, for Python, module-path string) converted."""
    text = FROM_RE.sub(lambda m: f"{m['indent']}from {NAMESPACE}.{m['mod']} import ", text)
    text = IMPORT_RE.sub(_rewrite_import, text)
    if python:
        text = STRING_RE.sub(
            lambda m: (f"{m['q']}{NAMESPACE}.{m['path']}{m['tail'] or ''}{m['q']}"
                       if _module_exists(root, m["path"]) else m.group(0)),
            text,
        )
        text = BARE_CALL_RE.sub(lambda m: f"{m['call']}{m['q']}{NAMESPACE}.{m['name']}{m['q']}", text)
    return text


def _rewrite_markdown(text: str, root: Path) -> str:
    """Only lines inside fenced code blocks: prose that says "from graph import" stays as is."""
    out, inside = [], False
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("```"):
            inside = not inside
            out.append(line)
        else:
            out.append(rewrite_text(line, root, python=False) if inside else line)
    return "".join(out)


def candidate_files(root: Path) -> list[Path]:
    me = Path(__file__).resolve()
    files = []
    for path in sorted(root.rglob("*")):
        if any(part in SKIP_DIRS for part in path.relative_to(root).parts):
            continue
        if path.suffix in (".py", ".md") and path.is_file() and not path.is_symlink() and path.resolve() != me \
                and "rewrite-imports: skip" not in path.read_text(encoding="utf-8", errors="ignore")[:2000]:
            files.append(path)
    return files


def rewrite_file(path: Path, root: Path) -> bool:
    """Rewrite one file in place; True if it changed."""
    text = path.read_text(encoding="utf-8")
    new = rewrite_text(text, root, python=True) if path.suffix == ".py" else _rewrite_markdown(text, root)
    if new == text:
        return False
    path.write_text(new, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--check", action="store_true", help="only list files that need rewriting")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    changed = []
    for path in candidate_files(root):
        if args.check:
            text = path.read_text(encoding="utf-8")
            new = rewrite_text(text, root, python=True) if path.suffix == ".py" else _rewrite_markdown(text, root)
            if new != text:
                changed.append(path)
        elif rewrite_file(path, root):
            changed.append(path)
    for path in changed:
        print(path.relative_to(root))
    print(f"{len(changed)} file(s) {'need rewriting' if args.check else 'rewritten'}", file=sys.stderr)
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
