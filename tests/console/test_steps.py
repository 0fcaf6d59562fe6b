"""`console.steps.StepProgress`: a long command's steps, one progress bar on a terminal."""

from __future__ import annotations

import io

from rich.console import Console

from judgegraph.console.steps import StepProgress


def test_on_a_terminal_the_steps_are_one_progress_bar_naming_the_current_step():
    out = io.StringIO()
    with StepProgress(Console(file=out, force_terminal=True, width=100), "calibrate", 2) as progress:
        progress.step("cross-validation")
        progress.step("bootstrap [intervals]")
    shown = out.getvalue()
    assert "calibrate" in shown and "bootstrap [intervals]" in shown and "2/2" in shown
    assert "judgegraph: calibrate:" not in shown
