"""Escalation through the CLI (issue 57): two fake judges on 127.0.0.1, the first graded by
token log-probabilities. A confident first verdict is never escalated, an uncertain one always
is and the second judge's verdict counts, a dead second judge stops the run (exit 2, its URL),
the records name the deciding judge, and the first judge's requests are those of a run
without escalation."""

from __future__ import annotations

import json
import socket
import threading

import pytest

from judgegraph.commands import cli
from tests.support import fakes
from tests.support.fault_server import FaultServer, RawReply

CONTEXT = "The Eiffel Tower was completed in 1889 for the World's Fair in Paris."
ITEMS = [
    {"id": "sure", "question": "When was the Eiffel Tower completed?", "answer": "It was completed in 1889.",
     "context": CONTEXT, "metrics": ["faithfulness"]},
    {"id": "unsure", "question": "Who designed the Eiffel Tower?", "answer": "Gustave Eiffel designed it.",
     "context": CONTEXT, "metrics": ["faithfulness"]},
]


class GradedJudge:
    """An OpenAI-compatible fake whose claim checks carry log-probabilities: P(supported) per
    question (by its text in the prompt); records every request body."""

    def __init__(self, p_supported: dict[str, float]) -> None:
        self.p_supported = p_supported
        self.bodies: list[dict] = []
        self._lock = threading.Lock()
        self.server = FaultServer(reply=self.reply)

    def reply(self, step: str, schema: dict, body: dict):
        with self._lock:
            self.bodies.append(body)
        prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        p = next(value for question, value in self.p_supported.items() if question in prompt)
        chosen = "supported" if p >= 0.5 else "not-in-context"
        message = fakes.with_logprobs(fakes.verdict(chosen, 1), "verdict", {"supported": p, "not": 1 - p})
        return RawReply(content=message.content, logprobs=message.response_metadata["logprobs"])

    def claim_checks(self) -> list[dict]:
        return [b for b in self.bodies if "ClaimCheck" in json.dumps(b.get("response_format", {}))]

    def __enter__(self) -> "GradedJudge":
        self.server.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.stop()


def _items(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in ITEMS), encoding="utf-8")
    return path


def _run(tmp_path, first: GradedJudge, *extra: str, out: str = "out.jsonl") -> tuple[int, dict]:
    code = cli.main(["evaluate", str(_items(tmp_path)), "--out", str(tmp_path / out), "--details",
                     "--base-url", first.server.base_url, "--model", "first", "--no-embeddings", *extra])
    lines = (tmp_path / out).read_text(encoding="utf-8").splitlines()
    records = [record for record in map(json.loads, lines) if "id" in record]
    return code, {record["id"]: record for record in records}


def _escalation(record: dict) -> list[dict]:
    return [node["detail"]["escalation"] for node in record["details"]["nodes"]
            if "escalation" in (node.get("detail") or {})]


def _second(second: GradedJudge, *more: str) -> list[str]:
    return ["--escalate-to", "second", "--escalate-base-url", second.server.base_url, *more]


def test_a_confident_verdict_stays_with_the_first_judge_an_uncertain_one_goes_to_the_second(tmp_path, capsys):
    first_p = {"When was": 0.97, "Who designed": 0.62}
    with GradedJudge(first_p) as first, GradedJudge({"When was": 0.01, "Who designed": 0.02}) as second:
        code, records = _run(tmp_path, first, *_second(second))
    assert code == 0
    sure, unsure = _escalation(records["sure"]), _escalation(records["unsure"])
    assert [d["decided_by"] for d in sure] == ["first"] and sure[0]["p_first"] == pytest.approx(0.97)
    assert [d["decided_by"] for d in unsure] == ["second"]
    assert "inside the band (0.20, 0.80)" in unsure[0]["why"] and unsure[0]["band_source"] == "default"
    assert unsure[0]["second_judge"].startswith("openai-compatible:second@")
    # the second judge was asked only the uncertain claim, and its verdict counts
    assert len(second.claim_checks()) == 1 and "Who designed" in json.dumps(second.claim_checks()[0])
    assert records["sure"]["result"]["faithfulness"] == pytest.approx(0.97)  # the first judge's P(supported)
    assert records["unsure"]["result"]["faithfulness"] == pytest.approx(0.02)  # the second judge's
    split = records["unsure"]["usage"]["escalation"]
    assert split["escalated"] == 1 and split["second_judge"]["calls"] == 1
    assert split["first_judge"]["calls"] == records["unsure"]["usage"]["calls"] - 1
    err = capsys.readouterr().err
    assert "escalated 1 of 2 decisions (50%) to the second judge" in err
    assert "second judge openai-compatible:second@" in err and ": 1 calls," in err
    assert "estimated agreement with the second judge alone: not estimated (band: default, not fitted" in err


@pytest.mark.parametrize("p", [0.79, 0.5, 0.21])
def test_every_verdict_inside_the_band_is_escalated(tmp_path, p):
    with GradedJudge({"When was": p, "Who designed": p}) as first, \
            GradedJudge({"When was": 0.99, "Who designed": 0.99}) as second:
        code, records = _run(tmp_path, first, *_second(second))
    assert code == 0
    assert all(d["decided_by"] == "second" for r in records.values() for d in _escalation(r))
    assert len(second.claim_checks()) == 2
    assert all(r["result"]["faithfulness"] == pytest.approx(0.99) for r in records.values())


def test_the_jury_asks_both_judges_every_decision(tmp_path):
    with GradedJudge({"When was": 0.999, "Who designed": 0.001}) as first, \
            GradedJudge({"When was": 0.99, "Who designed": 0.99}) as second:
        code, records = _run(tmp_path, first, *_second(second, "--escalate-band", "all"))
    assert code == 0 and len(second.claim_checks()) == 2
    assert {d["why"] for r in records.values() for d in _escalation(r)} == {
        "jury: every decision is asked of both judges"}


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_dead_second_judge_stops_the_run_naming_it_and_its_url(tmp_path, capsys):
    dead = f"http://127.0.0.1:{_closed_port()}/v1"
    with GradedJudge({"When was": 0.6, "Who designed": 0.6}) as first:
        code = cli.main(["evaluate", str(_items(tmp_path)), "--out", str(tmp_path / "out.jsonl"),
                         "--base-url", first.server.base_url, "--model", "first", "--no-embeddings",
                         "--escalate-to", "second", "--escalate-base-url", dead, "--retries", "0"])
    err = capsys.readouterr().err
    assert code == 2
    assert "cannot use the second judge at" in err and dead.rsplit("/", 1)[0] in err
    assert "connection refused" in err
    assert not first.claim_checks()  # stopped before any item: no first-judge verdict stands in


def test_a_dead_second_judge_stops_a_single_item_too(tmp_path, capsys):
    dead = f"http://127.0.0.1:{_closed_port()}/v1"
    item = tmp_path / "item.json"
    item.write_text(json.dumps(ITEMS[1]), encoding="utf-8")
    with GradedJudge({"Who designed": 0.6}) as first:
        code = cli.main(["evaluate", str(item), "--base-url", first.server.base_url, "--model", "first",
                         "--no-embeddings", "--escalate-to", "second", "--escalate-base-url", dead, "--retries", "0"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert "cannot use the second judge at" in captured.err and "connection refused" in captured.err


def test_the_first_judge_is_asked_exactly_as_without_escalation(tmp_path):
    p = {"When was": 0.97, "Who designed": 0.62}
    with GradedJudge(p) as alone:
        _, plain = _run(tmp_path, alone, out="alone.jsonl")
    with GradedJudge(p) as first, GradedJudge(p) as second:
        _, escalated = _run(tmp_path, first, *_second(second), out="escalated.jsonl")
    assert sorted(map(json.dumps, first.bodies)) == sorted(map(json.dumps, alone.bodies))
    assert all("escalation" not in r["usage"] for r in plain.values())
    assert not any(_escalation(r) for r in plain.values())
    assert all(_escalation(r) for r in escalated.values())


def test_an_agreement_target_the_profile_has_no_fit_for_is_one_line(tmp_path, capsys):
    with GradedJudge({"When was": 0.9}) as first, GradedJudge({"When was": 0.9}) as second:
        code = cli.main(["evaluate", str(_items(tmp_path)), "--out", str(tmp_path / "out.jsonl"),
                         "--base-url", first.server.base_url, "--model", "first", "--no-embeddings",
                         *_second(second, "--agreement", "0.95")])
    err = capsys.readouterr().err
    assert code == 2 and "--agreement 0.95" in err and "escalation-fit" in err
    assert len(err.strip().splitlines()) == 1


def test_a_band_fitted_on_a_jury_run_is_written_to_the_profile_and_read_by_agreement(tmp_path, capsys):
    first_p, second_p = {"When was": 0.97, "Who designed": 0.62}, {"When was": 0.99, "Who designed": 0.02}
    with GradedJudge(first_p) as first, GradedJudge(second_p) as second:
        _run(tmp_path, first, *_second(second, "--escalate-band", "all"), out="jury.jsonl")
        assert cli.main(["escalation-fit", str(tmp_path / "jury.jsonl"), "-o", str(tmp_path / "profile.json"),
                         "--agreement", "0.9,0.95", "--id", "mine"]) == 0
        profile = json.loads((tmp_path / "profile.json").read_text())
        fit = profile["escalation"]["fits"]["0.9"]
        # two paired decisions cannot show 0.9 agreement with 90% confidence: nothing is kept
        assert fit["confidence"] == {"claim_verdict": 1.0} and fit["figures"]["claim_verdict"]["n"] == 2
        assert fit["figures"]["claim_verdict"]["agreement_before"] == 0.5
        code, records = _run(tmp_path, first, *_second(second, "--calibration", str(tmp_path / "profile.json"),
                                                       "--agreement", "0.9"), out="fitted.jsonl")
    assert code == 0
    decided = [d for r in records.values() for d in _escalation(r)]
    assert {d["band_source"] for d in decided} == {"fit 0.9 (profile mine)"}
    assert {d["decided_by"] for d in decided} == {"second"}


def test_escalation_fit_refuses_a_run_without_both_judges_in_one_line(tmp_path, capsys):
    with GradedJudge({"When was": 0.97, "Who designed": 0.62}) as first:
        _run(tmp_path, first, out="alone.jsonl")
    capsys.readouterr()
    assert cli.main(["escalation-fit", str(tmp_path / "alone.jsonl"), "-o", str(tmp_path / "p.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--escalate-band all --details" in err[0]
    assert not (tmp_path / "p.json").exists()


def test_a_dry_run_names_the_second_judges_calls_at_most(tmp_path, capsys):
    code = cli.main(["evaluate", str(_items(tmp_path)), "--dry-run", "--no-embeddings",
                     "--escalate-to", "second", "--escalate-base-url", "http://127.0.0.1:9/v1"])
    err = capsys.readouterr().err
    assert code == 0
    assert "second judge second: at most 2 calls (one per escalatable decision: claim_verdict 2)" in err
    assert "expected share escalated: not known before the run" in err


def test_the_python_api_takes_the_second_judge():
    from judgegraph.graph.api import run_evaluation

    with GradedJudge({"Who designed": 0.55}) as first, GradedJudge({"Who designed": 0.01}) as second:
        run = run_evaluation(dict(ITEMS[1]), model="first", base_url=first.server.base_url, embeddings=False,
                             escalate_to="second", escalate_base_url=second.server.base_url)
    decided = [e.detail["escalation"] for e in run.trace if "escalation" in (e.detail or {})]
    assert [d["decided_by"] for d in decided] == ["second"]
    assert run.result["faithfulness"] == pytest.approx(0.01)


def test_the_report_shows_the_share_escalated_and_each_judges_calls(tmp_path):
    with GradedJudge({"When was": 0.97, "Who designed": 0.62}) as first, \
            GradedJudge({"When was": 0.99, "Who designed": 0.02}) as second:
        _run(tmp_path, first, *_second(second))
    assert cli.main(["report", str(tmp_path / "out.jsonl"), "-o", str(tmp_path / "report.html")]) == 0
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "escalated 1 of 2 decisions (50%) to the second judge" in page
    assert "second judge openai-compatible:second@" in page and "1 calls" in page
