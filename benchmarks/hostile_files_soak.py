"""The soak's hostile-files part (issue #29): each round's own results file, with hostile lines
from `tests/support/hostile_files.py` mixed in, read back by `report` and `compare` in child
processes, and a labels file of hostile lines read by the labels reader.

Checked per round: no traceback; a file holding a value no score may be (NaN, Infinity, out of
scale, a string score...) is exit 2 with one line naming its first such line; otherwise exit 0,
`compare --json` is strict JSON whose every figure is finite, and no control or bidi character
reaches the terminal or the page raw; a labels file is read whole (a raw U+2028 never cuts a
line) or refused at its first bad line. Used by `benchmarks/fuzz_soak.py`.
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
UNSAFE = ("\x1b", "\x07", "\r", "\u202e")


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


def child_env() -> dict[str, str]:
    """The caller's PYTHONPATH first (it may point at a checkout other than the installed one),
    then the repository root (for `tests` and `benchmarks`)."""
    paths = [os.environ.get("PYTHONPATH", ""), str(ROOT)]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in paths if p))


def _cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), *argv], cwd=ROOT, capture_output=True,
                          env=child_env(), check=False, timeout=600)


def hostile_results_round(work: Path, number: int, judged: Path, rng: random.Random, lines: int = 6) -> dict:
    """Mixes hostile lines into a copy of `judged` and reads it back with report and compare."""
    from tests.support.hostile_files import ERROR, RESULTS_KINDS, results_line
    from tests.support.result_records import rag

    kinds = [rng.choice(sorted(RESULTS_KINDS)) for _ in range(lines)]
    # about one file in three without an error line, so the read-through path is soaked too
    if rng.random() < 0.35:
        kinds = [kind for kind in kinds if RESULTS_KINDS[kind] != ERROR]
    head = judged.read_bytes().splitlines(keepends=True) if judged.exists() else []
    path = work / f"hostile-{number}.jsonl"
    hostile = [results_line(kind, n, rag("r0", 0.5)) + b"\n" for n, kind in enumerate(kinds, 1)]
    positions = sorted(rng.sample(range(len(head) + len(hostile)), len(hostile)))
    body: list[bytes] = []
    pending = iter(hostile)
    kinds_at: dict[int, str] = {}
    head_iter = iter(head)
    for index in range(len(head) + len(hostile)):
        if positions and index == positions[0]:
            positions.pop(0)
            body.append(next(pending))
            kinds_at[index + 1] = kinds[len(kinds_at)]
        else:
            body.append(next(head_iter))
    path.write_bytes(b"".join(body))
    first_error = min((line for line, kind in kinds_at.items() if RESULTS_KINDS[kind] == ERROR), default=None)
    problems: list[str] = []
    crashes = 0
    for argv in (("report", str(path), "-o", str(work / f"hostile-{number}.html")),
                 ("compare", str(judged), str(path), "--json"),
                 ("compare", str(judged), str(path))):
        child = _cli(*argv)
        out, err = child.stdout.decode("utf-8", "replace"), child.stderr.decode("utf-8", "replace")
        if "Traceback" in err:
            crashes += 1
            problems.append(f"{argv[0]}: traceback")
            continue
        if first_error is not None:
            if child.returncode != 2 or f"{path} line {first_error}: '" not in err or len(err.strip().splitlines()) != 1:
                problems.append(f"{argv[0]}: exit {child.returncode}, not one line naming line {first_error}: {err[:200]}")
            continue
        if child.returncode == 2 and (len(err.strip().splitlines()) != 1 or ": '" in err):
            # exit 2 is right for a comparison with nothing to pair; never for a field of a clean file
            problems.append(f"{argv[0]}: a clean file refused: {err[:200]}")
            continue
        shown = "" if "--json" in argv else out  # JSON escapes C0 controls itself; its strings are data
        if child.returncode not in (0, 2) or any(char in shown for char in UNSAFE):
            problems.append(f"{argv[0]}: exit {child.returncode} or a raw control character: {err[:200]}")
            continue
        if child.returncode == 2:
            continue
        if "--json" in argv:
            try:
                data = json.loads(out, parse_constant=_refuse)
            except ValueError as error:
                problems.append(f"compare --json is not JSON: {error}")
                continue
            if not _finite(data):
                problems.append("compare --json holds a non-finite figure")
        if argv[0] == "report":
            page = (work / f"hostile-{number}.html").read_text(encoding="utf-8")
            if any(char in page for char in UNSAFE):
                problems.append("report: a raw control or bidi character in the page")
    return {"files": 1, "lines": len(body), "hostile_lines": Counter(kinds), "crashes": crashes,
            "refused": first_error is not None, "problems": problems}


def hostile_labels_round(work: Path, number: int, rng: random.Random, lines: int = 8) -> dict:
    """A labels file of hostile lines read by the labels reader: read whole, or refused at a line."""
    from judgegraph.fitting.labels import LabelsError, read_labels
    from tests.support.hostile_files import BLANK, LABELS_KINDS, labels_line

    kinds = [rng.choice(sorted(LABELS_KINDS)) for _ in range(lines)]
    path = work / f"labels-{number}.jsonl"
    path.write_bytes(b"".join(labels_line(kind, n) + b"\n" for n, kind in enumerate(kinds, 1)))
    problems: list[str] = []
    try:
        labels = read_labels(path, "faithfulness")
    except LabelsError as error:
        if len(str(error).splitlines()) != 1:
            problems.append(f"labels: not one line: {error}")
        return {"files": 1, "lines": len(kinds), "refused": True, "problems": problems, "crashes": 0}
    except Exception as error:  # noqa: BLE001 - the crash this soak counts
        return {"files": 1, "lines": len(kinds), "refused": False, "crashes": 1,
                "problems": [f"labels: {type(error).__name__}: {error}"]}
    if len(labels.items) != sum(LABELS_KINDS[kind] != BLANK for kind in kinds):
        problems.append("labels: a line lost or cut in two")
    if not all(math.isfinite(value) for value in labels.values):
        problems.append("labels: a non-finite label")
    return {"files": 1, "lines": len(kinds), "refused": False, "problems": problems, "crashes": 0}


INPUT_KINDS = ("gzip-bomb", "gzip-blank-lines", "truncated-gzip", "piped-blank-lines")
"""Hostile inputs of `evaluate` itself (issue 54): a gzip of newlines past the ratio limit, one
under it that is almost all blank lines, a gzip cut short, and blank lines piped in."""

DRY_RUN_BOUND_S = 120.0
"""A dry run of one of these inputs that takes longer than this is a problem (it took minutes)."""


def _newlines_gzip(path: Path, newlines: int, item: bytes = b"") -> None:
    import zlib

    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    block = b"\n" * (1 << 20)
    with path.open("wb") as out:
        out.write(packer.compress(item))
        for _ in range(newlines >> 20):
            out.write(packer.compress(block))
        out.write(packer.compress(b"\n" * (newlines & ((1 << 20) - 1))))
        out.write(packer.flush())


def hostile_input_round(work: Path, number: int, rng: random.Random) -> dict:
    """One hostile compressed or piped input judged with `--dry-run` in a child process: refused
    in one line (exit 2) or counted right, within `DRY_RUN_BOUND_S`, no traceback, and no copy
    of it left in the temporary folder."""
    import time

    from judgegraph.schemas.input_file import MAX_GZIP_RATIO, RATIO_FLOOR_BYTES

    kind = rng.choice(INPUT_KINDS)
    item = json.dumps({"id": f"kept-{number}", "question": "q", "answer": "a", "context": "c"}).encode() + b"\n"
    scratch = work / f"tmp-{number}"
    scratch.mkdir()
    stdin = None
    if kind == "gzip-bomb":  # past the floor, at gzip's ~1000:1: refused before the disk fills
        path = work / f"bomb-{number}.jsonl.gz"
        _newlines_gzip(path, RATIO_FLOOR_BYTES + rng.randint(1, 8) * (1 << 20))
        expected = (2, f"as gzip: it decompresses to over {MAX_GZIP_RATIO} times its size")
    elif kind == "gzip-blank-lines":  # under the floor: read, and its blank lines skipped fast
        path = work / f"blank-{number}.jsonl.gz"
        _newlines_gzip(path, rng.randint(1, 32) * (1 << 20), item)
        expected = (0, None)
    elif kind == "truncated-gzip":
        path = work / f"cut-{number}.jsonl.gz"
        _newlines_gzip(path, 1 << 20, item)
        path.write_bytes(path.read_bytes()[:-rng.randint(9, 40)])
        expected = (2, "as gzip")
    else:
        path = None
        stdin = item + b"\n" * (rng.randint(1, 16) << 20)
        expected = (0, None)
    argv = [str(path) if path else "-", "--dry-run", "--input-format", "jsonl", "--base-url", "http://127.0.0.1:9/v1"]
    env = dict(child_env(), TMPDIR=str(scratch))
    started = time.monotonic()
    child = subprocess.run([sys.executable, str(ROOT / "cli.py"), "evaluate", *argv], cwd=ROOT, capture_output=True,
                           input=stdin, env=env, check=False, timeout=600)
    seconds = time.monotonic() - started
    stderr = child.stderr.decode("utf-8", "replace")
    problems: list[str] = []
    code, words = expected
    if "Traceback" in stderr:
        problems.append(f"{kind}: a traceback")
    if child.returncode != code:
        problems.append(f"{kind}: exit {child.returncode}, expected {code}: {stderr[-300:]}")
    elif code == 2 and (len(stderr.strip().splitlines()) != 1 or words not in stderr):
        problems.append(f"{kind}: not one line saying {words!r}: {stderr[-300:]}")
    elif code == 0:
        estimated = [json.loads(line) for line in child.stdout.decode("utf-8", "replace").splitlines() if line.strip()]
        if [(e.get("id"), e.get("line")) for e in estimated] != [(f"kept-{number}", 1)]:
            problems.append(f"{kind}: the dry run did not estimate its one item on line 1: {estimated[:3]}")
    if seconds > DRY_RUN_BOUND_S:
        problems.append(f"{kind}: the dry run took {seconds:.0f} s")
    left = [p.name for p in scratch.iterdir()]
    if left:
        problems.append(f"{kind}: copies left behind: {left}")
    return {"files": 1, "lines": 0, "refused": int(child.returncode == 2), "crashes": int("Traceback" in stderr),
            "problems": problems, "hostile_lines": {f"input:{kind}": 1}, "seconds": round(seconds, 1)}
