"""The labels file cannot be broken by its situation (issue 55), through the CLI and the real
label server over HTTP: one writer at a time, an append after someone's edit left no final
newline, a `--labels` that is no regular file, labels drawn from other results, and request
headers that are no number."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.labelling.test_label_browser import LabelCommand
from tests.labelling.test_label_server import page, post
from tests.support.labelling_results import results_record, scored_results, write_results

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "cli.py", *args], input=stdin, cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


class Served:
    """`LabelCommand`'s server, with the helpers of test_label_server's in-process one."""

    def __init__(self, url: str) -> None:
        self.port = urlsplit(url).port


def one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def test_a_second_label_process_on_the_same_file_is_refused_with_one_line(tmp_path):
    results = scored_results(tmp_path / "results.jsonl", [0.1, 0.9, 0.4])
    labels = tmp_path / "labels.jsonl"
    first = LabelCommand(results, labels, "--metric", "faithfulness", "--seed", "5")
    try:
        second = cli("label", str(results), "--labels", str(labels), "--terminal", stdin="1\n1\n1\n")
        assert second.returncode == 2
        assert "is being written by another `judgegraph label` (one writer at a time)" in one_line(second.stderr)
    finally:
        code, _ = first.stop()
    assert code == 0
    assert len(labels.read_text(encoding="utf-8").splitlines()) == 1  # the design line only: nothing written twice
    again = cli("label", str(results), "--labels", str(labels), "--terminal", stdin="1\n")  # free once it stopped
    assert again.returncode == 0 and "1 labels in" in again.stderr


def test_an_edit_that_leaves_no_final_newline_never_glues_the_next_label(tmp_path):
    results = scored_results(tmp_path / "results.jsonl", [0.1, 0.9, 0.4])
    labels = tmp_path / "labels.jsonl"
    command = LabelCommand(results, labels, "--metric", "faithfulness", "--seed", "5")
    try:
        served = Served(command.url)
        _, hidden = page(served)
        post(served, "/label", hidden | {"m:faithfulness": "1"})
        # a person fixes a note in an editor that saves in place without the final newline
        edited = labels.read_bytes().rstrip(b"\n").replace(b'"human": 1', b'"human": 1, "note": "checked"')
        labels.write_bytes(edited)
        _, hidden = page(served)
        post(served, "/label", hidden | {"m:faithfulness": "0"})
    finally:
        command.stop()
    rows = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()]
    assert [row.get("human") for row in rows[1:]] == [1, 0] and rows[1]["note"] == "checked"
    again = cli("label", str(results), "--labels", str(labels), "--terminal", stdin="q\n")
    assert again.returncode == 0 and "2 labelled, 0 skipped so far" in again.stderr


def test_a_file_replaced_by_an_editor_is_not_written_behind_its_back(tmp_path):
    """An editor that saves by writing a new file and renaming it over the old one: the session's
    label would go to the file no name points to; it is refused, and the page says so."""
    results = scored_results(tmp_path / "results.jsonl", [0.1, 0.9, 0.4])
    labels = tmp_path / "labels.jsonl"
    command = LabelCommand(results, labels, "--metric", "faithfulness", "--seed", "5")
    try:
        served = Served(command.url)
        _, hidden = page(served)
        saved = tmp_path / "labels.jsonl.new"
        saved.write_bytes(labels.read_bytes())
        os.replace(saved, labels)
        post(served, "/label", hidden | {"m:faithfulness": "1"})
        html, _ = page(served)
    finally:
        command.stop()
    assert "not saved:" in html and "was replaced or removed by another program" in html
    assert len(labels.read_text(encoding="utf-8").splitlines()) == 1


def special_files(folder: Path) -> list[Path]:
    """A FIFO, the folder itself, and a character device like /dev/null when this user may make one."""
    fifo = folder / "fifo"
    os.mkfifo(fifo)
    made = [fifo, folder]
    device = folder / "null"
    try:  # a /dev/null of our own: the real one must never be at stake in a test
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        made.append(device)
    except (PermissionError, OSError):
        pass
    return made


def test_labels_that_name_no_regular_file_are_refused_and_left_as_they_are(tmp_path):
    results = scored_results(tmp_path / "results.jsonl", [0.1, 0.9])
    specials = tmp_path / "specials"
    specials.mkdir()
    for target in special_files(specials):
        before = os.stat(target)
        proc = cli("label", str(results), "--labels", str(target), "--terminal", stdin="1\n")
        assert proc.returncode == 2, (target, proc.stderr)
        assert "not a regular file" in one_line(proc.stderr)
        after = os.stat(target)
        assert (after.st_mode, after.st_ino, after.st_rdev) == (before.st_mode, before.st_ino, before.st_rdev)


def labelled(results: Path, labels: Path, values: list[int]) -> Path:
    proc = cli("label", str(results), "--labels", str(labels), "--terminal", "--metric", "faithfulness", "--seed", "1",
               stdin="".join(f"{value}\n" for value in values))
    assert proc.returncode == 0, proc.stderr
    return labels


def test_labels_drawn_from_other_results_are_refused_unless_accepted(tmp_path):
    """Ids that are line numbers pair labels with other answers silently: the results' sha256
    the labels file records is checked by estimate, report --labels and compare."""
    scores = [0.2, 0.9, 0.4, 0.7, 1.0, 0.0, 0.6, 0.3, 0.8, 0.5, 0.9, 0.1]
    drawn = scored_results(tmp_path / "drawn.jsonl", scores)
    other = write_results(tmp_path / "other.jsonl", [results_record(n, s, answer=f"Invented answer {n}.")
                                                      for n, s in enumerate(scores)])
    labels = labelled(drawn, tmp_path / "labels.jsonl", [1, 0] * 6)
    assert cli("estimate", str(drawn), "--labels", str(labels)).returncode == 0
    refused = cli("estimate", str(other), "--labels", str(labels))
    assert refused.returncode == 2
    line = one_line(refused.stderr)
    assert "labels.jsonl was drawn from other results" in line and str(drawn.resolve()) in line
    assert str(other) in line and "--accept-other-results" in line
    forced = cli("estimate", str(other), "--labels", str(labels), "--accept-other-results")
    assert forced.returncode == 0 and "used as --accept-other-results asks" in forced.stderr
    report = cli("report", str(other), "-o", str(tmp_path / "r.html"), "--labels", str(labels))
    assert report.returncode == 2 and "was drawn from other results" in report.stderr
    assert not (tmp_path / "r.html").exists()
    labels_b = labelled(other, tmp_path / "labels_b.jsonl", [1, 1] * 6)
    swapped = cli("compare", str(drawn), str(other), "--labels-a", str(labels_b), "--labels-b", str(labels))
    assert swapped.returncode == 2 and "--labels-a labels_b.jsonl was drawn from other results" in swapped.stderr
    paired = cli("compare", str(drawn), str(other), "--labels-a", str(labels), "--labels-b", str(labels_b))
    assert paired.returncode == 0, paired.stderr


def test_estimate_and_compare_count_labels_made_with_the_judge_in_view(tmp_path):
    scores = [0.2, 0.9, 0.4, 0.7, 1.0, 0.0, 0.6, 0.3, 0.8, 0.5, 0.9, 0.1]
    results = scored_results(tmp_path / "results.jsonl", scores)
    labels = tmp_path / "labels.jsonl"
    shown = cli("label", str(results), "--labels", str(labels), "--terminal", "--metric", "faithfulness",
                "--show-judge", "--seed", "2", stdin="1\n0\n" * 3)
    assert shown.returncode == 0, shown.stderr
    blind = cli("label", str(results), "--labels", str(labels), "--terminal", stdin="1\n0\n" * 3)
    assert blind.returncode == 0, blind.stderr
    rows = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()][1:]
    assert [row.get("judge_shown") for row in rows] == [True] * 6 + [None] * 6
    estimate = cli("estimate", str(results), "--labels", str(labels))
    assert estimate.returncode == 0
    assert "labels.jsonl: 6 of its 12 labels were made with the judge's verdicts in view" in estimate.stderr
    compare = cli("compare", str(results), str(results), "--labels-a", str(labels), "--labels-b", str(labels), "--json")
    assert compare.returncode == 0, compare.stderr
    assert any("6 of its 12 labels were made with the judge's verdicts in view" in note
               for note in json.loads(compare.stdout)["notes"])


@pytest.mark.parametrize("headers, status", [
    (b"Content-Length: \xc2\xb2\r\n", 400),  # a superscript two: `str.isdigit` says yes, `int` says no
    (b"Content-Length: -1\r\n", 400),
    (b"Content-Length: 99999999999999999999999999\r\n", 400),
    (b"Content-Length: 70000\r\n", 413),
    (b"Content-Length: 3\r\nContent-Length: 4\r\n", 400),
    (b"Transfer-Encoding: chunked\r\n", 400),
    (b"", 411),
])
def test_a_content_length_that_is_no_number_is_a_400_never_a_traceback(tmp_path, headers, status):
    results = scored_results(tmp_path / "results.jsonl", [0.1, 0.9])
    command = LabelCommand(results, tmp_path / "labels.jsonl", "--metric", "faithfulness", "--seed", "5")
    try:
        port = urlsplit(command.url).port
        with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
            connection.sendall(b"POST /skip HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port + headers
                               + b"Content-Type: application/x-www-form-urlencoded\r\n\r\n")
            reply = connection.recv(4096)
        assert reply.startswith(b"HTTP/1.0 %d" % status) or reply.startswith(b"HTTP/1.1 %d" % status), reply[:80]
        assert page(Served(command.url))[1]["position"] == "0"  # the server goes on
    finally:
        code, stderr = command.stop()
    assert code == 0 and "Traceback" not in stderr, stderr
