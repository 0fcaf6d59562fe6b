"""What a resumed batch may reuse from its results file: records judged the same way as this
run (which records failed is `batch.summary.holds_a_failure`, the rule exit 1 reads too).

Why: resume skips every id already in `--out`, so a record that failed
(the judge was down, a reply never validated) would be kept for ever, and a resume with another
judge, profile, method switch or escalation (another second judge or band, or none) would
silently mix two judges in one file. `--retry-failed`
re-judges the first kind; a stamp that differs from this run's refuses the resume unless
`--force-resume` says the mix is wanted (`commands.batch` applies both).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..calibration.profile import judge_identity
from ..text.visible import visible
from .escalation_provenance import escalation_changes

COMPARED = ("judge_model", "profile_id", "prompt_hash", "judgegraph_version", "rubric", "settings", "escalation")
"""The provenance fields a resume must agree on (`batch.provenance.Provenance`)."""


def _show(value: object) -> str:
    """A stamp's value for the one-line error: the old file's values are file text, shown with
    their control characters escaped (`text.visible`)."""
    return "none" if value is None else visible(str(value))


def _differences(old: dict, new: dict) -> list[str]:
    found: list[str] = []
    for key in COMPARED:
        before, after = old.get(key), new.get(key)
        if key == "judge_model":
            same = judge_identity(str(before)) == judge_identity(str(after)) if before and after else before == after
            if not same:
                found.append(f"judge {_show(before)} -> {_show(after)}")
        elif key == "settings" and isinstance(before, dict) and isinstance(after, dict):
            found += [f"{name} {_show(before.get(name))} -> {_show(after.get(name))}"
                      for name in dict.fromkeys([*before, *after]) if before.get(name) != after.get(name)]
        elif key == "escalation":  # the second judge by identity too, and the band
            found += [visible(change) for change in escalation_changes(before, after, by_identity=True)]
        elif before != after:
            found.append(f"{key} {_show(before)} -> {_show(after)}")
    return found


def provenance_conflict(stamps: Iterable[dict | None], current: dict) -> str | None:
    """What differs between the records already in the file and this run's provenance, as one
    phrase (None when they agree). Records written before provenance was recorded cannot be
    compared and are not held against the run. The judge is compared by identity, not by the
    URL spelling (`calibration.profile.judge_identity`)."""
    found: list[str] = []
    for stamp in stamps:
        if stamp is None:
            continue
        found += [d for d in _differences(stamp, current) if d not in found]
    return "; ".join(found) if found else None
