"""Coverage, step 2: is each fact and conclusion present in the output? One task per element.

Key terms never come here: `enumerate_reference_elements` checks them in code
(`nodes.coverage.terms`) and stores them under the same `check_key(index)`.

Each fanned-out `check_reference_element` task (or the single batch call) asks for a quote
from the output, a justification and a yes/no. Code then looks for the quote in the output:
an element counts as matched only when the model says present AND the quote is really there,
so a judge cannot "find" an element by inventing the words that state it.

Results go into `judgments` under one key per element (`check_key(index)`), a dict merge
that parallel tasks cannot clobber; `nodes.coverage.result` reads them back by index.
"""

from __future__ import annotations

import time
from typing import TypedDict

from langgraph.runtime import Runtime

from ...llm.steps import Step
from ...llm.structured import StepOutcome, structured_step
from ...prompts import render_messages
from ...run.context import JudgeContext, resolved_context
from ...run.tracing import emit, event_from_outcome
from ...schemas.coverage import (
    BatchElementChecks,
    Category,
    CheckedElement,
    ElementCheck,
)
from ...text.quotes import quote_found
from .elements import BATCH_NODE, CHECK_NODE, check_key

QUOTE_REQUIRED = "quote: copy the words of the output that state the element (present is true but the quote is empty)"


class ElementTask(TypedDict):
    """The payload `enumerate_reference_elements` sends to each `check_reference_element` task."""

    index: int
    category: Category
    element: str
    input: str | None
    reference: str
    output: str


class BatchTask(TypedDict):
    input: str | None
    reference: str
    output: str
    elements: list[tuple[int, Category, str]]


def checked(index: int, category: Category, element: str, check: ElementCheck, output: str) -> CheckedElement:
    return CheckedElement(
        index=index, category=category, element=element, present=check.present,
        quote=check.quote, quote_found=quote_found(check.quote, [output]),
        justification=check.justification,
    )


def quote_when_present(check: ElementCheck) -> list[str]:
    """A "present" verdict must come with its quote; the repair loop asks for it."""
    return [QUOTE_REQUIRED] if check.present and not check.quote.strip() else []


def check_reference_element(task: ElementTask, runtime: Runtime[JudgeContext]) -> Step[dict]:
    started = time.perf_counter()
    context = yield from resolved_context(runtime.context)
    # No reference in the prompt: shown both texts, the 1.5B judge "quoted" the reference.
    messages = render_messages(
        CHECK_NODE, input=task["input"], reference=None, output=task["output"],
        category=task["category"], element=task["element"],
    )
    outcome = yield from structured_step(
        context.model, messages, ElementCheck,
        max_repairs=context.max_repairs, dialect=context.response_format, check=quote_when_present,
    )
    if outcome.value is not None:
        record = checked(task["index"], task["category"], task["element"], outcome.value, task["output"])
    else:
        record = CheckedElement(index=task["index"], category=task["category"],
                                element=task["element"], error=outcome.error)
    event = emit(runtime, event_from_outcome(
        CHECK_NODE, outcome, started, label=f"{task['category']} {task['index'] + 1}",
        detail=record.trace_detail(),
    ))
    stored = StepOutcome(record if outcome.ok else None, outcome.attempts, outcome.error)
    return {"judgments": {check_key(task["index"]): stored}, "trace": [event],
            "fanout_done": {CHECK_NODE: 1}}


def one_check_per_element(count: int):
    """Batch replies must check each element exactly once, and quote what they find."""

    def check(reply: BatchElementChecks) -> list[str]:
        numbers = sorted(entry.element for entry in reply.checks)
        expected = list(range(1, count + 1))
        problems = []
        if numbers != expected:
            problems.append(f"checks: give exactly one entry for each element number {expected}, got {numbers}")
        problems += [f"checks[element {e.element}].{QUOTE_REQUIRED}"
                     for e in reply.checks if e.present and not e.quote.strip()]
        return problems

    return check


def check_reference_elements_batch(task: BatchTask, runtime: Runtime[JudgeContext]) -> Step[dict]:
    started = time.perf_counter()
    context = yield from resolved_context(runtime.context)
    elements = task["elements"]
    messages = render_messages(
        BATCH_NODE, input=task["input"], reference=None, output=task["output"],
        elements=[(category, text) for _, category, text in elements],
    )
    outcome = yield from structured_step(
        context.model, messages, BatchElementChecks,
        max_repairs=context.max_repairs, dialect=context.response_format,
        check=one_check_per_element(len(elements)),
    )
    judgments: dict[str, StepOutcome] = {BATCH_NODE: outcome}
    records = []
    for number, (index, category, text) in enumerate(elements, start=1):
        if outcome.value is not None:
            entry = next(e for e in outcome.value.checks if e.element == number)
            record = checked(index, category, text, entry, task["output"])
        else:
            record = CheckedElement(index=index, category=category, element=text, error=outcome.error)
        records.append(record)
        judgments[check_key(index)] = StepOutcome(record if outcome.ok else None, [], outcome.error)
    event = emit(runtime, event_from_outcome(
        BATCH_NODE, outcome, started, detail={"elements": [r.trace_detail() for r in records]},
    ))
    return {"judgments": judgments, "trace": [event], "fanout_done": {BATCH_NODE: 1}}
