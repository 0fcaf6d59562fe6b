"""Coverage, step 3: is the output organised comparably to the reference? (1 yes, 0 no)

Sent by `enumerate_reference_elements` alongside the element checks, so it runs while they
run, and only for references that have facts (otherwise the score is 0 by rule and the
call would be wasted).
"""

from __future__ import annotations

from typing import TypedDict

from langgraph.runtime import Runtime

from ...llm.steps import Step
from ...run.context import JudgeContext
from ...run.judgment_step import run_judgment
from ...schemas.coverage import OrganizationJudgment
from .elements import ORGANIZATION_NODE


class OrganizationTask(TypedDict):
    input: str | None
    reference: str
    output: str


def organization_ratio(judgment: OrganizationJudgment) -> int:
    """The seed's organization_ratio: 1 for a comparable structure, 0 for a very different one."""
    return 1 if judgment.structure == "comparable" else 0


def judge_organization(task: OrganizationTask, runtime: Runtime[JudgeContext]) -> Step[dict]:
    update = yield from run_judgment(
        ORGANIZATION_NODE, OrganizationJudgment, runtime,
        input=task["input"], reference=task["reference"], output=task["output"],
    )
    return update | {"fanout_done": {ORGANIZATION_NODE: 1}}
