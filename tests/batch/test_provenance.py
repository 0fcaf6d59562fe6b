"""The `provenance` object of batch records: which judge, version, prompts and settings wrote a
line, in one place, on every line, whichever way the line was produced."""

from __future__ import annotations

import json
import re

from judgegraph import __version__
from judgegraph.batch.provenance import build_provenance, prompt_hash
from judgegraph.batch.writer import ResultWriter
from judgegraph.commands import cli
from judgegraph.run.context import JudgeContext
from tests.support.scripted_server import ScriptedEndpoint
from tests.batch.test_batch_runner import rag_item, rag_judge, records, write_lines


def test_built_from_the_judge_context():
    context = JudgeContext(model_id="openai:gpt-4o-mini", claim_check="batch", embeddings=False, max_repairs=1)
    provenance = build_provenance(context, rubric="rag")
    assert provenance["judge_model"] == "openai:gpt-4o-mini"
    assert provenance["judgegraph_version"] == __version__
    assert provenance["profile_id"] is None  # build_provenance is told the profile; none given here
    assert provenance["rubric"] == "rag"
    assert provenance["settings"] == {"response_format": "json_schema", "max_repairs": 1, "claim_check": "batch",
                                      "claims": "sentences", "embeddings": False, "own_answer": True,
                                      "context_cap_tokens": 1024}
    assert re.fullmatch(r"sha256:[0-9a-f]{16}", provenance["prompt_hash"])
    assert build_provenance(context, profile_id="p-1")["profile_id"] == "p-1"


def test_prompt_hash_follows_the_templates(monkeypatch, tmp_path):
    """Editing any template changes the hash: hash a copy of the prompts, then edit one file."""
    from importlib import resources
    from pathlib import Path

    source = Path(str(resources.files("judgegraph.prompts")))
    for template in source.glob("*.j2"):
        (tmp_path / template.name).write_bytes(template.read_bytes())
    monkeypatch.setattr(resources, "files", lambda _package: tmp_path)
    prompt_hash.cache_clear()
    try:
        copied = prompt_hash()
        (tmp_path / "check_claim.j2").write_text((tmp_path / "check_claim.j2").read_text() + "\n ")
        prompt_hash.cache_clear()
        edited = prompt_hash()
    finally:
        monkeypatch.undo()
        prompt_hash.cache_clear()
    assert copied == prompt_hash()  # the copy hashes like the package
    assert edited != copied


def test_the_writer_stamps_every_line(tmp_path):
    out = tmp_path / "out.jsonl"
    stamp = build_provenance(JudgeContext(model_id="m"))
    with ResultWriter(out, provenance=stamp) as writer:
        writer.write({"id": "a", "result": {}})
        writer.write({"id": "b", "result": {}, "input_error": "bad"})
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["provenance"] for line in lines] == [stamp, stamp]
    with ResultWriter(tmp_path / "plain.jsonl") as writer:  # no provenance: lines as given
        writer.write({"id": "a"})
    assert json.loads((tmp_path / "plain.jsonl").read_text()) == {"id": "a"}


def test_a_batch_run_records_its_judge_on_judged_and_bad_lines(tmp_path, capsys):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("q1"), "not json"])
    out = tmp_path / "r.jsonl"
    with ScriptedEndpoint(rag_judge()) as endpoint:
        assert cli.main(["evaluate", str(items), "--out", str(out), "--rubric", "rag", "--claim-check", "batch",
                         *endpoint.flags]) == 1  # the line "not json" failed: docs/exit-codes.md
        base_url = endpoint.base_url
    lines = records(out)
    assert len(lines) == 2
    for line in lines:
        provenance = line["provenance"]
        assert base_url in provenance["judge_model"]
        assert provenance["rubric"] == "rag" and provenance["settings"]["claim_check"] == "batch"


def test_a_batch_line_names_the_profile_that_scored_it(tmp_path):
    """The CLI's batch stamps the calibration profile in use (the default one here) in provenance."""
    from judgegraph.calibration.profile import default_profile

    items = write_lines(tmp_path / "items.jsonl", [rag_item("a")])
    out = tmp_path / "out.jsonl"
    with ScriptedEndpoint(rag_judge()) as endpoint:
        assert cli.main(["evaluate", str(items), "--out", str(out), *endpoint.flags]) == 0
    [line] = records(out)
    assert line["provenance"]["profile_id"] == default_profile().id
