"""User text made safe to show: control and bidirectional-formatting characters written out.

Why: ids, answers and claims come from files judgegraph did not write. An `ESC ]0;...` sequence in
an id retitles the user's terminal, `ESC [2J` clears it, a carriage return overwrites the line it
is on (a forged "ok" beside a failed gate), and U+202E (RIGHT-TO-LEFT OVERRIDE) reverses the text
after it, in a terminal as in a browser, so "gpj.exe" reads as "exe.jpg". Escaping HTML's `<>&`
does nothing against these. Every view of user text (the console tables, the HTML pages) passes
it through `visible`, which shows each such character as its escape (`\\x1b`, `\\u202e`), so the
text is still all there and the reader sees that it was odd.

The characters: Unicode's controls (C0, DEL, C1), the line and paragraph separators, the bidi
marks, embeddings, overrides and isolates, and lone surrogates (an id a results file keeps
JSON-escaped has no UTF-8 form: printed raw, it stops the terminal or the page with an
encoding error). One regular expression, so the cost is linear.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, keep: str = "") -> str:
    """`text` with every control and bidi-formatting character written as its escape; the
    characters in `keep` (e.g. "\\n\\t" where the view shows line breaks) stay as they are."""
    if keep:
        return _UNSAFE.sub(lambda m: m.group() if m.group() in keep else _escape(m), text)
    return _UNSAFE.sub(_escape, text)
