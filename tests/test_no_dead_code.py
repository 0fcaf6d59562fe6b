"""What issue 56 found unused or private stays gone: helpers nothing called, a property only
tests read, and LangGraph's private `_internal` package (its public names serve as well)."""

from __future__ import annotations

import ast
import importlib

import pytest

from tests.test_import_cycles import ROOT, module_files


@pytest.mark.parametrize(("module", "name"), [
    ("judgegraph.telemetry.attributes", "step_name"),
    ("judgegraph.text.visible", "has_unsafe"),
    ("judgegraph.text.stems", "has_stemmer"),
    ("judgegraph.llm.structured", "_learned_dialects"),
])
def test_an_unused_helper_is_gone(module, name):
    assert not hasattr(importlib.import_module(module), name)


def test_rag_input_has_no_selected_metrics_property():
    from judgegraph.schemas.rag import RagInput

    assert not hasattr(RagInput, "selected_metrics")


def test_no_module_imports_langgraphs_private_package():
    private = []
    for path in module_files().values():
        relative = path.relative_to(ROOT)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
            private += [f"{relative}: {name}" for name in names if name.startswith("langgraph._internal")]
    assert private == []
