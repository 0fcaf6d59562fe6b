"""Coverage, step 1: enumerate the reference's facts, conclusions and key terms, then fan out.

The model lists the elements; code then enforces what the seed defines but a model may not
respect: numbers are never terms, a conclusion that repeats a fact is the fact, and an
element listed twice is checked (and counted) once. Key terms are then checked here, in code
(`nodes.coverage.terms`: the seed's "explicitly present" is lexical, and the 1.5B judge marked
absent terms present). One `check_reference_element` task per fact and conclusion is sent (or
one `check_reference_elements_batch` call in batch mode), together with the
`judge_organization` task, so organization is judged while the elements are checked.
A reference with no fact fans out nothing: the rubric scores it 0 by rule.
"""

from __future__ import annotations

import re
import time
from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command, Send

from ...llm.steps import Step
from ...llm.structured import StepOutcome, structured_step
from ...prompts import render_messages
from ...run.context import JudgeContext, resolved_context
from ...run.state import JudgeState
from ...run.tracing import emit, event_from_outcome, plain_event
from ...schemas.coverage import CATEGORIES, Category, CoverageInput, ReferenceElements
from .terms import check_term

NODE = "enumerate_reference_elements"
CHECK_NODE = "check_reference_element"
BATCH_NODE = "check_reference_elements_batch"
ORGANIZATION_NODE = "judge_organization"

_CARDINALS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty "
    "ninety hundred hundreds thousand thousands million millions billion billions trillion "
    "trillions dozen dozens".split()
)
_NUMBER_GLUE = frozenset("a and percent per cent".split())
"""Words that only join or qualify numbers ("one hundred and five", "five percent")."""
_DIGIT_SUFFIXES = frozenset("s st nd rd th k m bn mn b x pct".split())
"""Letters that, next to digits, still make a figure ("1990s", "19th", "10k", "2x")."""
_LETTER_RUNS = re.compile(r"[^\W\d_]+")


def is_numeric_term(term: str) -> bool:
    """True for a number, amount or figure, in digits or in words: never a term (seed 003).

    "1995", "3.5%", "$20", "10 million", "1990s", "19th" and "five hundred" are numeric;
    "Second Amendment", "COVID-19" and "21st century" keep a word that is not a number.
    """
    words = {w.casefold() for w in _LETTER_RUNS.findall(term)}
    if not words:
        return True
    if any(ch.isdigit() for ch in term):
        return words <= _CARDINALS | _NUMBER_GLUE | _DIGIT_SUFFIXES
    return bool(words & _CARDINALS) and words <= _CARDINALS | _NUMBER_GLUE


def sameness_key(text: str) -> str:
    """What makes two elements "the same": case, spacing and edge punctuation ignored."""
    return " ".join(text.casefold().split()).strip(" .;:,!?\"'")


def clean_elements(reply: ReferenceElements) -> tuple[ReferenceElements, dict[str, list[str]]]:
    """The elements to check, and what was dropped and why (for the trace).

    Facts are kept first, so a conclusion or term that repeats a fact is dropped as a
    duplicate: "conclusions exclude facts" is then true by construction.
    """
    seen: set[str] = set()
    kept: dict[str, list[str]] = {"facts": [], "conclusions": [], "terms": []}
    dropped: dict[str, list[str]] = {"duplicates": [], "numeric_terms": []}
    for field in ("facts", "conclusions", "terms"):
        for text in getattr(reply, field):
            key = sameness_key(text)
            if not key:
                continue
            if field == "terms" and is_numeric_term(text):
                dropped["numeric_terms"].append(text)
            elif key in seen:
                dropped["duplicates"].append(text)
            else:
                seen.add(key)
                kept[field].append(text.strip())
    return ReferenceElements(**kept), dropped


def numbered_elements(elements: ReferenceElements) -> list[tuple[int, Category, str]]:
    """(index, category, text) for every element, facts first: the order bullets count in."""
    fields = dict(zip(CATEGORIES, (elements.facts, elements.conclusions, elements.terms)))
    ordered = [(category, text) for category in CATEGORIES for text in fields[category]]
    return [(index, category, text) for index, (category, text) in enumerate(ordered)]


def item_data(coverage: CoverageInput) -> dict[str, str | None]:
    """The item's texts as every coverage prompt takes them."""
    return {"input": coverage.input, "reference": coverage.reference, "output": coverage.output_text}


def enumerate_reference_elements(
    state: JudgeState, runtime: Runtime[JudgeContext]
) -> Step[Command[Literal["check_reference_element", "check_reference_elements_batch", "judge_organization", "finalize"]]]:
    started = time.perf_counter()
    context = yield from resolved_context(runtime.context)
    coverage: CoverageInput = state["inputs"]["coverage"]
    outcome = yield from structured_step(
        context.model,
        render_messages(NODE, input=coverage.input, reference=coverage.reference, output=None),
        ReferenceElements,
        max_repairs=context.max_repairs, dialect=context.response_format,
    )
    detail: dict = {}
    if outcome.value is not None:
        outcome.value, dropped = clean_elements(outcome.value)
        detail = outcome.value.model_dump() | {"dropped": dropped}
    event = emit(runtime, event_from_outcome(NODE, outcome, started, detail=detail))
    update = {"judgments": {NODE: outcome}, "trace": [event]}
    if outcome.value is None or not outcome.value.facts:
        return Command(update=update, goto="finalize")
    data = item_data(coverage)
    elements = numbered_elements(outcome.value)
    terms_started = time.perf_counter()  # not `started`: that would charge the enumeration call to each term
    terms = [check_term(index, text, coverage.output_text) for index, category, text in elements if category == "term"]
    update["judgments"] |= {check_key(term.index): StepOutcome(term, [], None) for term in terms}
    update["trace"] += [emit(runtime, plain_event(
        "check_term", terms_started, note=term.justification, **term.trace_detail(),
    ).model_copy(update={"label": f"term {term.index + 1}"})) for term in terms]
    elements = [element for element in elements if element[1] != "term"]
    if context.claim_check == "batch":
        tasks = [Send(BATCH_NODE, data | {"elements": elements})]
        update["fanout_expected"] = {BATCH_NODE: 1, ORGANIZATION_NODE: 1}
    else:
        tasks = [
            Send(CHECK_NODE, data | {"index": index, "category": category, "element": text})
            for index, category, text in elements
        ]
        update["fanout_expected"] = {CHECK_NODE: len(tasks), ORGANIZATION_NODE: 1}
    return Command(update=update, goto=[*tasks, Send(ORGANIZATION_NODE, data)])


def check_key(index: int) -> str:
    """Where the check of element `index` is stored in `judgments`: the checks write it and the
    result reads it; it lives here because both import this module."""
    return f"{CHECK_NODE}#{index}"
