"""What a rubric declares: the one type each rubric folder fills in and every consumer reads.

Each rubric folder declares itself once (`nodes/<rubric>/rubric.py`, `RUBRIC = RubricSpec(...)`)
and `nodes.rubrics` lists the declarations. The graph builder, input validation and finalize
read them from there. This module imports no rubric and nothing of the graph, so both sides
can import it without a cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
    """Everything judgegraph knows about one rubric."""

    name: str
    signature_keys: tuple[str, ...]
    """An item holding any of these keys is auto-detected as this rubric."""
    field_labels: Mapping[str, str]
    """Human names of input fields, for failure reasons ("missing user question")."""
    input_model: type[BaseModel]
    output_models: tuple[type[BaseModel], ...]
    """The pydantic models its outputs are: the judged shape first, then any other failure shape."""
    nodes: tuple[NodeSpec, ...]
    """Every node the rubric may run (entry nodes and fanned-out ones)."""
    plan: Callable[[Any], list[str]]
    """Node names to run for a validated input."""
    build_result: Callable[[Mapping[str, Any], Any], BaseModel]
    """(finished state, validated input) -> the typed output."""
    build_failure: Callable[[str], BaseModel]
    """reason -> the typed failure output, with no model call."""

    def finalize(self, state: Mapping[str, Any], validated: Any) -> dict:
        """The seed-shaped output: the typed result, serialised here, at the graph's edge."""
        return self.build_result(state, validated).model_dump()

    def failed(self, reason: str) -> dict:
        """The seed-shaped failure output for `reason`."""
        return self.build_failure(reason).model_dump()
