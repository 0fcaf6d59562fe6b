"""The rubrics judgegraph knows, in detection order: the one list every consumer reads.

Each entry is a rubric's declaration (`nodes/<rubric>/rubric.py`; the type is
`declarations.rubric_spec.RubricSpec`). Auto-detection tries them in this order, so rubrics
with distinctive keys (`output_text`, `actualOutput`, `documents`) come before `rag`, whose
keys (`question`, `answer`, `context`) the others' items may hold too. Adding a rubric is one
more line in `RUBRICS`.
"""

from __future__ import annotations

from ..declarations.rubric_spec import NodeSpec, RubricSpec
from ..nodes.coverage import rubric as coverage
from ..nodes.expected_output import rubric as expected_output
from ..nodes.liverag import rubric as liverag
from ..nodes.rag import rubric as rag

RUBRICS: tuple[RubricSpec, ...] = (
    coverage.RUBRIC,
    expected_output.RUBRIC,
    liverag.RUBRIC,
    rag.RUBRIC,
)

DEFAULT_RUBRIC = rag.RUBRIC.name
"""The rubric whose failure shape is used when no rubric can be told from the item."""


def find(name: object) -> RubricSpec | None:
    """The declaration of rubric `name`, or None when no rubric is declared by that name (a
    results file written elsewhere, a record whose rubric is not a string)."""
    return next((spec for spec in RUBRICS if spec.name == name), None)


def get(name: str) -> RubricSpec:
    """The declaration of rubric `name` (KeyError for an unknown name)."""
    spec = find(name)
    if spec is None:
        raise KeyError(name)
    return spec


def names() -> list[str]:
    """Rubric names in detection order."""
    return [spec.name for spec in RUBRICS]


def detect(item: dict) -> str | None:
    """The rubric an item's keys point to, most specific first."""
    for spec in RUBRICS:
        if any(key in item for key in spec.signature_keys):
            return spec.name
    return None


def all_nodes() -> list[NodeSpec]:
    """Every node of every rubric, once each (shared nodes such as the claim pipeline's are
    declared by several rubrics), in the order of `RUBRICS`."""
    unique: dict[str, NodeSpec] = {}
    for spec in RUBRICS:
        for node in spec.nodes:
            unique.setdefault(node.name, node)
    return list(unique.values())
