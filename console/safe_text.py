"""User text for the console: a rich `Text` with control and bidi characters written out.

Why not `rich.text.Text(value)` alone: it shows markup literally, but it passes `ESC` and the
bidi overrides to the terminal (`text.visible`). Every string from a file, an item or a judge
that a console view prints goes through `safe_text`.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from ..text.visible import visible


def safe_text(value: Any, style: str = "") -> Text:
    """`value` as text, shown as it is (no markup) with its unsafe characters escaped."""
    return Text(visible(value if isinstance(value, str) else str(value)), style=style)
