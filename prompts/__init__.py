"""Jinja2 prompt templates, one `.j2` per LLM step, loaded from package data.

Each step template defines two blocks, `system` and `user`. User text (question, answer,
context, reference...) only ever enters as a template *variable* passed through the `data`
filter: Jinja2 never parses variable values, so `{{ 7*7 }}` in an answer reaches the model
literally, and the filter neutralises anything that looks like one of our section delimiters,
so an answer cannot close its `<answer>` section and pose as instructions.

Every step puts the shared material first (instructions, then the item's data) and the part
that varies (the claim, the element) last, so a local server's prompt cache and a hosted API's
prefix cache reuse the common prefix across the calls of one item.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

import jinja2
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

SECTION_NAMES = (
    "question", "context", "passage", "document", "answer", "reference", "claim", "claims",
    "goal", "input", "output", "model_output", "expected_output", "actual_output", "element",
    "elements", "history", "tool_call", "config", "criteria", "data", "task", "system",
)
_DELIMITER = re.compile(r"<\s*/?\s*(?:" + "|".join(SECTION_NAMES) + r")\b[^<>]{0,40}>", re.IGNORECASE)


def neutralise(text: object) -> str:
    """User text made safe to place between section tags: look-alike tags lose their brackets."""
    value = "" if text is None else str(text)
    return _DELIMITER.sub(lambda m: m.group(0).replace("<", "‹").replace(">", "›"), value)


def _load(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def make_environment(loader: jinja2.BaseLoader) -> jinja2.Environment:
    """The prompts' Jinja2 settings over `loader`: a missing variable is an error, nothing is
    HTML-escaped (these are chat messages), and user text goes through the `data` filter. Also
    for templates kept outside the package that include the judge's partials."""
    env = jinja2.Environment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["data"] = neutralise
    return env


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The judge's own templates, from package data."""
    return make_environment(jinja2.FunctionLoader(_load))


def _render_block(template: jinja2.Template, block: str, variables: dict) -> str:
    context = template.new_context(dict(variables))
    return "".join(template.blocks[block](context)).strip()


def render_messages(step: str, **variables: object) -> list[BaseMessage]:
    """The system and user messages of `step` (the template `prompts/<step>.j2`)."""
    return template_messages(environment().get_template(f"{step}.j2"), **variables)


def template_messages(template: jinja2.Template, **variables: object) -> list[BaseMessage]:
    """The system and user messages of a step template (its `system` and `user` blocks)."""
    return [
        SystemMessage(content=_render_block(template, "system", variables)),
        HumanMessage(content=_render_block(template, "user", variables)),
    ]


def render_repair_request(errors: list[str], schema_json: str) -> str:
    """The follow-up message that sends a reply's validation errors back to the model."""
    template = environment().get_template("repair.j2")
    return template.render(errors=errors, schema_json=schema_json).strip()
