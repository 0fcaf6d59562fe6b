"""`judgegraph label --terminal`: the labelling page's loop in a terminal (for SSH), same file.

One item at a time, as on the page: its fields and its context, then one prompt per metric. A
line is read per answer, so the loop can be driven by any input (a person, a script, a pipe): a
label's key, `s` skip, `u` undo, `n TEXT` a note, `q` (or the end of the input) stop. Blind by
default, as the page (`labelling.page` says why): the answer's claims with the judge's verdicts
and evidence, and its scores, are printed once the label is saved. With `--show-judge` the
claims, verdicts and the context's evidence marks come before the prompts, and `v` prints the
scores sooner (each label then records `judge_shown`).

Every string from the results goes through `console.safe_text`: shown as text, no rich markup,
control and bidi characters written out.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..console.safe_text import safe_text
from ..report.build import ItemView, item_view
from .errors import LabellingError
from .blind_view import blind
from .session import Current, Session

ReadLine = Callable[[str], str]
"""prompt -> the next line (raises EOFError at the end of the input)."""

_QUIT = object()


def run_terminal(session: Session, console: Console, read_line: ReadLine) -> None:
    """Label until every item has a label or a skip, `q`, or the input ends."""
    while True:
        current = session.current()
        if current is None:
            console.print(f"Every item has a label or a skip: {session.labelled} labels in {session.log.path}.")
            return
        view = item_view(current.position + 1, session.record(current))
        _show_item(console, session, current, view)
        if _label_item(console, session, current, view, read_line) is _QUIT:
            return


def _show_item(console: Console, session: Session, current: Current, view: ItemView) -> None:
    console.rule(Text(f"item {current.position + 1} of {session.n_items}"
                      + (f" · stratum {current.stratum}" if current.stratum and session.show_judge else "")
                      + f" · {session.labelled} labelled, {session.skipped} skipped"))
    console.print(Text("id ", style="dim") + safe_text(view.id))
    for key, text in view.fields:
        console.print(Text(f"{key}: ", style="bold") + safe_text(text))
    if session.show_judge:
        _show_claims(console, view)
    for number, passage in enumerate(view.passages if session.show_judge else blind(view).passages, 1):
        text = Text(f"context {number}: ", style="bold")
        for piece, marked in passage:
            text.append_text(safe_text(piece, "black on yellow" if marked else ""))
        console.print(text)


def _show_claims(console: Console, view: ItemView) -> None:
    if not view.claims:
        return
    table = Table(title="the answer's claims and the judge's verdicts", title_justify="left")
    for column in ("#", "claim", "verdict", "evidence the judge used"):
        table.add_column(column)
    for number, claim in enumerate(view.claims, 1):
        table.add_row(str(number), safe_text(claim.claim), safe_text(claim.verdict, "green" if claim.counts else "red"),
                      safe_text(claim.evidence, "italic"))
    console.print(table)


def _show_scores(console: Console, view: ItemView) -> None:
    table = Table(title="the judge's scores", title_justify="left")
    for column in ("metric", "score", "explanation"):
        table.add_column(column)
    for metric in view.metrics:
        table.add_row(metric.key, "–" if metric.score is None else f"{metric.score:g}", safe_text(metric.comment or ""))
    console.print(table)


def _label_item(console: Console, session: Session, current: Current, view: ItemView, read_line: ReadLine) -> object:
    values: dict[str, int] = {}
    note = ""
    for scale in session.scales:
        choices = " / ".join(f"{v.key} {v.name}" for v in scale.values)
        keys = "s skip · u undo · v scores · n TEXT note · q quit" if session.show_judge else "s skip · u undo · n TEXT note · q quit"
        while scale.metric not in values:
            try:
                answer = read_line(f"{scale.metric}? {choices} · {keys} > ").strip()
            except EOFError:
                return _QUIT
            if answer == "q":
                return _QUIT
            if answer == "s":
                session.skip(current.position, current.record.id)
                console.print("skipped")
                return None
            if answer == "u":
                undone = session.undo()
                console.print(f"undone: item {undone!r} comes back" if undone else "nothing to undo")
                return None
            if answer == "v" and session.show_judge:
                _show_scores(console, view)
            elif answer == "v":
                console.print("the judge's verdicts and scores are shown once the label is saved (to see them "
                              "first: judgegraph label --show-judge, recorded on each label)")
            elif answer == "n" or answer.startswith("n "):
                note = answer[2:].strip()
                console.print("note kept" if note else "note cleared")
            elif (value := scale.by_key(answer)) is not None:
                values[scale.metric] = value.value
            else:
                console.print(Text("not a key here: ") + safe_text(answer[:40]))
    try:
        session.label(current.position, current.record.id, values, note)
    except LabellingError as error:
        console.print(Text(f"not saved: {error}", style="red"))
        return None
    console.print(f"saved ({session.labelled} labelled)")
    if (precision := session.precision()) is not None:
        console.print(safe_text(precision))
    if not session.show_judge:
        _show_claims(console, view)
    _show_scores(console, view)
    return None
