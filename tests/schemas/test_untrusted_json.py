"""`value_problem` names the first unusable value of a parsed line by its place, whatever the
nesting, and walks past the values no check refuses."""

from __future__ import annotations

import math
import sys

import pytest

from judgegraph.schemas.untrusted_json import MAX_DEPTH, UntrustedJsonError, loads_untrusted, value_problem


def test_a_value_is_named_by_its_keys_and_indexes():
    value = loads_untrusted('{"id": 1, "result": {"scores": [0.5, true, null, {"x": NaN}]}}')
    assert value_problem(value) == "'result.scores[3].x' is NaN, which JSON does not allow"
    assert value_problem([1, [2, -math.inf]]) == "'[1][1]' is -Infinity, which JSON does not allow"
    assert value_problem(math.inf) == "'the item' is Infinity, which JSON does not allow"


def test_a_long_key_is_shortened_and_a_key_that_is_not_text_is_still_a_key():
    long_key = "k" * 60
    assert value_problem({long_key: math.nan}) == f"'{'k' * 39}…' is NaN, which JSON does not allow"
    assert value_problem({5: [math.nan]}) == "'5[0]' is NaN, which JSON does not allow"


def test_the_last_sibling_is_walked_first():
    """The walk is a stack: of two bad values, the later sibling's subtree is reported."""
    assert value_problem({"a": math.nan, "b": {"x": math.inf}}) == "'b.x' is Infinity, which JSON does not allow"
    assert value_problem({"a": {"x": math.inf}, "b": 1}) == "'a.x' is Infinity, which JSON does not allow"


def test_too_long_integers_surrogates_and_depth():
    assert value_problem(loads_untrusted('{"n": [' + "9" * 5000 + "]}")) == \
        "'n[0]' is an integer of 5,000 digits, too large to read"
    assert value_problem({"q": "a\ud800"}).startswith("'q' holds a lone surrogate (U+D800)")
    assert value_problem({"q": "a\ud800"}, surrogates=False) is None
    assert value_problem({"a\udc80": 1}).startswith("a key holds a lone surrogate (U+DC80)")
    assert value_problem("\ud800").startswith("the item holds a lone surrogate")
    deep: list = []
    for _ in range(MAX_DEPTH):
        deep = [deep]
    assert value_problem(deep) == f"the item is nested more than {MAX_DEPTH} levels deep"
    assert value_problem(deep[0]) is None


def test_plain_values_pass():
    assert value_problem({"a": [1, 2.5, None, True, "text", {"b": -0.0}]}) is None



def test_no_garbage_collection_runs_inside_a_parse(monkeypatch):
    """A collection that ran while a deeply nested line was parsed ran finalizers near the
    recursion limit: the CLI printed "Exception ignored ... RecursionError" beside its one-line
    refusal (the untrusted-input fuzz caught it in CI). The collector is paused for the parse, and
    on again after it, whether the line parsed or not."""
    import gc

    from judgegraph.schemas import untrusted_json

    seen = []
    reads_int = untrusted_json._parse_int
    monkeypatch.setattr(untrusted_json, "_parse_int", lambda text: seen.append(gc.isenabled()) or reads_int(text))
    assert gc.isenabled()
    assert loads_untrusted('{"deep": [[[1]]]}') == {"deep": [[[1]]]}
    with pytest.raises(UntrustedJsonError, match="nested too deeply"):
        loads_untrusted('{"n": 2, "deep": ' + "[" * 20_000 + "]" * 20_000 + "}")
    assert seen == [False, False] and gc.isenabled()
