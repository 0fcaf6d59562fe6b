"""Issue 54: a gzip'd or piped input is copied with a bound, and a dry run does not spend
minutes on blank lines. Through `commands.cli.main`, each copy in a private temporary folder."""

from __future__ import annotations

import gzip
import io
import json
import sys
import tempfile
import zlib
from pathlib import Path

import pytest

from judgegraph.commands import cli
from judgegraph.schemas import input_file


@pytest.fixture
def scratch(tmp_path, monkeypatch) -> Path:
    """The temporary folder the input's copy goes to, watched for what is left in it."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def packed(path: Path, *parts: tuple[bytes, int]) -> Path:
    """A gzip file of each (block, times) in turn, compressed as it is written."""
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    with path.open("wb") as out:
        for block, times in parts:
            for _ in range(times):
                out.write(packer.compress(block))
        out.write(packer.flush())
    return path


ITEM = json.dumps({"question": "What is the capital of France?", "answer": "Paris.",
                   "context": "Paris is the capital of France."})


def test_a_gzip_bomb_is_refused_in_one_line_and_its_copy_removed(tmp_path, scratch, capsys):
    """70 MiB from some 70 KB: past the ratio limit, refused as soon as the floor is passed."""
    bomb = packed(tmp_path / "items.jsonl.gz", (b"\0" * (1 << 20), 70))
    assert bomb.stat().st_size < 200_000
    assert cli.main(["evaluate", str(bomb), "--dry-run"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"judgegraph: cannot read {bomb} as gzip: it decompresses to over {input_file.MAX_GZIP_RATIO} times its "
        "size (a compression bomb?); if it is real, decompress it yourself and pass the file"]
    assert list(scratch.iterdir()) == []  # the copy is gone now, not at exit


def test_a_pipe_past_the_limit_is_refused_in_one_line(scratch, capsys, monkeypatch):
    monkeypatch.setattr(input_file, "MAX_COPY_BYTES", 1 << 20)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((ITEM + "\n").encode() * 30_000)))
    assert cli.main(["evaluate", "-", "--input-format", "jsonl", "--dry-run"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "judgegraph: cannot read stdin (-): it holds more than 1,048,576 bytes, the limit for a piped or gzip'd "
        "input; save it as a regular, uncompressed file and pass that"]
    assert list(scratch.iterdir()) == []


def test_a_gzip_under_the_ratio_floor_is_read_and_its_blank_lines_keep_their_numbers(tmp_path, scratch, capsys):
    """3 million blank lines (some with spaces, tabs and carriage returns) between three items:
    the dry run estimates the three, on their true lines."""
    item = (ITEM + "\n").encode()
    path = packed(tmp_path / "items.jsonl.gz", (item, 1), (b"\n", 2_000_000), (b" \t\r\n", 999_999),
                  (b"   " + item, 1), (b"\r\n" * 3, 1), (item, 1))
    assert cli.main(["evaluate", str(path), "--dry-run"]) == 0
    estimated = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(e["id"], e["line"]) for e in estimated] == [("line-1", 1), ("line-3000001", 3000001),
                                                         ("line-3000005", 3000005)]
    assert gzip.decompress(path.read_bytes()).count(b"\n") == 3000005
