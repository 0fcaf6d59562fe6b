"""Two results files in, one comparison out: pairing, per-metric statistics, moved items, judges.

Why a plain-data result: the console table, the `--json` output, the HTML page and the CI gate
all read the same `Comparison`, so they cannot disagree, and tests check the numbers without
rendering anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .conversations import ConversationChange, conversation_changes
from .moved import MovedItem, moved_items
from .paired_stats import LabelStats, OrdinalStats, ScoreStats, label_stats, ordinal_stats, score_stats
from .pairing import MetricPairs, pair_metrics
from .provenance_check import provenance_notes
from .run_file import ComparisonError, RunFile, read_run

DEFAULT_TOP = 5


@dataclass
class MetricComparison:
    pairs: MetricPairs
    score: ScoreStats | None = None
    ordinal: OrdinalStats | None = None
    labels: LabelStats | None = None
    moved: list[MovedItem] = field(default_factory=list)
    corrected: Any = None
    """With labels of both runs: the label-corrected difference (`label_correction.CorrectedDifference`),
    which the gate then reads instead of the judge's."""

    @property
    def key(self) -> str:
        return self.pairs.key

    @property
    def changes(self) -> list[float]:
        """after - before of every numeric pair, for the distribution of differences."""
        return self.pairs.numeric.changes()

    @property
    def gate_interval(self) -> tuple[float, float] | None:
        """The interval `--fail-if-worse` reads: the mean difference's for scores, the net
        share improved's for ordinal metrics; None for labels or without pairs. With labels of
        both runs (`label_correction`), the label-corrected mean difference's, whatever the kind."""
        if self.corrected is not None:
            return self.corrected.interval
        if self.score is not None:
            return self.score.interval
        if self.ordinal is not None:
            return self.ordinal.interval
        return None


@dataclass
class Comparison:
    before: RunFile
    after: RunFile
    shared: list[str]
    only_before: list[str]
    only_after: list[str]
    metrics: list[MetricComparison]
    judge_differences: list[str]
    """Ways the two runs' judges differ (model, prompts, version, profile, settings)."""
    notes: list[str]
    """What the comparison left out or cannot tell, one line each."""
    conversations: list[ConversationChange] = field(default_factory=list)
    """Per conversation both files hold (conversation files only): mean and worst turn per metric."""

    def metric(self, key: str) -> MetricComparison | None:
        return next((m for m in self.metrics if m.key == key), None)


def _statistics(pairs: MetricPairs) -> MetricComparison:
    result = MetricComparison(pairs)
    if pairs.numeric:
        before, after = pairs.numeric.before, pairs.numeric.after
        if pairs.kind == "ordinal":
            result.ordinal = ordinal_stats(before, after, pairs.scale)
        else:
            result.score = score_stats(before, after)
    if pairs.labels:
        result.labels = label_stats([str(value) for value in pairs.labels.before],
                                    [str(value) for value in pairs.labels.after])
    return result


def _file_notes(run: RunFile) -> list[str]:
    notes = []
    if run.truncated_tail:
        notes.append(f"{run.name}: its last line is cut off (a run still writing, or killed): left out")
    if run.unreadable_lines:
        shown = ", ".join(map(str, run.unreadable_lines[:5])) + (", ..." if len(run.unreadable_lines) > 5 else "")
        notes.append(f"{run.name}: {len(run.unreadable_lines):,} line(s) are not result records "
                     f"(line {shown}): left out")
    if run.duplicate_ids:
        notes.append(f"{run.name}: {len(run.duplicate_ids):,} duplicate id(s): the first record of each is used")
    return notes


def compare_runs(before_path: Path, after_path: Path, *, metrics: list[str] | None = None,
                 top: int = DEFAULT_TOP) -> Comparison:
    """Compare two batch results files; `ComparisonError` (one line) when they cannot be."""
    before, after = read_run(Path(before_path)), read_run(Path(after_path))
    shared = [item_id for item_id in before.ids if item_id in after.ids]
    if not shared:
        raise ComparisonError(f"{before.name} and {after.name} share no item id: nothing to pair "
                              f"({len(before.ids):,} and {len(after.ids):,} records)")
    all_pairs = pair_metrics(before, after, shared)
    if metrics:
        known = [p.key for p in all_pairs]
        unknown = [name for name in metrics if name not in known]
        if unknown:
            raise ComparisonError(f"--metrics: no metric {', '.join(map(repr, unknown))} in these files "
                                  f"(they have: {', '.join(known)})")
        all_pairs = [p for name in metrics for p in all_pairs if p.key == name]
    compared = []
    for pairs in all_pairs:
        result = _statistics(pairs)
        result.moved = moved_items(pairs, before, after, top)
        compared.append(result)
    differences, notes = provenance_notes(before.provenances, after.provenances, before.name, after.name)
    notes = _file_notes(before) + _file_notes(after) + notes
    only_before = [i for i in before.ids if i not in after.ids]
    only_after = [i for i in after.ids if i not in before.ids]
    if only_before or only_after:
        notes.append(f"partial comparison: {len(shared):,} shared id(s); {len(only_before):,} only in "
                     f"{before.name}, {len(only_after):,} only in {after.name} (listed, not compared)")
    conversations = conversation_changes(before.conversations, after.conversations)
    return Comparison(before=before, after=after, shared=shared, only_before=only_before, only_after=only_after,
                      metrics=compared, judge_differences=differences, notes=notes, conversations=conversations)
