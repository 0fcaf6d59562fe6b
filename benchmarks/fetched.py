"""Data sets read from fetched repository snapshots, never copied into the project.

The session's `fetch` tool (and a user's own `git clone --bare`) leaves a bare git directory per
repository under a mirror root (`<root>/<owner>+<name>/repo`). Benchmarks read a file at a
pinned commit straight from it with `git show`, so a figure names the exact bytes it came from
and nothing lands in the working tree.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from benchmarks.datasets import REPO_ROOT

DEFAULT_MIRROR_ROOT = REPO_ROOT.parent / ".mirror"
"""`../.mirror` relative to the project root, where `fetch` puts snapshots."""


class SnapshotMissing(RuntimeError):
    """The snapshot or the file at that commit is not there: says how to get it."""


def read_snapshot_file(repo: str, commit: str, path: str, mirror_root: Path = DEFAULT_MIRROR_ROOT) -> str:
    """The text of `path` at `commit` in the fetched snapshot of `repo` ("owner/name")."""
    git_dir = mirror_root / repo.replace("/", "+") / "repo"
    if not git_dir.is_dir():
        raise SnapshotMissing(f"no snapshot of {repo} under {mirror_root} (fetch github:{repo}, or pass --mirror-root)")
    done = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"],
                          capture_output=True, check=False)
    if done.returncode != 0:
        raise SnapshotMissing(f"{repo}@{commit[:8]}:{path} is not in the snapshot: {done.stderr.decode().strip()}")
    return done.stdout.decode("utf-8")
