"""Citation markers: every form users meet, in every script, and the hostile cases (code,
brackets that are not citations, numbers that name no passage, thousands of markers, nesting)."""

from __future__ import annotations

import time

import pytest

from judgegraph.text.citation_markers import find_markers, has_markers, resolve, strip_markers


def cited(text: str, passages: int = 3, ids=()) -> list[tuple[str, tuple[int, ...], tuple[str, ...]]]:
    """(marker as written, passages it resolves to 1-based, parts naming no passage) per marker."""
    ids = list(ids) or [None] * passages
    found = []
    for marker in find_markers(text, ids):
        resolved = resolve(marker, ids, passages)
        found.append((marker.text, tuple(p + 1 for p in resolved.passages), resolved.unresolved))
    return found


@pytest.mark.parametrize(("text", "expected"), [
    ("Paris is big [1].", [("[1]", (1,), ())]),
    ("Paris is big [1, 3].", [("[1, 3]", (1, 3), ())]),
    ("Paris is big [1,3].", [("[1,3]", (1, 3), ())]),
    ("Paris is big [1-3].", [("[1-3]", (1, 2, 3), ())]),
    ("Paris is big [1–3].", [("[1–3]", (1, 2, 3), ())]),
    ("Paris is big [1 - 2].", [("[1 - 2]", (1, 2), ())]),
    ("Paris is big [1][2].", [("[1]", (1,), ()), ("[2]", (2,), ())]),
    ("Paris is big[^1].", [("[^1]", (1,), ())]),
    ("巴黎很大【1】。", [("【1】", (1,), ())]),
    ("巴黎很大【１，３】。", [("【１，３】", (1, 3), ())]),
    ("巴黎很大［２］。", [("［２］", (2,), ())]),
    ("巴黎很大【1、2】。", [("【1、2】", (1, 2), ())]),
    ("パリは大きい〔３〕。", [("〔３〕", (3,), ())]),
    ("Paris is big (Source 2).", [("(Source 2)", (2,), ())]),
    ("Paris is big (sources: 1, 3).", [("(sources: 1, 3)", (1, 3), ())]),
    ("Paris is big (Passage 2).", [("(Passage 2)", (2,), ())]),
    ("Paris is big [Source 2].", [("[Source 2]", (2,), ())]),
    ("Paris is big [Doc 3].", [("[Doc 3]", (3,), ())]),
    ("Paris ist groß [1 and 2].", [("[1 and 2]", (1, 2), ())]),
    ("Париж большой [٢].", [("[٢]", (2,), ())]),  # Arabic-Indic digit
])
def test_every_marker_form_is_read(text, expected):
    assert cited(text) == expected
    assert has_markers(text)


@pytest.mark.parametrize("text", [
    "He wrote it [sic] in 1990.",
    "This is disputed [citation needed].",
    "Half the votes [1/2] went to him.",
    "The ratio [1.5] is low.",
    'The list ["a", 1] is mixed.',
    "A list (2) of things (see 3).",
    "Brackets [] and [ ] are empty.",
    "See [Sources] below.",
])
def test_brackets_that_are_not_citations_are_not_read_as_citations(text):
    assert cited(text) == []


def test_a_number_that_names_no_passage_is_reported_not_dropped():
    # a year in brackets beside three passages is a citation that points nowhere
    assert cited("It opened [2020].") == [("[2020]", (), ("2020",))]
    assert cited("It opened [0].") == [("[0]", (), ("0",))]
    assert cited("See [2, 7].") == [("[2, 7]", (2,), ("7",))]
    assert cited("See [2-9].") == [("[2-9]", (2, 3), ("4-9",))]
    assert cited("See [4-9].") == [("[4-9]", (), ("4-9",))]
    assert cited("See [1].", passages=0) == [("[1]", (), ("1",))]


def test_a_reversed_range_is_not_a_citation():
    assert cited("Pages [3-1] are odd.") == []


def test_markers_in_code_are_not_citations():
    text = ("Use `arr[1]` to index.\n\n```python\nx = [1, 2, 3]\nprint(x[2])\n```\n"
            "~~~\ny = [3]\n~~~\nParis is big [2].")
    assert cited(text) == [("[2]", (2,), ())]
    assert cited("An unclosed fence\n```\nx = [1]\nstill code [2]") == []


def test_nested_brackets_are_not_citations():
    assert cited("The matrix [[1, 2], [3]] is small.") == []
    assert cited("Nested [see [1]] is prose.") == []
    # an unmatched bracket nests nothing
    assert cited("An open [ bracket, then a citation [1].") == [("[1]", (1,), ())]


def test_a_list_of_sources_and_footnote_definitions_are_not_citations():
    text = "Paris is big [1]. It is old [^2].\n\nSources:\n[1] Wikipedia, Paris\n[2] Britannica\n"
    assert [m for m, _, _ in cited(text)] == ["[1]", "[^2]"]
    text = "Paris is big [^1].\n\n[^1]: Wikipedia, Paris"
    assert [m for m, _, _ in cited(text)] == ["[^1]"]


def test_passage_ids_are_read_and_an_unknown_id_of_their_shape_is_reported():
    ids = ["doc1", "doc7", None]
    assert cited("Paris is big [doc7].", ids=ids) == [("[doc7]", (2,), ())]
    assert cited("Paris is big [DOC1, doc7].", ids=ids) == [("[DOC1, doc7]", (1, 2), ())]
    assert cited("Paris is big [doc9].", ids=ids) == [("[doc9]", (), ("doc9",))]
    assert cited("Paris is big (Source doc7).", ids=ids) == [("(Source doc7)", (2,), ())]
    assert cited("He wrote it [sic].", ids=ids) == []  # another shape: not a citation
    # a number is a position, unless a passage's id is that number
    assert cited("See [3].", ids=["a1", "b2", "c3"]) == [("[3]", (3,), ())]
    assert cited("See [7].", ids=["3", "7", "9"]) == [("[7]", (2,), ())]


def test_strip_markers_keeps_the_sentence_and_nothing_else():
    assert strip_markers("Paris has 2.1 million inhabitants [2].") == "Paris has 2.1 million inhabitants."
    assert strip_markers("Paris [1][2] is big 【3】.") == "Paris is big."
    assert strip_markers("No markers [sic] here.") == "No markers [sic] here."


def test_thousands_of_markers_take_linear_time():
    def seconds(n: int) -> float:
        text = "Paris is big [1][2, 3] (Source 2) 【1】 [2020] [sic] `x[1]` [[1]] [" * n
        started = time.process_time()
        markers = find_markers(text, [None] * 3)
        for marker in markers:
            resolve(marker, [None] * 3, 3)
        assert len(markers) == 6 * n  # `[[1]]` is a citation, `x[1]` in code is not
        return time.process_time() - started

    small, large = seconds(2_000), seconds(8_000)
    assert large <= 10 * max(small, 0.005), (small, large)


def test_a_huge_range_is_not_expanded():
    started = time.process_time()
    (marker,) = find_markers("See [1-999999999999].", [None] * 3)
    resolved = resolve(marker, [None] * 3, 3)
    assert resolved.passages == (0, 1, 2) and resolved.unresolved == ("4-999999999999",)
    assert time.process_time() - started < 1.0
