"""The single-prompt baseline's templates (`baseline_<metric>.j2`), kept with the benchmarks.

Why here: only the benchmarks' baseline uses them; the judge never does, so they stay out of the
installed package. They include the judge's shared partials (`_system_qa.j2`, `_data_qa.j2`)
from `judgegraph.prompts`, with the judge's Jinja2 settings, so both methods show the model the
same instructions and the same data blocks.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2
from judgegraph import prompts
from langchain_core.messages import BaseMessage

HERE = Path(__file__).resolve().parent


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """These templates first, then the judge's (for the partials they include)."""
    return prompts.make_environment(jinja2.ChoiceLoader([jinja2.FileSystemLoader(HERE), prompts.environment().loader]))


def render_messages(name: str, **variables: object) -> list[BaseMessage]:
    """The system and user messages of the template `benchmarks/prompts/<name>.j2`."""
    return prompts.template_messages(environment().get_template(f"{name}.j2"), **variables)
