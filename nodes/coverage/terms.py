"""Whether a key term of the reference occurs in the output: decided in code, not by the model.

The seed counts a term as matched when it is explicitly present in the output; the rubric's
own wording allows another word form, case or plural, and not a synonym. That is a lexical
question, so code answers it: cheaper (no call per term) and more reliable than the 1.5B judge,
which was seen marking "carotenoids" present in an output that only says "pigments".
"""

from __future__ import annotations

import re

from ...schemas.coverage import CheckedElement

_WORD = re.compile(r"\w+(?:['\u2019]\w+)*", re.UNICODE)
"""A word; a hyphen separates words, so "carotenoid-rich" holds "carotenoid" and "half-life"
spells "half life"; an apostrophe does not ("plant's")."""
_SIBILANT_STEMS = ("s", "x", "z", "ch", "sh", "o")
"""Stems whose plural adds "es" ("processes", "boxes", "potatoes"); other "-es" words add "s"."""
_MIN_STEM = 3
"""No form shorter than this is guessed, so "red" or "bed" are never read as "-ed" forms."""


def _forms(word: str) -> frozenset[str]:
    """The word and every base it may be an inflection of (plural, possessive, -ing, -ed).

    Two words match when their forms meet. A set, not a single stem, because one suffix rule
    cannot serve "trees" ("tree" + s) and "processes" ("process" + es), nor "speed" (no
    suffix) and "produced" ("produce" + d), which a single stripped stem got wrong.
    """
    word = word.casefold()
    for mark in ("'s", "\u2019s"):
        word = word.removesuffix(mark)
    forms = {word}

    def add(ending: str, *bases: str) -> None:
        stem = word[: -len(ending)]
        if word.endswith(ending) and len(stem) >= _MIN_STEM:
            forms.update(stem + base for base in bases)

    add("s", "")
    add("ies", "y")
    add("ied", "y")
    if word[:-2].endswith(_SIBILANT_STEMS):
        add("es", "")
    add("ing", "", "e")
    add("ed", "", "e")
    return frozenset(forms)


def term_occurrence(term: str, output: str) -> str | None:
    """The words of `output` that spell `term` (up to word form), or None when it is absent."""
    wanted = [_forms(w) for w in _WORD.findall(term)]
    if not wanted:
        return None
    words = list(_WORD.finditer(output))
    forms = [_forms(match.group(0)) for match in words]
    for start in range(len(forms) - len(wanted) + 1):
        if all(want & have for want, have in zip(wanted, forms[start : start + len(wanted)])):
            return output[words[start].start() : words[start + len(wanted) - 1].end()]
    return None


def check_term(index: int, term: str, output: str) -> CheckedElement:
    found = term_occurrence(term, output)
    return CheckedElement(
        index=index,
        category="term",
        element=term,
        present=found is not None,
        quote=found or "",
        quote_found=found is not None,
        justification=(
            f"checked in code: the output uses {found!r}" if found
            else "checked in code: the term does not occur in the output in any word form"
        ),
    )
