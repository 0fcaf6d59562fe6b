"""Text from files reaches the terminal escaped (`text.visible`): the resume-mismatch error
(judge and profile ids from the old results file), the batch summary's "decided with
calibration profile <id>" line, and the one-line errors of every command."""

from __future__ import annotations

import json

from judgegraph.calibration.profile import default_profile, write_profile
from judgegraph.commands import cli
from tests.batch.test_batch_runner import rag_item, run_cli, scripted, write_lines  # noqa: F401

TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J\r"
BIDI = "\u202e"


def assert_escaped(err: str) -> None:
    assert "\x1b" not in err and "\x07" not in err and "\r" not in err and BIDI not in err
    assert "\\x1b" in err


def test_the_resume_mismatch_error_escapes_the_old_files_ids(tmp_path, scripted, capsys):  # noqa: F811
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a"), rag_item("b")])
    out = tmp_path / "results.jsonl"
    old = {"id": "a", "line": 1, "rubric": "rag", "result": {"faithfulness": 1.0},
           "provenance": {"judge_model": f"judge{TITLE}", "profile_id": f"p{CLEAR}{BIDI}",
                          "prompt_hash": "x", "judgegraph_version": "0", "rubric": None, "settings": {}}}
    out.write_text(json.dumps(old) + "\n")
    assert run_cli(items, "--out", out, *scripted.flags) == 2
    err = capsys.readouterr().err
    assert "judged another way" in err and len(err.strip().splitlines()) == 1
    assert_escaped(err)
    assert "judge\\x1b]0;pwned\\x07" in err and "\\u202e" in err


def test_the_summary_escapes_the_calibration_profiles_id(tmp_path, scripted, capsys):  # noqa: F811
    profile = default_profile().model_copy(update={"id": f"mine{TITLE}{CLEAR}"})
    path = tmp_path / "profile.json"
    write_profile(profile, path)
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a")])
    assert run_cli(items, "--out", tmp_path / "results.jsonl", "--calibration", path, *scripted.flags) == 0
    err = capsys.readouterr().err
    line = next(line for line in err.splitlines() if "calibration profile" in line)
    assert_escaped(line)
    assert "mine\\x1b]0;pwned\\x07\\x1b" in line


def test_a_one_line_usage_error_escapes_the_path_it_names(tmp_path, capsys):
    missing = tmp_path / f"gone{TITLE}.json"
    assert cli.main(["report", str(missing), "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert_escaped(err)
