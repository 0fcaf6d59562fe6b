"""A fetched-snapshot mirror for benchmark tests: files committed to a bare repository laid out
the way `benchmarks.fetched` reads a snapshot (`<mirror>/<owner>+<name>/repo`), so a benchmark
reads them at the returned commit exactly as it reads the real fetched data."""

from __future__ import annotations

import subprocess
from pathlib import Path


def commit_snapshot(tmp_path: Path, repo: str, files: dict[str, str]) -> tuple[Path, str]:
    """Commit `files` (path in the repository -> text) as `repo`'s snapshot under a mirror root
    in `tmp_path`; returns the mirror root and the commit to read them at."""
    work = tmp_path / "work"
    for path, text in files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text, encoding="utf-8")
    git_dir = tmp_path / "mirror" / repo.replace("/", "+") / "repo"

    def git(*args: str) -> str:
        return subprocess.run(["git", "--git-dir", str(git_dir), "--work-tree", str(work), *args],
                              capture_output=True, text=True, check=True).stdout.strip()

    subprocess.run(["git", "init", "--bare", "-q", str(git_dir)], check=True)
    git("add", "-A")
    git("-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "fixture")
    return tmp_path / "mirror", git("rev-parse", "HEAD")
