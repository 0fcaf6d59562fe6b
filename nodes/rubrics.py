"""The rubric registry: how a rubric is recognised, validated, planned and finalised.

One graph serves every rubric. Each rubric declares the keys that identify its items, its
input schema, which nodes it needs, and two pure functions: one that turns the finished state
into its seed-shaped output, and one that gives its own failure shape for invalid input.
Adding a rubric means adding one entry here (and its nodes to `graph.builder`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel


@dataclass(frozen=True)
class NodeSpec:
    """A node a rubric needs. Nodes shared by rubrics (same name) are added once."""

    name: str
    action: Callable[..., Any]
    destinations: tuple[str, ...] | None = None
    """For nodes that route with `Command(goto=...)`: where they may go. Nodes without
    destinations get a plain edge to `finalize`."""


@dataclass(frozen=True)
class RubricSpec:
    name: str
    input_model: type[BaseModel]
    signature_keys: tuple[str, ...]
    """An item holding any of these keys is auto-detected as this rubric."""
    field_labels: dict[str, str]
    """Human names of input fields, for failure reasons ("missing user question")."""
    plan: Callable[[Any], list[str]]
    """Node names to run for a validated input."""
    finalize: Callable[[dict, Any], dict]
    """(state, validated input) -> the seed-shaped output."""
    failed: Callable[[str], dict]
    """reason -> the seed's failure shape, with no model call."""
    nodes: tuple[NodeSpec, ...] = ()
    """Every node the rubric may run (entry nodes and fanned-out ones)."""


_REGISTRY: dict[str, RubricSpec] = {}
_PRIORITIES: dict[str, int] = {}


def register(spec: RubricSpec, *, detect_priority: int) -> None:
    """Add a rubric; lower `detect_priority` is tried first when auto-detecting, so rubrics
    with distinctive keys (`output_text`, `documents`) win over the generic `rag` keys."""
    _REGISTRY[spec.name] = spec
    _PRIORITIES[spec.name] = detect_priority

DEFAULT_RUBRIC = "rag"
"""The rubric whose failure shape is used when no rubric can be told from the item."""


def get(name: str) -> RubricSpec:
    return _REGISTRY[name]


def names() -> list[str]:
    """Registered rubric names in detection order."""
    return sorted(_REGISTRY, key=_PRIORITIES.__getitem__)


def detect(item: dict) -> str | None:
    """The rubric an item's keys point to, most specific first."""
    for name in names():
        if any(key in item for key in _REGISTRY[name].signature_keys):
            return name
    return None


def all_nodes() -> list[NodeSpec]:
    """Every node of every registered rubric, once each, in registration order."""
    unique: dict[str, NodeSpec] = {}
    for spec in _REGISTRY.values():
        for node in spec.nodes:
            unique.setdefault(node.name, node)
    return list(unique.values())


def _load_builtin_rubrics() -> None:
    """Each import registers one rubric."""
    from .rag import result as rag_result  # noqa: F401
    from .expected_output import result as expected_output_result  # noqa: F401
    from .liverag import result as liverag_result  # noqa: F401
    from .coverage import result as coverage_result  # noqa: F401


_load_builtin_rubrics()
