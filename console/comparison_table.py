"""`judgegraph compare` on the console: one row per metric, then what the figures leave out.

The table says, per metric, how many items were paired and the figures fit for its scale
(scores: means, the mean difference with its 95 % interval, wins/losses/ties and the sign
test; ordinal: up/down/same, the net share improved with its interval, and Wilcoxon; labels:
items that changed and McNemar). Below it: the judges' differences, items that changed status,
ids in one file only, the items that moved most, and the gate's lines. Every user string
(ids, explanations) goes into `Text` objects, so markup in it is shown, never interpreted.
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..comparison import Comparison, GateVerdict, MetricComparison
from .safe_text import safe_text
from .wrapping_columns import WrapColumn, fill_table

_GATE_STYLE = {"worse": "bold red", "no_data": "bold red", "inconclusive": "yellow", "ok": "green"}


def _num(value: float | None, digits: int = 3, signed: bool = False) -> str:
    if value is None:
        return "–"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def _p(value: float | None) -> str:
    return "–" if value is None else ("<0.001" if value < 0.001 else f"{value:.3f}")


def _interval(interval: tuple[float, float] | None) -> str:
    return "–" if interval is None else f"[{interval[0]:+.3f}, {interval[1]:+.3f}]"


def _significant(interval: tuple[float, float] | None) -> str:
    if interval and interval[0] > 0:
        return "bold green"
    if interval and interval[1] < 0:
        return "bold red"
    return ""


def _rows(metric: MetricComparison) -> list[list[Text | str]]:
    """One row per kind of pairs the metric has (expected_output can have scores and labels)."""
    pairs = metric.pairs
    changed = sum(pairs.status_changes.values())
    status = str(changed) if changed else ""
    rows: list[list[Text | str]] = []
    if metric.score is not None:
        s = metric.score
        rows.append([safe_text(pairs.key), str(s.n), f"{_num(s.mean_before)} → {_num(s.mean_after)}",
                     safe_text(f"{_num(s.mean_difference, signed=True)} {_interval(s.interval)}",
                          style=_significant(s.interval)),
                     f"{s.wins}/{s.losses}/{s.ties}", f"sign {_p(s.sign_test_p)}", status])
    if metric.ordinal is not None:
        o = metric.ordinal
        rows.append([safe_text(pairs.key), str(o.n), "ordinal: net",
                     safe_text(f"{_num(o.net_share_improved, signed=True)} {_interval(o.interval)}",
                          style=_significant(o.interval)),
                     f"{o.up}/{o.down}/{o.same}", f"Wilcoxon {_p(o.wilcoxon_p)}", status])
    if metric.labels is not None:
        labels = metric.labels
        smallest = min((t.p for t in labels.tests if t.p is not None), default=None)
        rows.append([safe_text(pairs.key), str(labels.n), "labels", f"{labels.changed} changed label",
                     "", f"McNemar {_p(smallest)}", "" if rows else status])
    if not rows:
        rows.append([safe_text(pairs.key), "0", "", "no item judged in both", "", "", status])
    return rows


_COLUMNS = (WrapColumn("metric", "left", 12), WrapColumn("n"), WrapColumn("before → after", floor=len("ordinal:")),
            WrapColumn("Δ [95 % CI]", floor=len("[-0.357,")), WrapColumn("W/L/T"),
            WrapColumn("test p", floor=len("Wilcoxon")), WrapColumn("status Δ"))
"""The key, the means, the difference with its interval and the test may wrap; the counts never do."""
_GIVEN_FIRST = (3, 2, 5, 0)
"""The wrapping columns in the order they get width beyond their floors: the interval first."""


def metrics_table(comparison: Comparison, width: int) -> Table:
    """The table of every metric, fit to `width` columns (`wrapping_columns`)."""
    table = Table(box=box.SIMPLE_HEAD, title=safe_text(f"{comparison.before.name} → {comparison.after.name}: "
                             f"{len(comparison.shared):,} shared items"), title_justify="left")
    rows = [[cell if isinstance(cell, Text) else Text(cell) for cell in row]
            for metric in comparison.metrics for row in _rows(metric)]
    return fill_table(table, _COLUMNS, rows, _GIVEN_FIRST, width)


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def print_gate(console: Console, verdicts: list[GateVerdict]) -> None:
    """One line per gated metric: its outcome and the interval it was decided on."""
    for verdict in verdicts:
        console.print(safe_text(verdict.message, style=_GATE_STYLE[verdict.outcome]))


CONVERSATIONS_SHOWN = 10
"""Conversation lines printed (conversation files); `--json` and the page hold them all."""


def corrected_line(corrected: Any) -> str:
    """One metric's label-corrected difference (`comparison.label_correction.CorrectedDifference`)."""
    estimate = corrected.estimate
    labels = (f"{corrected.n_labels_paired} items labelled in both runs" if corrected.paired
              else f"{corrected.n_labels_before} + {corrected.n_labels_after} labels, unpaired")
    return (f"{corrected.metric}: label-corrected Δ mean {_num(estimate.corrected.estimate, signed=True)} "
            f"{_interval((estimate.corrected.low, estimate.corrected.high))} ({labels}; judge's Δ "
            f"{_num(corrected.judge_difference, signed=True)}; labels only {_num(estimate.labels_only.estimate, signed=True)} "
            f"{_interval((estimate.labels_only.low, estimate.labels_only.high))})")


def render_comparison(console: Console, comparison: Comparison, *, moved_per_metric: int = 3) -> None:
    for line in comparison.judge_differences:
        console.print(safe_text(f"judge differs: {line}: a difference below is not the system's alone", style="bold yellow"))
    for note in comparison.notes:
        console.print(safe_text(note, style="yellow"))
    console.print(metrics_table(comparison, console.width))
    console.print(safe_text("Δ mean: after - before over the items judged in both runs. W/L/T: items higher / "
                       "lower / the same after (ordinal: up/down/same). Ordinal scales have no mean: net = "
                       "(up - down) / n. Two-sided tests. status Δ: items judged in one run only, apart.",
                       style="dim"))
    for metric in comparison.metrics:
        if metric.corrected is not None:
            console.print(safe_text(corrected_line(metric.corrected), style="bold"))
            for note in metric.corrected.notes:
                console.print(safe_text(f"{metric.key}: {note}", style="yellow"))
        for (was, now), count in metric.pairs.status_changes.items():
            ids = metric.pairs.status_change_ids[(was, now)]
            console.print(safe_text(f"{metric.key}: {count} item(s) {was} -> {now} (not in the figures): "
                               + _short(", ".join(ids), 120)))
        if metric.labels is not None:
            moves = ", ".join(f"{b} -> {a}: {n}" for (b, a), n in metric.labels.transitions.items() if b != a)
            if moves:
                console.print(safe_text(f"{metric.key} label changes: {moves}"))
    for conversation in comparison.conversations[:CONVERSATIONS_SHOWN]:
        parts = [f"{m.metric} {_num(m.before, 2)} -> {_num(m.after, 2)} (worst turn {m.worst_turn_before or '-'} -> "
                 f"{m.worst_turn_after or '-'})" for m in conversation.metrics]
        console.print(safe_text(f"conversation {_short(conversation.id, 60)}: " + "; ".join(parts)))
    for name, ids in ((comparison.before.name, comparison.only_before), (comparison.after.name, comparison.only_after)):
        if ids:
            console.print(safe_text(f"only in {name} ({len(ids)}): " + _short(", ".join(ids), 200)))
    for metric in comparison.metrics:
        for item in metric.moved[:moved_per_metric]:
            change = f"{item.change:+.2f}" if item.change is not None else "label"
            console.print(safe_text(f"{metric.key} · {item.id}: {item.before} -> {item.after} ({change})", style="bold"))
            console.print(safe_text(f"    before: {_short(item.explanation_before)}"))
            console.print(safe_text(f"    after:  {_short(item.explanation_after)}"))
            for flip in item.flips:
                console.print(safe_text(f"    claim {flip.before} -> {flip.after}: {_short(flip.claim, 100)}", style="dim"))
