"""The labels file, read: its design line, the labels that stand, and what each label means.

Why one module: every command that reads the file reads it here, so they agree on which
labels count and what a value means: `estimate`, `compare --labels-a/--labels-b`,
`report --labels`, `calibrate` (`read_labels_file`), and `label` itself when it resumes a file
(`read_for_resume`). Why in `schemas/`, beside the JSON Lines it reads (`jsonl.py`), and not in
`labelling/`, which writes it (`labelling/labels_log.py`, append only): the estimates and the
comparison read it and sit below `labelling/`, whose page and terminal loop show an item as the
report does (`report.build.item_view`); a reader in `labelling/` was an import back up from
`estimates/` and `comparison/`. It imports no estimator, no page and no numpy, so `calibrate`
and `label` load it alone.

The format (JSON Lines, docs/labelling.md and docs/estimates.md):

- an optional first line `{"design": {...}}`: how the items to label were drawn. `kind` is
  "uniform", "stratified" or "active"; `seed`, `order` ("seeded permutation"), `results` and
  `results_sha256` name the draw and the results file it was drawn from, `n_items` that file's
  judged items, `metrics` the metrics labelled. A stratified design lists its `strata`, each
  `{"name", "low", "high", "n_items", "inclusion_probability"}`: the items whose judge score
  (of `stratify_by`, else the first of `metrics`) lies in `low <= score < high` (the last
  stratum includes its `high`).
- one line per label: `{"id", "human", "note"?, "stratum"?, "position"?, "inclusion_probability"?,
  "judge_shown"?, ...item fields}`. `inclusion_probability` is an active design's q_k, the
  chance its item had of being drawn at its turn. `"judge_shown": true` marks a label given
  with the judge's verdicts in view (`label --show-judge`); `judge_shown_note` counts them for
  `estimate` and `compare`.
  `human` is a bare value (for the one metric the command is given) or an object with a value
  per metric (`{"faithfulness": 1, "context_relevance": 0}`); `label_value` reads a value.
  `"skipped": true` marks an item seen and not labelled.
- `{"id": ..., "undo": true}` cancels that id's last label (or skip) still standing
  (`StandingEntries`, the one reading of undos); an undo with nothing to cancel cancels nothing.

`read_labels_file` takes any file in that format, a hand-made `{"id", "human"}` file too (a
line without `id` is `line-<n>`). A second label for an id whose first still stands is refused
with both line numbers: which one the person meant is not ours to guess. `read_for_resume`
takes only what `judgegraph label` writes (the design line first; every other line a label, a
skip or an undo with a string id) and tolerates a last line cut off mid-write, which the writer
drops. Either stops at the first line it cannot use, naming it.
"""

from __future__ import annotations

import hashlib
import io
import math
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .jsonl import JsonlLine, jsonl_lines, line_problem, line_value
from .untrusted_json import UntrustedJsonError

DESIGN_KEY = "design"
DESIGN_KINDS = ("uniform", "stratified", "active")
BOOKKEEPING_KEYS = frozenset({"id", "human", "note", "skipped", "undo", "stratum", "position", "group",
                              "inclusion_probability", "source", "meta", "judge_shown"})
"""Keys of a label line that are not the item's fields."""
SHOWN_IDS = 5
"""Ids named in a message about many (the rest are counted)."""


class LabelsFileError(ValueError):
    """A labels file that cannot be used; one line naming the file (and the line)."""


class OtherResultsError(LabelsFileError):
    """Labels drawn from other results than the ones they are paired with (`provenance_notes`)."""


# --- the design line ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Stratum:
    name: str
    low: float
    high: float
    n_items: int | None
    inclusion_probability: float | None

    def holds(self, score: float, last: bool) -> bool:
        return self.low <= score < self.high or (last and score == self.high)


@dataclass(frozen=True)
class Design:
    kind: str
    seed: int | None = None
    results: str | None = None
    results_sha256: str | None = None
    n_items: int | None = None
    order: str | None = None
    metrics: tuple[str, ...] = ()
    strata: tuple[Stratum, ...] = ()
    stratify_by: str | None = None
    """The metric whose judge score defines the strata (default: the first of `metrics`)."""

    @property
    def strata_metric(self) -> str | None:
        return self.stratify_by or (self.metrics[0] if self.metrics else None)

    def stratum_of(self, score: float) -> int | None:
        """The index of the stratum a judge score falls in, None when it falls in none."""
        last = len(self.strata) - 1
        return next((i for i, s in enumerate(self.strata) if s.holds(score, i == last)), None)


def _number(value: Any, what: str, where: str, *, whole: bool = False) -> Any:
    if value is None:
        return None
    ok = isinstance(value, int) if whole else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok or (isinstance(value, float) and not math.isfinite(value)):
        raise LabelsFileError(f"{where}: design {what} must be {'a whole number' if whole else 'a number'}")
    return value


def read_design(value: Any, where: str) -> Design:
    """The `design` object of a labels file's first line (raises `LabelsFileError`)."""
    if not isinstance(value, dict):
        raise LabelsFileError(f"{where}: 'design' must be an object")
    kind = value.get("kind")
    if kind not in DESIGN_KINDS:
        raise LabelsFileError(f"{where}: design kind must be one of {', '.join(DESIGN_KINDS)}, not {kind!r}")
    metrics = value.get("metrics") or []
    if not isinstance(metrics, list) or not all(isinstance(m, str) for m in metrics):
        raise LabelsFileError(f"{where}: design metrics must be a list of metric names")
    strata = []
    for index, entry in enumerate(value.get("strata") or []):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise LabelsFileError(f"{where}: design strata[{index}] must be an object with a 'name'")
        low = _number(entry.get("low"), f"strata[{index}].low", where)
        high = _number(entry.get("high"), f"strata[{index}].high", where)
        if low is None or high is None or low > high:
            raise LabelsFileError(f"{where}: design strata[{index}] needs numbers low <= high")
        strata.append(Stratum(entry["name"], float(low), float(high),
                              _number(entry.get("n_items"), f"strata[{index}].n_items", where, whole=True),
                              _number(entry.get("inclusion_probability"),
                                      f"strata[{index}].inclusion_probability", where)))
    if kind == "stratified" and not strata:
        raise LabelsFileError(f"{where}: a stratified design must list its strata")
    if len({s.name for s in strata}) != len(strata):
        raise LabelsFileError(f"{where}: design strata names must differ")
    stratify_by = value.get("stratify_by")
    design = Design(
        kind=kind, seed=_number(value.get("seed"), "seed", where, whole=True),
        results=str(value["results"]) if value.get("results") is not None else None,
        results_sha256=str(value["results_sha256"]) if value.get("results_sha256") is not None else None,
        n_items=_number(value.get("n_items"), "n_items", where, whole=True),
        order=str(value["order"]) if value.get("order") is not None else None,
        metrics=tuple(metrics), strata=tuple(strata),
        stratify_by=stratify_by if isinstance(stratify_by, str) else None)
    if kind == "stratified" and design.strata_metric is None:
        raise LabelsFileError(f"{where}: a stratified design must name its metrics (or stratify_by)")
    return design


# --- the kinds of line, and what stands after the undos ------------------------------------------

def is_design(row: Any) -> bool:
    """A design line as `judgegraph label` writes it (an object under "design", no label)."""
    return isinstance(row, dict) and isinstance(row.get(DESIGN_KEY), dict) and "human" not in row


def is_skip(row: dict) -> bool:
    return row.get("skipped") is True


def is_undo(row: dict) -> bool:
    return row.get("undo") is True


class StandingEntries:
    """The labels and skips still standing, line by line: an undo cancels its id's last one.
    Incremental, so a reader can check each line as it reads it (a label given twice for one
    id is an error only while the first still stands)."""

    def __init__(self) -> None:
        self._entries: list[Any] = []
        self._cancelled: set[int] = set()
        self._of: dict[str, list[int]] = {}
        """id -> the indices of its entries still standing, oldest first (ids in order of first sight)."""

    def add(self, item_id: str, entry: Any) -> None:
        self._of.setdefault(item_id, []).append(len(self._entries))
        self._entries.append(entry)

    def undo(self, item_id: str) -> bool:
        """Cancel `item_id`'s last entry still standing; False when it has none."""
        standing = self._of.setdefault(item_id, [])
        if not standing:
            return False
        self._cancelled.add(standing.pop())
        return True

    def of(self, item_id: str) -> list[Any]:
        """`item_id`'s entries still standing, oldest first."""
        return [self._entries[i] for i in self._of.get(item_id, ())]

    def ids(self) -> list[str]:
        """Every id seen (by `add` or `undo`), in order of first sight."""
        return list(self._of)

    def entries(self) -> list[Any]:
        """The entries still standing, in the order they were given."""
        return [entry for i, entry in enumerate(self._entries) if i not in self._cancelled]


def active_entries(rows: Iterable[dict]) -> list[dict]:
    """The label and skip lines still standing after the undos, in the order they were given
    (design lines and the undo lines themselves left out)."""
    standing = StandingEntries()
    for row in rows:
        if is_design(row):
            continue
        if is_undo(row):
            standing.undo(str(row.get("id")))
        else:
            standing.add(str(row.get("id")), row)
    return standing.entries()


# --- reading a file ----------------------------------------------------------------------------

@dataclass(frozen=True)
class LabelLine:
    id: str
    human: Any
    line: int
    row: dict
    """The whole line, as read."""
    note: str | None = None
    stratum: str | None = None
    position: int | None = None

    @property
    def item(self) -> dict:
        """The item fields the line carries (question, context, answer, ...), for calibrate."""
        return {key: value for key, value in self.row.items() if key not in BOOKKEEPING_KEYS}


@dataclass
class LabelsFile:
    path: Path
    design: Design | None
    labels: list[LabelLine]
    """The labels that stand (not undone, not skipped), in file order."""
    skipped: list[str] = field(default_factory=list)
    """Ids whose last word is a skip."""
    undone: int = 0
    notes: list[str] = field(default_factory=list)
    """What the reader set aside and why (an undo with nothing to cancel), one line each."""
    sha256: str = ""

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class _Skip:
    line: int


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise LabelsFileError(f"cannot read {path}: {error.strerror or error}") from error


def _lines(raw: bytes) -> Iterator[tuple[JsonlLine, int]]:
    """The file's lines that are not blank, each with the offset of its first byte."""
    offset = 0
    for line in jsonl_lines(io.BytesIO(raw)):
        start = offset
        offset = raw.find(b"\n", offset) + 1 if line.complete else len(raw)
        if not line.blank:
            yield line, start


def read_labels_file(path: Path, check: Callable[[LabelLine, Design | None], str | None] | None = None) -> LabelsFile:
    """The labels that stand in `path`, with its design (raises `LabelsFileError`).

    `check` says what is wrong with a label line's value given the file's design (None when
    nothing is), so a caller that knows the metric stops at the first bad line, in file order,
    like every other error."""
    path = Path(path)
    raw = _read_bytes(path)
    result = LabelsFile(path=path, design=None, labels=[], sha256=hashlib.sha256(raw).hexdigest())
    standing = StandingEntries()
    first = True
    for line, _ in _lines(raw):
        where = f"{path.name} line {line.number}"
        try:
            row = line_value(line.raw)
        except UntrustedJsonError as error:
            raise LabelsFileError(f"{where}: {error}") from None
        if not isinstance(row, dict):
            raise LabelsFileError(f"{where}: not a JSON object")
        problem = line_problem(row)
        if problem:
            raise LabelsFileError(f"{where}: {problem}")
        if DESIGN_KEY in row:
            if not first:
                raise LabelsFileError(f"{where}: a design line must be the file's first line")
            result.design = read_design(row[DESIGN_KEY], where)
            first = False
            continue
        first = False
        item_id = str(row["id"]) if row.get("id") is not None else f"line-{line.number}"
        if is_undo(row):
            if standing.undo(item_id):
                result.undone += 1
            else:
                result.notes.append(f"{where}: undo of id {item_id!r}, which has no label above it: ignored")
            continue
        if is_skip(row):
            standing.add(item_id, _Skip(line.number))
            continue
        position = row.get("position")
        label = LabelLine(id=item_id, human=row.get("human"), line=line.number, row=row,
                          note=row.get("note") if isinstance(row.get("note"), str) else None,
                          stratum=str(row["stratum"]) if row.get("stratum") is not None else None,
                          position=position if isinstance(position, int) and not isinstance(position, bool)
                          else None)
        problem = check(label, result.design) if check is not None else None
        if problem:
            raise LabelsFileError(f"{where}: {problem}")
        earlier = next((entry for entry in reversed(standing.of(item_id)) if isinstance(entry, LabelLine)), None)
        if earlier is not None:
            raise LabelsFileError(f"{where}: id {item_id!r} is labelled twice, on lines {earlier.line} "
                                  f"and {line.number} (undo one, or delete a line)")
        standing.add(item_id, label)
    for item_id in standing.ids():
        entries = standing.of(item_id)
        if entries and not any(isinstance(entry, LabelLine) for entry in entries):
            result.skipped.append(item_id)
    result.labels = [entry for entry in standing.entries() if isinstance(entry, LabelLine)]
    return result


@dataclass
class ResumedFile:
    """A labels file `judgegraph label` wrote, as its next session needs it."""

    design: dict[str, Any]
    """The `design` object of its first line, as written."""
    rows: list[dict]
    """Every line after the design, in file order."""
    cut_at: int | None = None
    """The last line was cut off mid-write: the offset to truncate the file at; -1 when the last
    line is whole but lacks its newline; None when the file ends cleanly."""


def read_for_resume(path: Path) -> ResumedFile:
    """`path` as `judgegraph label` wrote it (raises `LabelsFileError` naming the first line
    that is not one of its kinds, or a file with no design line)."""
    raw = _read_bytes(path)
    design: dict[str, Any] | None = None
    rows: list[dict] = []
    cut_at: int | None = None
    for line, start in _lines(raw):
        try:
            row = line_value(line.raw)
        except UntrustedJsonError as error:
            if not line.complete:
                cut_at = start
                break
            raise LabelsFileError(f"{path} line {line.number}: {error}") from None
        problem = _resume_problem(row, first=design is None)
        if problem:
            raise LabelsFileError(f"{path} line {line.number}: {problem}")
        if design is None:
            design = row[DESIGN_KEY]
        else:
            rows.append(row)
        if not line.complete:
            cut_at = -1
    if design is None:
        raise LabelsFileError(f"{path} holds no design line: it was not written by `judgegraph label` "
                              "(give a new file to start labelling)")
    return ResumedFile(design, rows, cut_at)


def _resume_problem(row: Any, *, first: bool) -> str | None:
    if not isinstance(row, dict):
        return "not a JSON object"
    if first:
        return None if is_design(row) else "the first line is not a design line ({\"design\": {...}})"
    problem = line_problem(row)
    if problem:
        return problem
    if is_design(row):
        return "a second design line"
    if not isinstance(row.get("id"), str):
        return "no 'id' (a string)"
    if not (is_undo(row) or is_skip(row) or "human" in row):
        return "neither a label ('human'), a skip ('skipped') nor an undo ('undo')"
    return None


def judge_shown_note(labels: LabelsFile) -> str | None:
    """A warning when some standing labels were given with the judge in view (None when none
    were): such labels tend to agree with the judge where it errs, while the correction assumes
    the labels' errors are independent of the judge's."""
    shown = sum(1 for label in labels.labels if label.row.get("judge_shown") is True)
    if not shown:
        return None
    return (f"{labels.name}: {shown:,} of its {len(labels.labels):,} labels were made with the judge's verdicts in "
            f"view (label --show-judge, or labelled again after an undo): anchored labels copy the judge's errors, "
            f"so the correction may be too small and its interval too narrow; label blind (the default)")


def file_sha256(path: Path) -> str:
    """The sha256 of `path`'s bytes, as `judgegraph label` records the results it drew from."""
    try:
        with Path(path).open("rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError as error:
        raise LabelsFileError(f"cannot read {path}: {error.strerror or error}") from error


OTHER_RESULTS_FLAG = "--accept-other-results"
"""The commands' flag that uses labels drawn from another results file anyway."""


def other_results_problem(labels: LabelsFile, results: Path, flag: str = "--labels") -> str | None:
    """Why `labels` do not belong to `results` (None when they do, or when the file records no
    results sha256, as a hand-made one does). Labels pair with records by id, and ids that are
    line numbers or reused names pair them with other answers silently; the design line
    records the sha256 of the results the sample was drawn from, so the bytes are compared."""
    design = labels.design
    if design is None or not design.results_sha256:
        return None
    digest = file_sha256(results)
    if digest == design.results_sha256:
        return None
    drawn_from = f"{design.results} " if design.results else ""
    return (f"{flag} {labels.name} was drawn from other results ({drawn_from}sha256 {design.results_sha256[:12]}...) "
            f"than {results} (sha256 {digest[:12]}...): its labels would pair by id with other answers; give the "
            f"results it was drawn from, or pass {OTHER_RESULTS_FLAG} to use them anyway")


def provenance_notes(labels: LabelsFile, results: Path, accept_other_results: bool,
                     flag: str | None = None) -> list[str]:
    """What a command that pairs `labels` with `results` must say of where they come from: raises
    OtherResultsError when they were drawn from other results (unless `accept_other_results`), and
    returns the notes: other results used as asked, labels made with the judge in view. `flag`
    names the option that gave the labels file (`compare`'s `--labels-a`), None for `estimate`'s."""
    other = other_results_problem(labels, results, *([flag] if flag else []))
    if other and not accept_other_results:
        raise OtherResultsError(other)
    named = f"{flag} {labels.name}" if flag else labels.name
    notes = [f"{named} was drawn from other results than {results.name}: used as {OTHER_RESULTS_FLAG} asks"] if other else []
    shown = judge_shown_note(labels)
    return notes + ([shown] if shown else [])


def unknown_ids(labels: LabelsFile, known: Collection[str]) -> list[str]:
    """The labelled ids that are not in `known` (a results file's ids), in file order."""
    return [label.id for label in labels.labels if label.id not in known]


def ids_text(ids: list[str]) -> str:
    """The first `SHOWN_IDS` of `ids` and how many more, for a one-line message."""
    shown = ", ".join(repr(i) for i in ids[:SHOWN_IDS])
    return shown + (f" and {len(ids) - SHOWN_IDS:,} more" if len(ids) > SHOWN_IDS else "")


# --- what a label says -------------------------------------------------------------------------

LABEL_KEYS = ("label", "faithful", "binary_faithful", "relevant", "score_0_1", "score")
"""Keys of a `human` object read as "higher = better", in this order."""
INVERTED_KEYS = ("hallucination", "hallucinated")
"""Keys read as "yes / true = bad" (HaluEval's `hallucination: "yes"`)."""
NOT_METRIC_KEYS = frozenset(LABEL_KEYS + INVERTED_KEYS)
"""Keys of the one-label `human` objects calibrate reads (`{"label": 1}`), not metric names."""
MAX_LABEL = 1000
"""The largest label magnitude read: rating scales run 1..5 or 0..100, never to 1e308 (which
turns every step of a fit into infinities)."""


class LabelValueError(ValueError):
    """A `human` value that is a number but no label (NaN, Infinity, out of range)."""


def _truth(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, float) and not math.isfinite(value):
        raise LabelValueError(f"{'NaN' if math.isnan(value) else 'Infinity'} is not a label")
    if isinstance(value, (int, float)):
        if not -MAX_LABEL <= value <= MAX_LABEL:  # compared before float(): 10**400 has no float
            shown = str(value) if len(str(value)) <= 24 else f"a number of {len(str(value)):,} digits"
            raise LabelValueError(f"{shown} is outside the labels' range -{MAX_LABEL}..{MAX_LABEL}")
        return float(value)
    if isinstance(value, str) and value.strip().casefold() in ("yes", "true", "no", "false"):
        return float(value.strip().casefold() in ("yes", "true"))
    return None


def label_value(human: Any, metric: str | None = None) -> float | None:
    """The label as a number, higher = better; None when `human` holds none. An object keyed by
    metric names (`judgegraph label`'s several metrics) gives `metric`'s value."""
    direct = _truth(human)
    if direct is not None or not isinstance(human, dict):
        return direct
    if metric is not None and metric in human:
        return _truth(human[metric])
    for key in LABEL_KEYS:
        if key in human and (value := _truth(human[key])) is not None:
            return value
    for key in INVERTED_KEYS:
        if key in human and (value := _truth(human[key])) is not None and value in (0.0, 1.0):
            return 1.0 - value
    return None


def human_for(label: LabelLine, metric: str) -> Any:
    """The raw label `label` gives `metric`: its entry in a per-metric object, else the bare
    value (which applies to the one metric the command names). None when the object gives
    other metrics only."""
    human = label.human
    if isinstance(human, dict) and metric in human:
        return human[metric]
    return human


def labelled_metrics(labels: LabelsFile, not_metrics: frozenset[str] = NOT_METRIC_KEYS) -> list[str]:
    """Metrics named by per-metric `human` objects, in order of appearance; `not_metrics` are
    keys of the one-label objects calibrate reads (`{"label": 1}`, `{"hallucination": "yes"}`)."""
    seen: dict[str, None] = {}
    for label in labels.labels:
        if isinstance(label.human, dict):
            for key in label.human:
                if str(key) not in not_metrics:
                    seen.setdefault(str(key), None)
    return list(seen)


def metric_values(labels: LabelsFile, metric: str, several: bool) -> dict[str, tuple[float, int]]:
    """id -> (the label for `metric`, its line), for `estimate` and `compare` (raises
    `LabelsFileError`). A bare value counts only when one metric is estimated (else whose
    label it is would be a guess); an object labelling other metrics only is passed over."""
    values: dict[str, tuple[float, int]] = {}
    for label in labels.labels:
        raw = human_for(label, metric)
        per_metric = isinstance(label.human, dict) and metric in label.human
        if isinstance(raw, dict) and not per_metric and not (set(raw) & NOT_METRIC_KEYS):
            continue  # an object labelling other metrics
        if several and not per_metric:
            raise LabelsFileError(f"{labels.name} line {label.line}: a bare label applies to one metric, and "
                                  f"{metric!r} is one of several asked: give one --metric, or label per metric "
                                  f"({{\"{metric}\": ...}})")
        try:
            value = label_value(raw)
        except LabelValueError as error:
            raise LabelsFileError(f"{labels.name} line {label.line}: 'human': {error}") from None
        if value is None:
            raise LabelsFileError(f"{labels.name} line {label.line}: no usable label for {metric} in `human` "
                                  f"(yes/no, true/false, or a number on the metric's scale)")
        values[label.id] = (value, label.line)
    return values
