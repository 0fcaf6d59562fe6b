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

Three more shapes answers write are read as citations: a group doubled in brackets (`[[1]]`,
as wiki-style writers cite), a single group wrapped in inline code (`` `[1]` ``), and a caret or
superscript number after a word or punctuation (`capital^1`, `France¹`, `big.^2`, `Paris ^1`;
after a word of at least three letters or a four-digit number, so `mc^2`, `10^6` and `km²` stay
numbers), and a bracket group after a caret (`Paris^[1]`: the caret is part of the marker). A signed number (`[-1]`)
is a citation that names no passage.

Not citations: anything else inside a code block or inline code (array literals, indexing), a
group nested in another bracket (`[[1, 2], [3]]`), and the answer's *source definitions*: a
list of sources after a "Sources:" / "References:" line (its `[1] Title` lines define the
markers, they do not cite), a trailing block of `[1] Title` lines after a blank line, footnote
definitions (`[^1]: ...`) and link definitions (`[1]: https://...`) at the start of a line,
with their indented continuation lines.

What a sentence asserts (`strip_markers`) is its text without its markers and without the
source definitions: "[2]" is not the number 2 of "2.1 million", and "Sources: [1] Paris,
2023" asserts nothing, so neither reaches a claim (nor code's number rule).

Cost: one pass of each regular expression over the text and constant work per group (a group
is at most `MAX_GROUP_CHARS` long, a range is kept as its two ends, never expanded), so
thousands of markers take linear time.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from .memo import shared_cache

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
_NUMBER = re.compile(r"^(?P<sign>[-−])?#?(?P<digits>\d+)$")
_CODE = re.compile(r"(?s)(?P<fence>```|~~~).*?(?:(?P=fence)|\Z)|`(?P<inline>[^`\n]+)`")
_CODE_CITATION = re.compile(rf"^\s*[{re.escape(_OPEN)}][^{re.escape(_OPEN + _CLOSE)}\n]{{1,{MAX_GROUP_CHARS}}}[{re.escape(_CLOSE)}]\s*$")
"""Inline code holding one bracket group and nothing else (`` `[1]` ``): a citation, not code."""
_SOURCES_HEADING = re.compile(
    r"(?im)^[ \t#*_]*(?:sources?|references?|citations?|bibliography|works cited|参考(?:文献|资料)?|来源|出典|出处)"
    r"(?:[ \t*_]*[:：]?[ \t*_]*$|[ \t*_]*[:：][ \t*_]*(?=[\[［【]))"
)
_DEFINITION = re.compile(
    r"(?m)^[ \t]*(?:\[\^[^\[\]\n]{1,40}\]|\[\d{1,4}\](?=:)|\[[^\[\]\n]{1,40}\](?=:[ \t]*<?https?://)):"
    r"[^\n]*(?:\n(?:[ \t]{2,}|\t)[^\n]*)*"
)
"""A footnote definition (`[^1]: ...`) or a link definition (`[1]: ...`, `[label]: https://...`)
at the start of a line, with its indented continuation lines."""
_SOURCE_LINE = re.compile(r"^[ \t]*(?:[-*•][ \t]*)?[\[［【]\^?\d{1,4}[\]］】][ \t:.)\-–—]*\S")
"""A line of a trailing source list without a heading: `[1] Paris - Wikipedia`."""
_SUPERSCRIPT_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_CARET = re.compile(
    r"(?:(?<=[^\W\d_]{3})|(?<=[.,;:!?)\]\"'”’])|(?<=(?<![\d.,])\d{4}))"
    rf"(?:\^(?P<caret>\d{{1,3}}(?:,\d{{1,3}})*)|(?P<superscript>[{_SUPERSCRIPT_DIGITS}]{{1,3}}))(?![\w^{_SUPERSCRIPT_DIGITS}])"
    r"|(?:(?<=[^\W\d_]{3}[ \t])|(?<=[.,;:!?)\]\"'”’][ \t]))"
    rf"\^(?P<spaced>\d{{1,3}}(?:,\d{{1,3}})*)(?![\w^{_SUPERSCRIPT_DIGITS}])"
)
"""A caret or superscript number after a word of three letters or more, after punctuation or
after a year-like number of four digits: `capital^1`, `France¹`, `big.^2`, `in 2023^1`; never
`mc^2`, `10^6`, `km²`. A caret after one blank follows the same words and punctuation
(`Paris ^1.`, as footnoting tools write it), so `330 m ^2` stays a number."""


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


def _trailing_source_block(text: str) -> tuple[int, int] | None:
    """The span of a source list without a heading: the answer's last lines, after a blank
    line, each starting with a bracketed number (`[1] Paris - Wikipedia`). One line alone counts
    only when it reads as a title or an address, not as a sentence ("[2] It is old." is a
    sentence that opens with a citation)."""
    lines = text.rstrip().split("\n")
    count = 0
    while count < len(lines) and _SOURCE_LINE.match(lines[len(lines) - 1 - count]):
        count += 1
    if count == 0 or count == len(lines) or lines[len(lines) - 1 - count].strip():
        return None
    block = lines[len(lines) - count:]
    if count == 1 and "://" not in block[0] and block[0].rstrip()[-1:] in ".!?。！？":
        return None
    start = len("\n".join(lines[:len(lines) - count])) + 1
    return start, len(text)


def source_definitions(text: str) -> list[tuple[int, int]]:
    """The spans of `text` that define sources rather than assert or cite (module doc): footnote
    and link definitions, and a trailing list of sources (after a "Sources:" line, or a block of
    `[1] Title` lines), in order. Code is not searched."""
    code = [match.span() for match in _CODE.finditer(text)]

    def in_code(position: int) -> bool:
        return _overlaps(position, code)

    spans = [match.span() for match in _DEFINITION.finditer(text) if not in_code(match.start())]
    heading = None
    for found in _SOURCES_HEADING.finditer(text):
        if not in_code(found.start()):
            heading = found
    tail = (heading.start(), len(text)) if heading is not None else _trailing_source_block(text)
    if tail is not None:
        spans = [span for span in spans if span[1] <= tail[0]] + [tail]
    return spans


def _blanked(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with `spans` turned to blanks, newlines kept: same length, same offsets."""
    if not spans:
        return text
    chars = list(text)
    for start, end in spans:
        for i in range(start, end):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


def without_sources(text: str) -> str:
    """`text` with its source definitions blanked (same length): the part that asserts and cites."""
    return _blanked(text, source_definitions(text))


def _masked(text: str) -> str:
    """The text with code (fenced blocks, inline spans other than a lone citation) and its
    source definitions blanked out, same length: spans found later are spans of `text`."""
    code = [match.span() for match in _CODE.finditer(text)
            if match.group("inline") is None or not _CODE_CITATION.match(match.group("inline"))]
    return _blanked(text, code + source_definitions(text))


def _bracket_pairs(text: str) -> tuple[set[int], dict[int, int]]:
    """Start offsets of bracket openers that sit inside another matched bracket pair, and each
    matched opener's closer. Two linear passes: pair the brackets (unmatched ones are ordinary
    characters), then read the depth of each opener from the matched pairs only."""
    stack: list[int] = []
    closer: dict[int, int] = {}
    for i, ch in enumerate(text):
        if ch in _PAIR:
            stack.append(i)
        elif ch in _CLOSE and stack:
            while stack and _PAIR[text[stack[-1]]] != ch:
                stack.pop()  # a mismatched opener closes nothing
            if stack:
                closer[stack.pop()] = i
    matched = set(closer) | set(closer.values())
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
    return nested, closer


def _doubled(start: int, end: int, nested: set[int], closer: dict[int, int]) -> bool:
    """The group at `start:end` is the whole content of an outermost bracket pair: `[[1]]`."""
    outer = start - 1
    return outer >= 0 and outer not in nested and closer.get(outer) == end


def _shape(token: str) -> str:
    return re.sub(r"\d+", "0", token.casefold())


def _ref(token: str, ids: dict[str, str], id_shapes: set[str]) -> CitationRef | None:
    """The part as a reference, or None when it is not one (then the group is not a citation).
    An id wins over a number when a passage's id is that number."""
    key = token.casefold()
    if key in ids:
        return CitationRef(token, id=ids[key])
    number = _NUMBER.match(token)
    if number:  # a signed one ("[-1]") names no passage: reported, never read as a claim's number
        value = -int(number.group("digits")) if number.group("sign") else int(number.group("digits"))
        return CitationRef(token, value, value)
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
    return list(_markers(text, tuple(ids)))


@shared_cache(maxsize=512)
def _markers(text: str, ids: tuple[str | None, ...]) -> tuple[CitationMarker, ...]:
    """`find_markers`, once per answer: an item asks whether its answer cites (to pick its
    metrics) and where, from several nodes; the markers are immutable."""
    known = {str(i).casefold(): str(i) for i in ids if i is not None and str(i).strip()}
    id_shapes = {_shape(i) for i in known.values() if any(ch.isalpha() for ch in i)}
    masked = _masked(text)
    nested, closer = _bracket_pairs(masked)
    found: list[CitationMarker] = []

    def add(start: int, end: int, body: str) -> None:
        refs = _refs(body, known, id_shapes)
        if refs:
            if 0 < start and end < len(text) and text[start - 1] == text[end] == "`":
                start, end = start - 1, end + 1  # `[1]`: the code span is the marker
            found.append(CitationMarker(start, end, text[start:end], refs))

    for match in _BRACKET_GROUP.finditer(masked):
        if match.start() not in nested:
            caret = 1 if match.start() > 0 and masked[match.start() - 1] == "^" else 0  # `^[1]`: the caret is the marker's
            add(match.start() - caret, match.end(), match.group("body"))
        elif _doubled(match.start(), match.end(), nested, closer):
            add(match.start() - 1, match.end() + 1, match.group("body"))
    for match in _PAREN_GROUP.finditer(masked):
        add(match.start(), match.end(), match.group("body"))
    taken = sorted((marker.start, marker.end) for marker in found)
    for match in _CARET.finditer(masked):
        if not _overlaps(match.start(), taken):
            add(match.start(), match.end(), match.group("caret") or match.group("superscript") or match.group("spaced"))
    found.sort(key=lambda marker: marker.start)
    return tuple(found)


def _overlaps(position: int, spans: list[tuple[int, int]]) -> bool:
    index = bisect.bisect_right(spans, (position, float("inf"))) - 1
    return index >= 0 and spans[index][0] <= position < spans[index][1]


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
    """What `text` asserts (module doc): without its citation markers (and the blank before
    each) and without its source definitions. "[2]" is not the number 2 of "2.1 million
    inhabitants [2]"; text with neither is returned as it is."""
    markers = find_markers(text, ids)
    sources = source_definitions(text)
    if not markers and not sources:
        return text
    cuts = sorted([(marker.start, marker.end, True) for marker in markers] + [(*span, False) for span in sources])
    kept: list[str] = []
    position = 0
    for start, end, is_marker in cuts:
        if end <= position:
            continue
        start = max(start, position)
        while is_marker and start > position and text[start - 1] in " \t":
            start -= 1
        kept.append(text[position:start])
        position = end
    kept.append(text[position:])
    stripped = "".join(kept)
    return stripped.rstrip() if sources else stripped


def has_markers(text: str, ids: Collection[str | None] = ()) -> bool:
    """Whether `text` carries at least one citation marker."""
    return bool(_markers(text, tuple(ids)))
