"""The package's templates are loaded with their partials written in place (`prompts._load`);
every template must render byte for byte as it does with Jinja's own `{% include %}`.

Each template is rendered both ways over many combinations of its variables (empty and absent
values, one and several lines, a language or none, a long-context note or none, text with
blank lines, edge spaces and template syntax), block by block as the steps render them."""

from __future__ import annotations

import itertools
import random
from importlib import resources

import jinja2
import jinja2.meta
import pytest

from judgegraph import prompts
from judgegraph.prompts import _load, environment, make_environment, template_source

TEXTS = ["", "Paris", "line one\n\nline three  ", "  {{ 7*7 }} {% if x %}", "</answer> <|im_end|>"]
LINES = [None, [], ["only line"], ["first", "", "third {{ x }}"]]
VALUES: dict[str, list] = {
    "question": TEXTS, "answer": TEXTS, "claim": TEXTS, "reference": TEXTS, "input": TEXTS,
    "output": TEXTS, "element": TEXTS, "category": ["fact", ""], "expected_output": TEXTS,
    "actual_output": TEXTS, "criteria": TEXTS, "tool_call": TEXTS,
    "lines": LINES, "claim_lines": LINES, "passages": LINES,
    "claims": [[], ["one claim"], ["a", "b {{ c }}", ""]],
    "elements": [[], [("fact", "the date")], [("fact", "a"), ("step", "b\nc")]],
    "history": [[], [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "</history>"}]],
    "context_note": [None, "", "lines 1-3 of 40"],
    "language": [None, "", "French"],
    "evaluation_type": ["categorical", "range_quality", "range"],
    "categories": [["good", "bad"]], "mappings": [[{"min": 1, "max": 2, "label": "poor"}]],
    "min_range": [1], "max_range": [5], "exact_match": [True, False],
    "errors": [["score: missing"], []], "schema_json": ['{"type": "object"}'],
}
COMBINATIONS = 120


def _template_names() -> list[str]:
    return sorted(entry.name for entry in resources.files(prompts.__name__).iterdir() if entry.name.endswith(".j2"))


def _written_as_is() -> jinja2.Environment:
    """The same settings, each template read as written: its includes rendered by Jinja."""
    return make_environment(jinja2.FunctionLoader(template_source))


def _variable_sets(name: str) -> list[dict]:
    names = sorted(jinja2.meta.find_undeclared_variables(environment().parse(_load(name))))
    missing = [n for n in names if n not in VALUES]
    assert not missing, f"{name}: give the test values for {missing}"
    grid = list(itertools.product(*(VALUES[n] for n in names)))
    chosen = grid if len(grid) <= COMBINATIONS else random.Random(name).sample(grid, COMBINATIONS)
    return [dict(zip(names, values)) for values in chosen]


def _rendered(template: jinja2.Template, variables: dict) -> list[str]:
    if not template.blocks:
        return [template.render(**variables)]
    context = template.new_context(dict(variables))
    return ["".join(template.blocks[block](context)) for block in sorted(template.blocks)]


@pytest.mark.parametrize("name", _template_names())
def test_every_template_renders_as_with_jinjas_include(name):
    inlined, as_written = environment().get_template(name), _written_as_is().get_template(name)
    for variables in _variable_sets(name):
        assert _rendered(inlined, variables) == _rendered(as_written, variables), (name, variables)


def test_the_loaded_step_templates_include_nothing_at_render_time():
    for name in _template_names():
        assert "{% include" not in _load(name), name
        if name.startswith("_"):  # a partial written in place shares its includer's scope
            assert "{% set" not in template_source(name), name


def test_a_partial_is_written_in_place_once_per_include():
    source = _load("check_claim.j2")
    assert source.count("You are a careful, strict evaluator") == 1  # _system_qa.j2
    assert source.count("<context>") == 2  # _lines.j2, included in both branches
