"""What a long command is doing, step by step, on stderr.

Why: fitting a profile computes for seconds to minutes with no judge call and nothing else to
show; a user should see it is working, and on what. On a terminal the steps are a rich progress
bar that names the current one; in a log or a pipe (no terminal) each step is one plain line,
so nothing is redrawn over itself.
"""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


class StepProgress:
    """`total` named steps of `title`; call `step(description)` as each one starts. A context
    manager: the bar (on a terminal) is closed on exit, the last step counted as done."""

    def __init__(self, console: Console, title: str, total: int) -> None:
        self.console, self.title, self.total = console, title, total
        self.started = 0
        self.progress: Progress | None = None
        if console.is_terminal:
            self.progress = Progress(
                TextColumn(f"[bold]{escape(title)}[/]"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.description}"), TimeElapsedColumn(), console=console, transient=True)
            self.task_id = self.progress.add_task("", total=total)

    def step(self, description: str) -> None:
        """The next step starts (the one before it is done)."""
        self.started += 1
        if self.progress is not None:
            self.progress.update(self.task_id, completed=self.started - 1, description=escape(description))
        else:
            print(f"judgegraph: {self.title}: {description} ({self.started}/{self.total})",
                  file=self.console.file, flush=True)

    def __enter__(self) -> "StepProgress":
        if self.progress is not None:
            self.progress.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self.progress is not None:
            self.progress.update(self.task_id, completed=self.started)
            self.progress.__exit__(kind, error, traceback)
