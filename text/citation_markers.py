"""Citation markers in an answer ("[1]", "[1, 3]", "[1-3]", "[^1]", "【1】", "(Source 2)", "[doc7]"),
found in code and resolved to passages by position (1-based) or by a passage's `id`.

Why in code: a citation is a claim about *which* passage says something, and reading it is a
matter of syntax, not judgment. Every form users meet is read, in every script (full-width
digits and brackets are read as their ASCII forms, NFKC):

- a group in square brackets (`[1]`, `[1, 3]`, `[1-3]`, `[^1]`, `[Source 2]`, `[doc7]`), in
  full-width or CJK brackets (`［1］`, `【1】`, `〔1〕`); separators `,` `，` `、` `;` `；`;
  ranges with `-` `–` `—` `~` `～` `〜`;
- a group in parentheses only after a source word: `(Source 2)`, `(Sources 1, 3)`,
  `(Passage 2)`, `(Document 2)`, `(Doc 2)`, `(Ref 2)`; plain `(2)` is a list item or a number.

A group is a citation only when *every* part of it is a passage number, a range of numbers or a
passage id: `[sic]`, `[citation needed]`, `[1/2]`, `[1.5]`, `["a", 1]` are not. A number that
names no passage (`[2020]` beside three passages, `[0]`, the `4-9` of `[1-9]`) is still a
citation: it is reported as pointing at no passage, never dropped. With passage ids, a part
shaped like the ids (`doc9` beside `doc1`, `doc2`: same letters, other digits) that names no
passage is reported the same way; a word of another shape makes the group not a citation.

Not citations: anything inside a code block or inline code (array literals, indexing), a
group nested in another bracket (`[[1, 2], [3]]`), and a list of sources after a "Sources:" /
"References:" line (its `[1] Title` lines define the markers, they do not cite). A footnote
definition (`[^1]: ...` at the start of a line) is not a citation either.

Cost: one pass of each regular expression over the text and constant work per group (a group
is at most `MAX_GROUP_CHARS` long, a range is kept as its two ends, never expanded), so
thousands of markers take linear time.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Sequence
from dataclasses import dataclass

MAX_GROUP_CHARS = 120
"""Longer bracketed text is prose, not a citation group."""

_OPEN = "[［【〔"
_CLOSE = "]］】〕"
_PAIR = dict(zip(_OPEN, _CLOSE))
_SOURCE_WORD = r"(?:sources?|passages?|documents?|docs?|refs?|references?|contexts?|chunks?|citations?)"
_BRACKET_GROUP = re.compile(rf"[{re.escape(_OPEN)}](?P<body>[^{re.escape(_OPEN + _CLOSE)}\n]{{1,{MAX_GROUP_CHARS}}})[{re.escape(_CLOSE)}]")
_PAREN_GROUP = re.compile(rf"[(（]\s*(?P<body>{_SOURCE_WORD}\s*:?\s*[^()（）\n]{{1,{MAX_GROUP_CHARS}}})[)）]", re.I)
_LEADING_WORD = re.compile(rf"^\s*(?:{_SOURCE_WORD}\b\s*:?\s*|\^)", re.I)
_SEPARATOR = re.compile(r"\s*[,;、]\s*|\s+and\s+|\s+")
_RANGE = re.compile(r"^#?(\d+)\s*[-–—~〜]\s*#?(\d+)$")
_RANGE_DASH = re.compile(r"\s*([-–—~〜])\s*")
_NUMBER = re.compile(r"^#?(\d+)$")
_CODE = re.compile(r"(?s)(?P<fence>```|~~~).*?(?:(?P=fence)|\Z)|`[^`\n]+`")
_SOURCES_HEADING = re.compile(
    r"(?im)^[ \t#*_]*(?:sources?|references?|citations?|bibliography|works cited|参考(?:文献|资料)?|来源|出典|出处)"
    r"[ \t*_]*[:：]?[ \t*_]*$"
)
_FOOTNOTE_DEFINITION = re.compile(r"(?m)^[ \t]*\[\^[^\]\n]{1,40}\]:")


@dataclass(frozen=True)
class CitationRef:
    """One part of a marker, as written: a passage number or a range of them, or a passage id."""

    written: str
    first: int | None = None
    """The 1-based passage number (the range's first); None for an id."""
    last: int | None = None
    """The range's last number (== `first` for one number)."""
    id: str | None = None
    """The passage id it names (as the passages spell it), or the id-shaped text that names none."""


@dataclass(frozen=True)
class CitationMarker:
    """A citation as it stands in the answer: its span, its text and what it points at."""

    start: int
    end: int
    text: str
    refs: tuple[CitationRef, ...]


@dataclass(frozen=True)
class Resolved:
    """What a marker points at: passage indexes (0-based) and the parts that name no passage."""

    passages: tuple[int, ...]
    unresolved: tuple[str, ...]


def _masked(text: str) -> str:
    """The text with code (fenced blocks, inline spans), footnote definitions and a trailing
    list of sources blanked out, same length: spans found later are spans of `text`."""
    chars = list(text)

    def blank(start: int, end: int) -> None:
        for i in range(start, end):
            if chars[i] != "\n":
                chars[i] = " "

    for match in _CODE.finditer(text):
        blank(*match.span())
    for match in _FOOTNOTE_DEFINITION.finditer(text):
        blank(*match.span())
    heading = None
    for heading in _SOURCES_HEADING.finditer(text):
        pass
    if heading is not None:
        blank(heading.start(), len(text))
    return "".join(chars)


def _nested_groups(text: str) -> set[int]:
    """Start offsets of bracket openers that sit inside another matched bracket pair. Two
    linear passes: pair the brackets (unmatched ones are ordinary characters), then read the
    depth of each opener from the matched pairs only."""
    stack: list[int] = []
    matched: set[int] = set()
    for i, ch in enumerate(text):
        if ch in _PAIR:
            stack.append(i)
        elif ch in _CLOSE and stack:
            while stack and _PAIR[text[stack[-1]]] != ch:
                stack.pop()  # a mismatched opener closes nothing
            if stack:
                matched.add(stack.pop())
                matched.add(i)
    nested: set[int] = set()
    depth = 0
    for i, ch in enumerate(text):
        if i not in matched:
            continue
        if ch in _PAIR:
            if depth:
                nested.add(i)
            depth += 1
        else:
            depth -= 1
    return nested


def _shape(token: str) -> str:
    return re.sub(r"\d+", "0", token.casefold())


def _ref(token: str, ids: dict[str, str], id_shapes: set[str]) -> CitationRef | None:
    """The part as a reference, or None when it is not one (then the group is not a citation).
    An id wins over a number when a passage's id is that number."""
    key = token.casefold()
    if key in ids:
        return CitationRef(token, id=ids[key])
    number = _NUMBER.match(token)
    if number:
        return CitationRef(token, int(number.group(1)), int(number.group(1)))
    span = _RANGE.match(token)
    if span:
        first, last = int(span.group(1)), int(span.group(2))
        return CitationRef(token, first, last) if first <= last else None
    if any(ch.isalpha() for ch in token) and _shape(token) in id_shapes:
        return CitationRef(token, id=token)
    return None


def _refs(body: str, ids: dict[str, str], id_shapes: set[str]) -> tuple[CitationRef, ...] | None:
    body = unicodedata.normalize("NFKC", body).strip()
    body = _LEADING_WORD.sub("", body, count=1).strip()
    body = _RANGE_DASH.sub(r"\1", body)
    if not body:
        return None
    refs = []
    for token in _SEPARATOR.split(body):
        if not token:
            continue
        ref = _ref(token.strip(), ids, id_shapes)
        if ref is None:
            return None
        refs.append(ref)
    return tuple(refs) or None


def find_markers(text: str, ids: Sequence[str | None] = ()) -> list[CitationMarker]:
    """Every citation marker of `text`, in order (module doc: what counts). `ids` are the
    passages' ids, in passage order (None for a passage without one)."""
    known = {str(i).casefold(): str(i) for i in ids if i is not None and str(i).strip()}
    id_shapes = {_shape(i) for i in known.values() if any(ch.isalpha() for ch in i)}
    masked = _masked(text)
    nested = _nested_groups(masked)
    found: list[CitationMarker] = []
    for match in _BRACKET_GROUP.finditer(masked):
        if match.start() in nested:
            continue
        refs = _refs(match.group("body"), known, id_shapes)
        if refs:
            found.append(CitationMarker(match.start(), match.end(), text[match.start():match.end()], refs))
    for match in _PAREN_GROUP.finditer(masked):
        refs = _refs(match.group("body"), known, id_shapes)
        if refs:
            found.append(CitationMarker(match.start(), match.end(), text[match.start():match.end()], refs))
    found.sort(key=lambda marker: marker.start)
    return found


def _span(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}-{last}"


def resolve(marker: CitationMarker, ids: Sequence[str | None], passage_count: int) -> Resolved:
    """The passages `marker` points at (0-based, each once, in order) and the parts that point
    at none ("2020" of `[2020]` beside 3 passages, "4-9" of `[1-9]`, an unknown id). A range
    costs two comparisons, however wide."""
    by_id = {str(i).casefold(): n for n, i in enumerate(ids) if i is not None}
    passages: list[int] = []
    unresolved: list[str] = []
    for ref in marker.refs:
        if ref.id is not None:
            index = by_id.get(ref.id.casefold())
            if index is None or index >= passage_count:
                unresolved.append(ref.written)
            else:
                passages.append(index)
            continue
        first, last = ref.first or 0, ref.last or 0
        low, high = max(first, 1), min(last, passage_count)
        if low > high:
            unresolved.append(_span(first, last))
            continue
        passages.extend(range(low - 1, high))
        if first < low:
            unresolved.append(_span(first, low - 1))
        if last > high:
            unresolved.append(_span(high + 1, last))
    return Resolved(tuple(dict.fromkeys(passages)), tuple(unresolved))


def strip_markers(text: str, ids: Sequence[str | None] = ()) -> str:
    """`text` without its citation markers (and the blank before each): what a sentence asserts.
    "[2]" is not the number 2 of "2.1 million inhabitants [2]"; text without markers is
    returned as it is."""
    markers = find_markers(text, ids)
    if not markers:
        return text
    kept: list[str] = []
    position = 0
    for marker in markers:
        start = marker.start
        while start > position and text[start - 1] in " \t":
            start -= 1
        kept.append(text[position:start])
        position = marker.end
    kept.append(text[position:])
    return "".join(kept)


def has_markers(text: str, ids: Collection[str | None] = ()) -> bool:
    """Whether `text` carries at least one citation marker."""
    return bool(find_markers(text, list(ids)))
