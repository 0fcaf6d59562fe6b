"""Warnings the command line says once per run, in its own words, on stderr.

Why its own module: the single-item and the batch modes both say them, and the library's own
`warnings.warn` for the same condition (for apps that embed the graph) must not print a second,
differently worded copy under the CLI.
"""

from __future__ import annotations

import re
import warnings

from rich.console import Console
from rich.markup import escape

from ..llm.embedding_availability import MISSING_EMBEDDINGS, WARNING_PREFIX


def announce_missing_embeddings(console: Console) -> None:
    """Say once that the embedding model is missing (and silence the library's copy)."""
    warnings.filterwarnings("ignore", message=re.escape(WARNING_PREFIX))
    console.print(f"[yellow]warning: {escape(MISSING_EMBEDDINGS)}[/]", soft_wrap=True)
