"""The public functions a user calls (`graph/api.py`, `batch/api.py`, `evaluators/`) say what each argument is:
an `Args:` section naming every parameter, so an IDE's hover answers without the source."""

from __future__ import annotations

import importlib
import inspect

import pytest

MODULES = ("judgegraph.graph.api", "judgegraph.batch.api", "judgegraph.evaluators", "judgegraph.evaluators.factories",
           "judgegraph.evaluators.feedback", "judgegraph.evaluators.public_factories")


def public_functions():
    for name in MODULES:
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            if attribute.startswith("_") or not inspect.isfunction(value) or value.__module__ != name:
                continue
            yield pytest.param(value, id=f"{name}.{attribute}")


def argument_names(function) -> list[str]:
    names = []
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            names.append(f"**{parameter.name}")
        elif parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            names.append(f"*{parameter.name}")
        else:
            names.append(parameter.name)
    return names


@pytest.mark.parametrize("function", list(public_functions()))
def test_every_argument_of_a_public_function_is_described(function):
    names = argument_names(function)
    if not names:
        return
    doc = inspect.getdoc(function) or ""
    assert "\nArgs:\n" in doc, f"{function.__qualname__} has no Args section"
    section = doc.split("\nArgs:\n", 1)[1]
    described = {line.strip().split(":", 1)[0] for line in section.splitlines() if line.startswith("    ") and
                 not line.startswith("        ") and ":" in line}
    assert set(names) <= described, f"{function.__qualname__}: {sorted(set(names) - described)} not described"


def test_the_public_functions_are_found():
    found = {param.id for param in public_functions()}
    assert {"judgegraph.graph.api.evaluate", "judgegraph.graph.api.run_evaluation",
            "judgegraph.evaluators.create_rag_evaluator", "judgegraph.evaluators.feedback.feedback_rows"} <= found
