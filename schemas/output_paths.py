"""No file a command writes may be a file it reads, or another file it writes.

Why one module: every command has outputs (`evaluate`'s `--out`, its `--format csv` table,
`--html`, `--cache`, `--trace-out`; `report -o`; `compare -o`; `calibrate -o`, `--judged`,
`--cache`) and inputs (the items, the results file, a profile). Written over an input, an output
destroys the data the next run needs (`--html items.jsonl` replaces the dataset with the page);
written over another output, one of the two is lost. Each command names its paths with the flag
that gave them and calls `check_distinct` before any work, so a clash is one line naming both
paths, exit 2, and nothing is written.

Two paths are the same file when the file system says so (`os.path.samefile`: symlinks, hard
links, `./x` and `x`) or, for a file that does not exist yet, when their resolved real paths
are equal.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

NamedPath = tuple[str, "Path | None"]
"""(what the path is, as the user gave it: a flag or a role such as "the input"; the path)."""


class PathClashError(ValueError):
    """An output is an input or another output; one line naming both."""


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
