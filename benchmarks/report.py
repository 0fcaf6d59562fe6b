"""Writing a benchmark report: JSON for machines, a Markdown table for people, one bar chart.

The report dict is built by `benchmarks.agreement`; this module only formats it, so the
figures in the Markdown and the plot are exactly the ones in the JSON.
"""

from __future__ import annotations

import json
import sys
from importlib.util import find_spec
from pathlib import Path

HEADLINE = {
    "binary": ("balanced_accuracy_decision", "balanced accuracy"),
    "correlation": ("spearman", "Spearman"),
    "ranking": ("pairwise_accuracy", "pairwise acc."),
}
"""The one figure per set kind shown in the plot."""


def _fmt(value: float | None, places: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{places}f}"


def _ci(figures: dict, key: str) -> str:
    interval = figures.get(f"{key}_ci")
    return f" [{interval[0]:.2f}, {interval[1]:.2f}]" if interval else ""


def figures_text(kind: str, figures: dict) -> str:
    """The set's figures, each with its 95 % bootstrap interval in brackets."""
    if kind == "binary":
        threshold = figures.get("best_threshold")
        at = f" (t={threshold:g})" if threshold is not None else ""
        return (f"BA {_fmt(figures.get('balanced_accuracy_decision'))}{_ci(figures, 'balanced_accuracy_decision')}"
                f" ({figures.get('decision_rule', 'score < 0.5')})"
                f" · BA@0.5 {_fmt(figures.get('balanced_accuracy_05'))}"
                f" · AUROC {_fmt(figures['auroc'])}{_ci(figures, 'auroc')}"
                f" · BA@1 {_fmt(figures['balanced_accuracy'])} · in-sample best BA {_fmt(figures['balanced_accuracy_best'])}{at}")
    if kind == "correlation":
        return (f"Spearman {_fmt(figures['spearman'])}{_ci(figures, 'spearman')}"
                f" · Pearson {_fmt(figures['pearson'])}{_ci(figures, 'pearson')}")
    return (f"pairwise {_fmt(figures['pairwise_accuracy'])}{_ci(figures, 'pairwise_accuracy')} ({figures['pairs']} pairs)"
            f" · AUROC {_fmt(figures['auroc'])}{_ci(figures, 'auroc')}")


def markdown(report: dict) -> str:
    parts = sorted({entry.get("part", "report") for entry in report["sets"]})
    lines = [
        f"Model: `{report['model']}` · date: {report['generated_at']} · commit: `{report.get('commit') or 'unknown'}`"
        f" · split part: {', '.join(parts)}",
        "",
        f"Command: `{report['command']}`",
        "",
        "| set (metric) | method | judged / failed | agreement | calls/item | tokens in / out per item | s/item |",
        "|---|---|---|---|---|---|---|",
    ]
    for entry in report["sets"]:
        for method, data in entry["methods"].items():
            cost = data["cost"]
            lines.append(
                f"| {entry['set']} ({entry['metric']}) | {method} | {cost['judged']} / {cost['failed']} "
                f"| {figures_text(entry['kind'], data['agreement'])} | {cost['calls_per_item']:g} "
                f"| {cost['input_tokens_per_item']:g} / {cost['output_tokens_per_item']:g} "
                f"| {cost['seconds_per_item']:.1f} |"
            )
    strata_lines = _strata_table(report)
    if strata_lines:
        lines += ["", *strata_lines]
    return "\n".join(lines) + "\n"


def _strata_table(report: dict) -> list[str]:
    lines: list[str] = []
    for entry in report["sets"]:
        for method, data in entry["methods"].items():
            for stratum, figures in data["agreement"].get("strata", {}).items():
                if not lines:
                    lines = ["| set | stratum | method | n (hallucinated) | BA (decision rule) | AUROC |",
                             "|---|---|---|---|---|---|"]
                lines.append(
                    f"| {entry['set']} | {stratum} | {method} | {figures['n']} ({figures['hallucinated']}) "
                    f"| {_fmt(figures.get('balanced_accuracy_decision'))}{_ci(figures, 'balanced_accuracy_decision')} "
                    f"| {_fmt(figures['auroc'])}{_ci(figures, 'auroc')} |"
                )
    return lines


def plot(report: dict, path: Path) -> Path:
    """A grouped bar chart: per set, the headline agreement figure of graph vs baseline."""
    import matplotlib

    matplotlib.use("Agg")  # no display on servers and CI
    import matplotlib.pyplot as plt

    sets = report["sets"]
    methods = [m for m in ("graph", "graph-labels", "baseline") if any(m in e["methods"] for e in sets)]
    fig, ax = plt.subplots(figsize=(2.2 * max(len(sets), 2) + 1.5, 4.2))
    width = 0.8 / max(len(methods), 1)
    for offset, method in enumerate(methods):
        values = []
        for entry in sets:
            key = HEADLINE[entry["kind"]][0]
            value = entry["methods"].get(method, {}).get("agreement", {}).get(key)
            values.append(value)
        xs = [i + (offset - (len(methods) - 1) / 2) * width for i in range(len(sets))]
        bars = ax.bar(xs, [v or 0.0 for v in values], width, label=method)
        for bar, value in zip(bars, values):
            ax.annotate(_fmt(value), (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                        ha="center", va="bottom", fontsize=8)
    labels = [f"{e['set']}\n{HEADLINE[e['kind']][1]}\nn={_items(e)}" for e in sets]
    ax.set_xticks(range(len(sets)), labels, fontsize=8)
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":", label="chance (BA, pairwise)")
    ax.set_ylim(min(0.0, *(_lowest(e) for e in sets)), 1.05)
    ax.set_ylabel("agreement with human labels")
    ax.set_title(f"judgegraph vs single-prompt baseline · {report['model']}", fontsize=9)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _items(entry: dict) -> int:
    return max((m["cost"]["items"] for m in entry["methods"].values()), default=0)


def _lowest(entry: dict) -> float:
    key = HEADLINE[entry["kind"]][0]
    values = [m["agreement"].get(key) for m in entry["methods"].values()]
    return min([v for v in values if v is not None] or [0.0])


def write(report: dict, out_dir: Path, stem: str, *, with_plot: bool = False) -> list[Path]:
    """`<stem>.json` and `<stem>.md` (and `<stem>.png`) in `out_dir`; returns the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path = out_dir / f"{stem}.json"
    json_path.write_text(json.dumps(report, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    md_path = out_dir / f"{stem}.md"
    md_path.write_text(markdown(report), encoding="utf-8")
    written = [json_path, md_path]
    if with_plot:
        if find_spec("matplotlib") is None:
            print("benchmarks: no plot (pip install 'judgegraph[bench]' for matplotlib)", file=sys.stderr)
        else:
            written.append(plot(report, out_dir / f"{stem}.png"))
    return written
