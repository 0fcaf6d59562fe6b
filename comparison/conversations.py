"""Two runs of a conversation file, compared per conversation: each metric's mean and worst
turn before and after.

Why beside the per-turn pairing: a turn is paired by its id (`<conversation>/turn-<n>`) like
any item, so every figure of `compare` already covers conversation files turn by turn; what a
reader of a chat app also asks is which conversation got worse, and at which turn. The
per-conversation view is built from the same records (`batch.conversations`), never judged
again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..batch.conversations import ConversationSummary


@dataclass(frozen=True)
class MetricChange:
    metric: str
    before: float | None
    after: float | None
    worst_turn_before: int | None
    worst_turn_after: int | None

    @property
    def change(self) -> float | None:
        return None if self.before is None or self.after is None else self.after - self.before


@dataclass
class ConversationChange:
    id: str
    turns_before: int
    turns_after: int
    metrics: list[MetricChange] = field(default_factory=list)


def _worst_turn(summary: ConversationSummary, metric: str) -> int | None:
    worst = summary.worst(metric)
    return None if worst is None else worst[0]


def conversation_changes(before: list[ConversationSummary], after: list[ConversationSummary]) -> list[ConversationChange]:
    """The conversations both runs hold (their summaries, `batch.conversations`), in the before
    run's order; none for item files."""
    after_by_id = {str(summary.id): summary for summary in after}
    changes = []
    for old in before:
        new = after_by_id.get(str(old.id))
        if new is None:
            continue
        change = ConversationChange(str(old.id), old.judged, new.judged)
        for metric in dict.fromkeys([*old.values, *new.values]):
            change.metrics.append(MetricChange(metric, old.mean(metric), new.mean(metric),
                                               _worst_turn(old, metric), _worst_turn(new, metric)))
        changes.append(change)
    return changes
