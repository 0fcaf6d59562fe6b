"""What the embedded judge's start-up is doing, told as it happens.

Why: the first `evaluate` on the embedded judge can spend minutes before its first judge call
(joining a 1.1 GB model from its PyPI parts, then loading it into a llama.cpp server); a silent
terminal looks hung. The runtime (`assembly`, `server`) tells each step to a `Status` callback
the caller passes; the library default is silence, and the command line tells stderr
(`to_stderr`), where progress goes, never stdout.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

Status = Callable[[str], None]
"""Told one line, in words, as each start-up step begins or ends."""


def to_stderr(message: str) -> None:
    """A `Status` that prints `judgegraph: local judge: <message>` on stderr, at once."""
    print(f"judgegraph: local judge: {message}", file=sys.stderr, flush=True)


def silent(message: str) -> None:
    """The library default: nothing is told."""
