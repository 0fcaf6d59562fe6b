"""Reading a labels file: the design it was drawn with, and the labels people gave.

Why one reader for every command: `judgegraph label` writes the file (appending, never
rewriting, so a closed tab or a crash loses nothing), and `estimate`, `compare --labels-*` and
`calibrate` read it. They must agree on which labels count, so the file's three kinds of line
are resolved here once.

The format (JSON Lines, docs/estimates.md):

- an optional first line `{"design": {...}}`: how the items to label were drawn. `kind` is
  "uniform" or "stratified"; `seed`, `order` ("seeded permutation"), `results` and
  `results_sha256` name the draw and the results file it was drawn from, `n_items` that file's
  judged items, `metrics` the metrics labelled. A stratified design lists its `strata`, each
  `{"name", "low", "high", "n_items", "inclusion_probability"}`: the items whose judge score
  (of `stratify_by`, else the first of `metrics`) lies in `low <= score < high` (the last
  stratum includes its `high`).
- one line per label: `{"id", "human", "note"?, "stratum"?, "position"?, ...item fields}`.
  `human` is a bare value (for the metric the command is given) or an object with a value per
  metric (`{"faithfulness": 1, "context_relevance": 0}`); the values follow calibrate's rules
  (`fitting.labels.label_value`). `"skipped": true` marks an item seen and not labelled.
- `{"id": ..., "undo": true}` cancels that id's last label (or skip) above it.

A second label for an id whose first still stands is refused with both line numbers: which
one the person meant is not ours to guess. A line without `id` (a hand-made calibrate file) is
`line-<n>`. Label values are not read here (they depend on the metric): `LabelLine.human` is
the raw value.
"""

from __future__ import annotations

import hashlib
import io
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..schemas.jsonl import jsonl_lines, line_problem, line_value
from ..schemas.untrusted_json import UntrustedJsonError

DESIGN_KINDS = ("uniform", "stratified")
BOOKKEEPING_KEYS = frozenset({"id", "human", "note", "skipped", "undo", "stratum", "position", "group",
                              "source", "meta"})
"""Keys of a label line that are not the item's fields."""


class LabelsFileError(ValueError):
    """A labels file that cannot be used; one line naming the file (and the line)."""


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


def read_labels_file(path: Path, check: Callable[[LabelLine], str | None] | None = None) -> LabelsFile:
    """The labels that stand in `path`, with its design (raises `LabelsFileError`).

    `check` says what is wrong with a label line's value (None when nothing is), so a caller
    that knows the metric stops at the first bad line, in file order, like every other error."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise LabelsFileError(f"cannot read {path}: {error.strerror or error}") from error
    result = LabelsFile(path=path, design=None, labels=[], sha256=hashlib.sha256(raw).hexdigest())
    history: dict[str, list[tuple[str, LabelLine | int]]] = {}
    """id -> its standing lines, oldest first: ("label", line) or ("skip", line number)."""
    first = True
    with io.BytesIO(raw) as handle:
        for line in jsonl_lines(handle):
            if line.blank:
                continue
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
            if "design" in row:
                if not first:
                    raise LabelsFileError(f"{where}: a design line must be the file's first line")
                result.design = read_design(row["design"], where)
                first = False
                continue
            first = False
            item_id = str(row["id"]) if row.get("id") is not None else f"line-{line.number}"
            standing = history.setdefault(item_id, [])
            if row.get("undo") is True:
                if standing:
                    standing.pop()
                    result.undone += 1
                else:
                    result.notes.append(f"{where}: undo of id {item_id!r}, which has no label above it: ignored")
                continue
            if row.get("skipped") is True:
                standing.append(("skip", line.number))
                continue
            position = row.get("position")
            label = LabelLine(id=item_id, human=row.get("human"), line=line.number, row=row,
                              note=row.get("note") if isinstance(row.get("note"), str) else None,
                              stratum=str(row["stratum"]) if row.get("stratum") is not None else None,
                              position=position if isinstance(position, int) and not isinstance(position, bool)
                              else None)
            problem = check(label) if check is not None else None
            if problem:
                raise LabelsFileError(f"{where}: {problem}")
            earlier = next((entry for kind, entry in reversed(standing) if kind == "label"), None)
            if isinstance(earlier, LabelLine):
                raise LabelsFileError(f"{where}: id {item_id!r} is labelled twice, on lines {earlier.line} "
                                      f"and {line.number} (undo one, or delete a line)")
            standing.append(("label", label))
    for item_id, standing in history.items():
        if standing and standing[-1][0] == "skip" and not any(kind == "label" for kind, _ in standing):
            result.skipped.append(item_id)
    result.labels = sorted((entry for standing in history.values() for kind, entry in standing if kind == "label"),
                           key=lambda entry: entry.line)  # type: ignore[union-attr, arg-type]
    return result


def human_for(label: LabelLine, metric: str) -> Any:
    """The raw label `label` gives `metric`: its entry in a per-metric object, else the bare
    value (which applies to the one metric the command names). None when the object gives
    other metrics only."""
    human = label.human
    if isinstance(human, dict) and metric in human:
        return human[metric]
    return human


def labelled_metrics(labels: LabelsFile, not_metrics: frozenset[str] = frozenset()) -> list[str]:
    """Metrics named by per-metric `human` objects, in order of appearance; `not_metrics` are
    keys of the one-label objects calibrate reads (`{"label": 1}`, `{"hallucination": "yes"}`)."""
    seen: dict[str, None] = {}
    for label in labels.labels:
        if isinstance(label.human, dict):
            for key in label.human:
                if str(key) not in not_metrics:
                    seen.setdefault(str(key), None)
    return list(seen)
