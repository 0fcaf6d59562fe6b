"""The batch's progress line on stderr: items written, failures, tokens, cache hits, ETA.

Why its own module: both engines show the same bar (the Ray engine's driver writes records as
they come back, through the same run), and the run loop only has to say what changed.
"""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class ProgressBar:
    """A rich progress bar for `total` items; use it as a context manager. `disable`: nothing is
    drawn (`evaluate_batch` without `progress=True`), the run's counting stays the same."""

    def __init__(self, console: Console, total: int, *, cache_on: bool, disable: bool = False) -> None:
        self.progress = Progress(
            TextColumn("[bold]judging[/]"), BarColumn(), MofNCompleteColumn(),
            TextColumn("failed [red]{task.fields[failed]}[/]"),
            TextColumn("tokens [magenta]{task.fields[tokens]}[/]"),
            TextColumn("cache [cyan]{task.fields[hits]}[/]"),
            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
            console=console, transient=False, disable=disable,
        )
        self.task_id = self.progress.add_task("judging", total=total, failed=0, tokens="0",
                                              hits=0 if cache_on else "-")

    @property
    def console(self) -> Console:
        """Print through this while the bar is live, so lines appear above it."""
        return self.progress.console

    def advance(self, *, failed: int, tokens: int, cache_hits: int | None) -> None:
        """One more item written; the counters as they now stand (None: no cache)."""
        self.progress.update(self.task_id, advance=1, failed=failed, tokens=f"{tokens:,}",
                             hits="-" if cache_hits is None else cache_hits)

    def __enter__(self) -> "ProgressBar":
        self.progress.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.progress.__exit__(kind, error, traceback)
