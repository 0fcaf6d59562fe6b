"""No file a command writes may be a file it reads, or another file it writes.

Why one module: every command has outputs (`evaluate`'s `--out`, its `--format csv` table,
`--html`, `--cache`, `--trace-out`; `report -o`; `compare -o`; `calibrate -o`, `--judged`,
`--cache`) and inputs (the items, the results file, a profile). Written over an input, an output
destroys the data the next run needs (`--html items.jsonl` replaces the dataset with the page);
written over another output, one of the two is lost. Each command names its paths with the flag
that gave them and calls `check_distinct` before any work, so a clash is one line naming both
paths, exit 2, and nothing is written.

An output that replaces its file whole (a page: `report -o`, `compare -o`, `evaluate --html`;
the `--trace-out` trace; the `--format csv` table; `calibrate -o`'s profile) is also never
written over a file that holds something else than that kind of output judgegraph wrote
(`check_replaced`): `-o items.jsonl` names a file no command reads, yet replacing it loses the
dataset, and `--trace-out last_week.jsonl` the records of a run. Pages carry `PAGE_MARK` in
their head, traces, tables and profiles start as judgegraph writes them; writing one again, or
over an empty file, loses nothing.

Two paths are the same file when the file system says so (`os.path.samefile`: symlinks, hard
links, `./x` and `x`) or, for a file that does not exist yet, when their resolved real paths
are equal.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

NamedPath = tuple[str, "Path | None"]
"""(what the path is, as the user gave it: a flag or a role such as "the input"; the path)."""


PAGE_MARK = b'<meta name="generator" content="judgegraph">'
"""What the head of every HTML page judgegraph writes holds (`report/templates/`)."""
_TITLE_MARK = re.compile(rb"<title>[^<]*\xc2\xb7 judgegraph (?:report|compare)</title>")
"""How a page judgegraph wrote before it carried `PAGE_MARK` ends its title (` · judgegraph
report`): a user re-running `report -o report.html` over such a page loses nothing either."""
_HEAD_BYTES = 4096
"""How much of a file is read for `PAGE_MARK`: the mark comes before the page's title."""


class PathClashError(ValueError):
    """An output is an input or another output, or a page would replace another file; one
    line naming the paths."""


def same_file(first: Path, second: Path) -> bool:
    """Whether writing `first` would write `second`."""
    try:
        if first.exists() and second.exists():
            return os.path.samefile(first, second)
    except OSError:
        pass
    return os.path.normcase(os.path.realpath(first)) == os.path.normcase(os.path.realpath(second))


def check_distinct(outputs: Iterable[NamedPath], inputs: Iterable[NamedPath] = ()) -> None:
    """Raise `PathClashError` when an output is one of `inputs` or an earlier output.
    Entries whose path is None (a flag not given) are skipped."""
    given_inputs = [(name, path) for name, path in inputs if path is not None]
    seen: list[tuple[str, Path]] = []
    for name, path in outputs:
        if path is None:
            continue
        for other_name, other in given_inputs:
            if same_file(path, other):
                raise PathClashError(f"{name} {path} is {other_name} {other}: writing it would replace "
                                     f"what this command reads; give {name} another path")
        for other_name, other in seen:
            if same_file(path, other):
                raise PathClashError(f"{name} {path} and {other_name} {other} are the same file: one would "
                                     f"replace the other; give them different paths")
        seen.append((name, path))


def _is_page(head: bytes) -> bool:
    return head.lstrip().lower().startswith(b"<!doctype html>") and (
        PAGE_MARK in head or _TITLE_MARK.search(head) is not None)


def _is_trace(head: bytes) -> bool:
    """The head of a `--trace-out` file (`EvaluationRun.trace_json`, indented JSON)."""
    return head.startswith(b'{\n  "rubrics": [')


def _is_table(head: bytes) -> bool:
    """The head of a `--format csv` table (`batch.csv_export`: its header starts id,line,rubric)."""
    return head.removeprefix(b"\xef\xbb\xbf").startswith(b"id,line,rubric")


def _is_profile(head: bytes) -> bool:
    """The head of a calibration profile (`calibration.profile.write_profile`, indented JSON)."""
    return head.startswith(b'{\n  "format": ') and b'\n  "id": ' in head


KINDS: dict[str, tuple[str, Callable[[bytes], bool]]] = {
    "page": ("a page judgegraph wrote", _is_page),
    "trace": ("a trace judgegraph wrote", _is_trace),
    "table": ("a table judgegraph wrote", _is_table),
    "profile": ("a calibration profile", _is_profile),
}
"""Outputs that replace their file whole, each with how its own earlier file is recognised."""


def is_replaceable(path: Path, kind: str) -> bool:
    """Whether writing an output of `kind` to `path` loses nothing: no such regular file, an
    empty one, or one judgegraph wrote as that kind of output (a device or a pipe, such as
    /dev/stdout, is written to as is)."""
    try:
        if not path.is_file() or path.stat().st_size == 0:
            return True
        with path.open("rb") as handle:
            head = handle.read(_HEAD_BYTES)
    except OSError:
        return False
    return KINDS[kind][1](head)


def check_replaced(outputs: Iterable[NamedPath], kind: str = "page") -> None:
    """Raise `PathClashError` when an output of `kind` would replace a file that is not one
    (`is_replaceable`): the dataset given as `--trace-out`, another run's results as `-o`.
    Entries whose path is None (a flag not given) are skipped."""
    what = KINDS[kind][0]
    for name, path in outputs:
        if path is not None and not is_replaceable(Path(path), kind):
            raise PathClashError(f"{name} {path} exists and is not {what}: writing the {kind} would replace "
                                 f"it; give {name} another path, or remove the file first")
