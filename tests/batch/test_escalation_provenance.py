"""An escalating run's provenance (issue 57): its records name the second judge and the band, a
resume under another second judge, another band or no escalation is refused in one line (exit
2), under the same flags it resumes, and `compare` says an escalated run's judge differs from a
plain run's. A run without `--escalate-to` stamps what it stamped before. Two fake judges on
127.0.0.1 (`tests/run/test_escalation.py`'s)."""

from __future__ import annotations

import json

import pytest

from judgegraph.commands import cli
from tests.run.test_escalation import ITEMS, GradedJudge

FIRST_P = {"When was": 0.97, "Who designed": 0.62}
SECOND_P = {"When was": 0.99, "Who designed": 0.02}


def _write_items(tmp_path, items: list[dict]):
    path = tmp_path / f"items-{len(items)}.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


def _evaluate(tmp_path, first: GradedJudge, *extra: str, out: str = "out.jsonl", items: list[dict] = ITEMS) -> int:
    return cli.main(["evaluate", str(_write_items(tmp_path, items)), "--out", str(tmp_path / out),
                     "--base-url", first.server.base_url, "--model", "first", "--no-embeddings", *extra])


def _escalate(second: GradedJudge, model: str = "second", *more: str) -> list[str]:
    return ["--escalate-to", model, "--escalate-base-url", second.server.base_url, *more]


def _provenances(path) -> list[dict]:
    return [json.loads(line)["provenance"] for line in path.read_text(encoding="utf-8").splitlines()]


def test_an_escalating_run_stamps_its_second_judge_and_band_and_a_plain_run_nothing(tmp_path):
    with GradedJudge(FIRST_P) as first, GradedJudge(SECOND_P) as second:
        assert _evaluate(tmp_path, first, out="plain.jsonl") == 0
        assert _evaluate(tmp_path, first, *_escalate(second), out="escalated.jsonl") == 0
        assert _evaluate(tmp_path, first, *_escalate(second, "second", "--escalate-band", "all"), out="jury.jsonl") == 0
        second_url = second.server.base_url
    assert all("escalation" not in stamp for stamp in _provenances(tmp_path / "plain.jsonl"))
    stamps = _provenances(tmp_path / "escalated.jsonl")
    assert len(stamps) == 2 and stamps[0] == stamps[1]
    assert stamps[0]["escalation"] == {
        "second_judge": f"openai-compatible:second@{second_url}", "band_source": "default",
        "band": {"claim_verdict": [0.2, 0.8], "context_relevance": [0.2, 0.8], "answer_relevance": [0.2, 0.8]}}
    jury = _provenances(tmp_path / "jury.jsonl")[0]["escalation"]
    assert jury["band_source"] == "jury" and jury["band"]["claim_verdict"] == [0.0, 1.0]
    assert list(stamps[0]) == list(_provenances(tmp_path / "plain.jsonl")[0]) + ["escalation"]


ESCALATE = ["--escalate-to", "second", "--escalate-base-url", "SECOND"]


@pytest.mark.parametrize(("resumed", "named"), [
    (["--escalate-to", "other", "--escalate-base-url", "OTHER"],
     "second judge openai-compatible:second@{SECOND} -> openai-compatible:other@{OTHER}"),
    ([*ESCALATE, "--escalate-band", "all"], "escalation band default (0.2, 0.8) -> jury (0, 1)"),
    ([*ESCALATE, "--escalate-band", "0.9"], "escalation band default (0.2, 0.8) -> --escalate-band 0.9 (0.1, 0.9)"),
    ([], "escalation to openai-compatible:second@{SECOND}, band default (0.2, 0.8) -> none"),
], ids=["another-second-judge", "jury", "another-confidence", "no-escalation"])
def test_a_resume_with_other_escalation_flags_is_refused_naming_what_changed(tmp_path, capsys, resumed, named):
    with GradedJudge(FIRST_P) as first, GradedJudge(SECOND_P) as second, GradedJudge(SECOND_P) as other:
        urls = {"SECOND": second.server.base_url, "OTHER": other.server.base_url}  # read while they run
        assert _evaluate(tmp_path, first, *[urls.get(f, f) for f in ESCALATE], items=ITEMS[:1]) == 0
        capsys.readouterr()
        code = _evaluate(tmp_path, first, *[urls.get(f, f) for f in resumed])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "was judged another way than this run" in err[0] and named.format(**urls) in err[0]
    assert len((tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()) == 1  # nothing added


def test_a_plain_file_resumed_with_escalation_is_refused(tmp_path, capsys):
    with GradedJudge(FIRST_P) as first, GradedJudge(SECOND_P) as second:
        assert _evaluate(tmp_path, first, items=ITEMS[:1]) == 0
        capsys.readouterr()
        code = _evaluate(tmp_path, first, *_escalate(second))
        second_url = second.server.base_url
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert f"escalation none -> to openai-compatible:second@{second_url}, band default (0.2, 0.8)" in err[0]


def test_a_resume_under_the_same_escalation_flags_goes_on_whatever_the_servers_ports(tmp_path, capsys):
    with GradedJudge(FIRST_P) as first, GradedJudge(SECOND_P) as second:
        assert _evaluate(tmp_path, first, *_escalate(second), items=ITEMS[:1]) == 0
    # the same two judges, started again on other ports: the same judges by identity
    with GradedJudge(FIRST_P) as first, GradedJudge(SECOND_P) as second:
        capsys.readouterr()
        assert _evaluate(tmp_path, first, *_escalate(second)) == 0
    assert "resuming: 1 id(s) already in out.jsonl will be skipped" in capsys.readouterr().err
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [record["id"] for record in records] == ["sure", "unsure"]
    assert all(record["provenance"]["escalation"]["band_source"] == "default" for record in records)


def test_compare_says_an_escalated_runs_judge_differs_from_a_plain_runs(tmp_path, capsys):
    with GradedJudge(FIRST_P) as first, GradedJudge(SECOND_P) as second:
        assert _evaluate(tmp_path, first, out="plain.jsonl") == 0
        assert _evaluate(tmp_path, first, *_escalate(second), out="escalated.jsonl") == 0
        second_url = second.server.base_url
    # the first judge's URL is the same in both files: only the escalation differs
    capsys.readouterr()
    assert cli.main(["compare", str(tmp_path / "plain.jsonl"), str(tmp_path / "escalated.jsonl"), "--json"]) == 0
    differences = json.loads(capsys.readouterr().out)["judge_differences"]
    assert differences == [f"different escalation (--escalate-to): escalation none -> to "
                           f"openai-compatible:second@{second_url}, band default (0.2, 0.8)"]
    assert cli.main(["compare", str(tmp_path / "plain.jsonl"), str(tmp_path / "escalated.jsonl")]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "judge differs: different escalation (--escalate-to): escalation none -> to openai-compatible:second" in shown


def test_a_fitted_band_is_stamped_with_its_promise_and_another_band_is_refused_on_resume(tmp_path, capsys):
    with GradedJudge(FIRST_P) as first, GradedJudge(SECOND_P) as second:
        assert _evaluate(tmp_path, first, "--details", *_escalate(second, "second", "--escalate-band", "all"),
                         out="jury.jsonl") == 0
        assert cli.main(["escalation-fit", str(tmp_path / "jury.jsonl"), "-o", str(tmp_path / "profile.json"),
                         "--agreement", "0.9", "--id", "mine"]) == 0
        fitted = ["--calibration", str(tmp_path / "profile.json")]
        assert _evaluate(tmp_path, first, *fitted, *_escalate(second, "second", "--agreement", "0.9"),
                         items=ITEMS[:1]) == 0
        stamp = _provenances(tmp_path / "out.jsonl")[0]["escalation"]
        capsys.readouterr()
        code = _evaluate(tmp_path, first, *fitted, *_escalate(second))  # the default band this time
    assert stamp["band_source"] == "fit 0.9 (profile mine)" and stamp["target"] == 0.9 and stamp["delta"] == 0.1
    assert stamp["band"]["claim_verdict"] == [0.0, 1.0]  # two paired decisions: everything escalates
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert ("escalation band fit 0.9 (profile mine) claim_verdict (0, 1), context_relevance (0.2, 0.8), "
            "answer_relevance (0.2, 0.8), target 0.9 -> default (0.2, 0.8)") in err[0]


def test_a_stamp_that_is_no_object_counts_as_another_escalation_and_is_shown_escaped(tmp_path, capsys):
    with GradedJudge(FIRST_P) as first:
        assert _evaluate(tmp_path, first, items=ITEMS[:1]) == 0
        out = tmp_path / "out.jsonl"
        record = json.loads(out.read_text(encoding="utf-8"))
        record["provenance"]["escalation"] = "to \x1b[31mred\x1b[0m"
        out.write_text(json.dumps(record) + "\n", encoding="utf-8")
        capsys.readouterr()
        code = _evaluate(tmp_path, first)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "\x1b" not in err[0]
    assert "escalation to \\x1b[31mred\\x1b[0m -> none" in err[0]


def test_evaluate_batch_refuses_to_resume_under_another_second_judge_too(tmp_path):
    from judgegraph.batch.api import evaluate_batch
    from judgegraph.batch.writer import OutputFileError

    out = tmp_path / "api.jsonl"
    with GradedJudge(FIRST_P) as first, GradedJudge(SECOND_P) as second:
        judge = {"model": "first", "base_url": first.server.base_url, "embeddings": False,
                 "escalate_base_url": second.server.base_url}
        evaluate_batch([dict(ITEMS[0])], out=out, escalate_to="second", **judge)
        with pytest.raises(OutputFileError, match="second judge openai-compatible:second@.* -> openai-compatible:other@"):
            evaluate_batch([dict(item) for item in ITEMS], out=out, escalate_to="other", **judge)
        evaluate_batch([dict(item) for item in ITEMS], out=out, escalate_to="second", **judge)  # the same: resumes
    assert [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()] == ["sure", "unsure"]
