"""Were both runs judged the same way? Their `provenance` objects, compared field by field.

Why: a comparison answers "did my system change help?" only when the judge stayed the same.
Another judge model, edited prompts, another judgegraph version (its rules in code), another
calibration profile, other method switches or another second judge or band (`--escalate-to`)
move scores on their own; when any of them
differ, the comparison says so next to its figures, because then a difference is not the
system's alone. Files written before provenance was recorded, or mixing several (a run resumed
with other flags), are stated too: then nobody can tell.
"""

from __future__ import annotations

from typing import Any

from ..batch.escalation_provenance import escalation_changes

FIELDS = {
    "judge_model": "judge models",
    "judgegraph_version": "judgegraph versions",
    "profile_id": "calibration profiles",
    "prompt_hash": "prompt templates",
    "rubric": "forced rubrics (--rubric)",
    "settings": "judge settings",
    "escalation": "escalation (--escalate-to)",
}


def _show(value: Any) -> str:
    return "none" if value is None else str(value)


def _difference(key: str, old: Any, new: Any) -> str | None:
    if old == new:
        return None
    if key == "settings" and isinstance(old, dict) and isinstance(new, dict):
        changed = [f"{name} {_show(old.get(name))} -> {_show(new.get(name))}"
                   for name in dict.fromkeys([*old, *new]) if old.get(name) != new.get(name)]
        return f"different {FIELDS[key]}: " + ", ".join(changed)
    if key == "escalation":  # a second judge decided some verdicts of one run, or another band
        changes = escalation_changes(old, new, by_identity=False) or [f"{_show(old)} vs {_show(new)}"]
        return f"different {FIELDS[key]}: " + "; ".join(changes)
    return f"different {FIELDS[key]}: {_show(old)} (before) vs {_show(new)} (after)"


def provenance_notes(before: list[dict | None], after: list[dict | None],
                     before_name: str, after_name: str) -> tuple[list[str], list[str]]:
    """(differences between the runs' judges, notes on what cannot be told), each one line."""
    notes: list[str] = []
    for name, stamps in ((before_name, before), (after_name, after)):
        if any(stamp is None for stamp in stamps):
            notes.append(f"{name}: some or all records carry no provenance (written before judgegraph "
                         "recorded it): cannot tell whether both runs used the same judge")
        if len(stamps) > 1:
            notes.append(f"{name} mixes {len(stamps)} provenances (a run resumed with another judge or "
                         "flags?): its items were not all judged the same way")
    known_before = [s for s in before if s is not None]
    known_after = [s for s in after if s is not None]
    if not known_before or not known_after:
        return [], notes
    old, new = known_before[0], known_after[0]
    differences = [line for key in FIELDS if (line := _difference(key, old.get(key), new.get(key)))]
    return differences, notes
