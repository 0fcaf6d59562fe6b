"""The side-by-side with RAGAS and DeepEval (benchmarks/peers), without RAGAS or DeepEval.

What is tested here: the counting proxy's accounting (sessions, tokens from the reply's usage,
failures) and its embeddings endpoint, against a real fake server on 127.0.0.1; the worker
loop (NaN, failures and missing metrics written apart, resume); the summary (costs joined
on attempts, agreement figures as benchmarks.figures gives them); the items built from the
sets; and the fake judge's replies of the peers' shapes. The peers themselves run only in
their own venv, in the smoke runs docs/benchmarks.md shows.
"""

from __future__ import annotations

import base64
import functools
import json
import struct
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from openai import OpenAI

from benchmarks import wikiqa_relevance as wikiqa
from benchmarks.datasets import DEFAULT_DATA_ROOT, PLACEHOLDER_ANSWER, sample_path
from benchmarks.figures import binary_figures, ranking_figures
from benchmarks.peers import run as peers_run
from benchmarks.peers.items import build_items, write_items
from benchmarks.peers.proxy import CountingProxy, embedding_texts, usage_of
from benchmarks.peers.records import append_jsonl, read_jsonl, status_of
from benchmarks.peers.summary import markdown, summarise
from benchmarks.peers.worker import read_items, run_side, set_session
from tests.support import fakes, peer_judge
from tests.support.fault_server import FaultServer


@pytest.fixture(autouse=True)
def few_resamples(monkeypatch):
    """Intervals from 50 resamples, not thousands: these tests check which figures the summary
    computes and over which items, not the intervals' precision (tests/stats covers those)."""
    from judgegraph import stats

    original = stats.bootstrap_interval
    monkeypatch.setattr(stats, "bootstrap_interval", functools.partial(original, resamples=50))


def chat(base_url: str, content: str = "hello") -> dict:
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": content}]}).encode()
    request = urllib.request.Request(base_url + "/chat/completions", data=body,
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.loads(reply.read())


@pytest.fixture
def upstream():
    with FaultServer() as server:
        yield server


@pytest.fixture
def proxy(upstream, tmp_path):
    with CountingProxy(upstream.base_url, tmp_path / "calls.jsonl", embedder=fakes.HashEmbedder()) as counting:
        yield counting


# --- the proxy -----------------------------------------------------------------------------

def test_the_proxy_forwards_and_records_each_call_under_the_current_session(proxy, upstream, tmp_path):
    set_session(proxy.base_url, {"item": "i1", "metric": "faithfulness", "attempt": "a1"})
    first = chat(proxy.base_url, "x" * 400)
    chat(proxy.base_url)
    set_session(proxy.base_url, {"item": None, "metric": None, "attempt": None})
    chat(proxy.base_url)

    assert upstream.requests == 3
    assert first["choices"][0]["message"]["content"]  # the judge's reply, unchanged
    records = read_jsonl(tmp_path / "calls.jsonl")
    assert records == proxy.records
    assert [(r["item"], r["attempt"], r["kind"]) for r in records] == [
        ("i1", "a1", "chat"), ("i1", "a1", "chat"), (None, None, "chat")]
    assert records[0]["prompt_tokens"] == first["usage"]["prompt_tokens"] == 100
    assert records[0]["completion_tokens"] == first["usage"]["completion_tokens"]
    assert all(r["http_status"] == 200 and r["seconds"] > 0 and r["error"] is None for r in records)


def test_a_failed_call_is_recorded_with_its_status_and_reaches_the_side(tmp_path):
    with FaultServer(script=["500"]) as server, CountingProxy(server.base_url, None) as counting:
        set_session(counting.base_url, {"item": "i1", "metric": "faithfulness", "attempt": "a1"})
        with pytest.raises(urllib.error.HTTPError) as raised:
            chat(counting.base_url)
        assert raised.value.code == 500
    [record] = counting.records
    assert record["http_status"] == 500 and record["prompt_tokens"] is None and "server error" in record["error"]


def test_kept_bodies_are_the_bytes_sent_tagged_with_their_item(upstream):
    with CountingProxy(upstream.base_url, None, keep_bodies=True) as counting:
        set_session(counting.base_url, {"item": "first", "metric": None, "attempt": None})
        chat(counting.base_url, "one")
        set_session(counting.base_url, {"item": "second", "metric": None, "attempt": None})
        chat(counting.base_url, "two")
    assert [(item, json.loads(body)["messages"][0]["content"]) for item, body in counting.bodies] == [
        ("first", "one"), ("second", "two")]
    with CountingProxy(upstream.base_url, None) as plain:
        chat(plain.base_url)
    assert plain.bodies is None and len(plain.records) == 1


def test_an_unreachable_judge_is_a_502_not_a_hang(tmp_path):
    with FaultServer() as server:
        gone = server.base_url
    with CountingProxy(gone, None) as counting, pytest.raises(urllib.error.HTTPError) as raised:
        chat(counting.base_url)
    assert raised.value.code == 502 and counting.records[0]["http_status"] == 502


def test_usage_is_read_from_the_reply_and_missing_usage_stays_none():
    reply = {"usage": {"prompt_tokens": 12, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 8}}}
    assert usage_of(reply) == (12, 3, 8)
    assert usage_of({"choices": []}) == (None, None, None)
    assert usage_of({"usage": {"prompt_tokens": True, "completion_tokens": "3"}}) == (None, None, None)


def test_embeddings_come_from_the_embedder_as_floats_or_base64(proxy):
    embedder = fakes.HashEmbedder()
    client = OpenAI(base_url=proxy.base_url, api_key="x")  # the SDK asks for base64 by default
    texts = ["Paris is the capital of France.", "The Seine flows through Paris."]
    got = client.embeddings.create(model="any", input=texts)
    expected = embedder.embed(texts)
    for item, vector in zip(got.data, expected):
        assert item.embedding == pytest.approx(vector, abs=1e-6)
    floats = client.embeddings.create(model="any", input=texts[0], encoding_format="float")
    assert floats.data[0].embedding == pytest.approx(expected[0], abs=1e-6)
    records = [r for r in proxy.records if r["kind"] == "embeddings"]
    assert [r["texts"] for r in records] == [2, 1] and all(r["http_status"] == 200 for r in records)


def test_base64_is_little_endian_float32_as_the_api_sends_it(proxy):
    body = json.dumps({"input": ["one two"], "encoding_format": "base64"}).encode()
    request = urllib.request.Request(proxy.base_url + "/embeddings", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as reply:
        encoded = json.loads(reply.read())["data"][0]["embedding"]
    raw = base64.b64decode(encoded)
    decoded = struct.unpack(f"<{len(raw) // 4}f", raw)
    assert decoded == pytest.approx(fakes.HashEmbedder().vector("one two"), abs=1e-6)


def test_token_id_input_and_a_proxy_without_embedder_are_refused_and_recorded(proxy, upstream):
    with pytest.raises(ValueError, match="tiktoken"):
        embedding_texts([[101, 2023]])
    client = OpenAI(base_url=proxy.base_url, api_key="x", max_retries=0)
    with pytest.raises(Exception, match="tiktoken"):
        client.embeddings.create(model="any", input=[[101, 2023]])
    assert proxy.records[-1]["kind"] == "embeddings" and proxy.records[-1]["http_status"] == 400
    with CountingProxy(upstream.base_url, None) as bare:
        with pytest.raises(Exception, match="no embedder"):
            OpenAI(base_url=bare.base_url, api_key="x", max_retries=0).embeddings.create(model="any", input="a")
    assert upstream.requests == 0  # embeddings are never forwarded to the judge


# --- the worker and the summary --------------------------------------------------------------

def halueval_items() -> list[dict]:
    def item(n: int, hallucination: str) -> dict:
        return {"id": f"h{n}", "set": "halueval", "question": f"question {n}?", "context": f"context {n}.",
                "answer": f"answer {n}", "reference": f"reference {n}",
                "metrics": ["faithfulness", "semantic_similarity"],
                "human": {"hallucination": hallucination}, "meta": {}}
    return [item(n, "yes" if n % 2 else "no") for n in range(6)]


SCORES = {"h0": 0.9, "h1": 0.2, "h2": 0.8, "h3": float("nan"), "h4": None, "h5": "raise"}
"""h3 NaN and h4 None are the side's quiet failures, h5 raises."""


def scorer_through(proxy_url: str):
    def score(item: dict, metric: str) -> object:
        chat(proxy_url)  # one model call per scored pair, as the proxy will count it
        value = SCORES[item["id"]]
        if value == "raise":
            raise RuntimeError("the peer broke")
        return value
    return score


def test_the_worker_writes_nan_failures_and_missing_metrics_apart_and_resumes(proxy, tmp_path):
    items = halueval_items()
    scores = tmp_path / "scores-ragas-halueval.jsonl"
    judged = run_side("ragas", items, ["faithfulness", "semantic_similarity"], scorer_through(proxy.base_url), scores,
                      proxy.base_url, {"faithfulness": "Faithfulness"})
    assert judged == 12
    records = {(r["item"], r["metric"]): r for r in read_jsonl(scores)}
    assert [records[(f"h{n}", "faithfulness")]["status"] for n in range(6)] == ["ok", "ok", "ok", "nan", "nan", "failed"]
    assert "the peer broke" in records[("h5", "faithfulness")]["error"]
    assert {records[(f"h{n}", "semantic_similarity")]["status"] for n in range(6)} == {"not_computed"}
    assert len(proxy.records) == 6  # a metric the side lacks makes no call
    assert {r["attempt"] for r in proxy.records} == {records[(f"h{n}", "faithfulness")]["attempt"] for n in range(6)}

    again = run_side("ragas", items, ["faithfulness", "semantic_similarity"], scorer_through(proxy.base_url), scores,
                     proxy.base_url, {"faithfulness": "Faithfulness"})
    assert again == 0 and len(proxy.records) == 6


def test_status_of_a_score():
    assert status_of(0.5) == ("ok", 0.5)
    assert status_of(1) == ("ok", 1.0)
    for quiet in (None, float("nan"), float("inf"), "0.5", True):
        assert status_of(quiet) == ("nan", None)


def test_the_summary_counts_per_attempt_and_agrees_as_benchmarks_figures_does(proxy, tmp_path):
    items = halueval_items()
    write_items(items, tmp_path / "items-halueval.jsonl")
    scores = tmp_path / "scores-ragas-halueval.jsonl"
    proxy.log_path = tmp_path / "calls-ragas-halueval.jsonl"
    run_side("ragas", items, ["faithfulness"], scorer_through(proxy.base_url), scores, proxy.base_url,
             {"faithfulness": "Faithfulness"})
    append_jsonl(proxy.log_path, {"kind": "chat", "item": "h0", "metric": "faithfulness", "attempt": "killed-try",
                                  "path": "/v1/chat/completions", "http_status": 200, "prompt_tokens": 999,
                                  "completion_tokens": 999, "cached_tokens": None, "seconds": 50.0, "texts": 0,
                                  "error": None})

    [row] = summarise(tmp_path)
    assert (row["items"], row["ok"], row["nan"], row["failed"], row["not_computed"]) == (6, 3, 2, 1, 0)
    assert row["calls_per_item"] == 1.0  # the killed try's call is not one of these attempts
    prompt_tokens = [r["prompt_tokens"] for r in proxy.records]
    assert row["prompt_tokens_per_item"] == round(sum(prompt_tokens) / 6, 1)
    ok_items = [item for item in items if item["id"] in ("h0", "h1", "h2")]
    expected = binary_figures(ok_items, [0.9, 0.2, 0.8])
    assert row["agreement"]["auroc"] == expected["auroc"] == 1.0
    assert row["agreement"]["balanced_accuracy_05"] == expected["balanced_accuracy_05"]
    table = markdown([row])
    assert "| halueval | faithfulness | ragas (Faithfulness) | 6 | 1 |" in table
    assert "| 1 | 2 | 0 | BA 1.00" in table  # failed, NaN, not computed, then the figure


def test_pairs_get_pairwise_accuracy_and_auroc_over_pairs_both_sides_scored(tmp_path):
    items = [{"id": f"{pair}:{side}", "set": "wikiqa", "question": "q", "context": "c", "answer": "a",
              "reference": None, "metrics": ["answer_relevance"],
              "human": {"relevant": int(side == "pos")}, "meta": {"pair_id": pair}}
             for pair in ("p1", "p2", "p3") for side in ("pos", "neg")]
    write_items(items, tmp_path / "items-wikiqa.jsonl")
    scores = {"p1:pos": 0.9, "p1:neg": 0.1, "p2:pos": 0.2, "p2:neg": 0.7, "p3:pos": 0.8, "p3:neg": None}
    for item in items:
        status, score = status_of(scores[item["id"]])
        append_jsonl(tmp_path / "scores-deepeval-wikiqa.jsonl", {
            "side": "deepeval", "set": "wikiqa", "item": item["id"], "metric": "answer_relevance",
            "attempt": item["id"], "status": status, "score": score, "seconds": 1.0, "error": None,
            "peer_metric": "AnswerRelevancyMetric"})

    [row] = summarise(tmp_path)
    scored = [item for item in items if scores[item["id"]] is not None]
    expected = ranking_figures(scored, [scores[item["id"]] for item in scored])
    assert row["agreement"] == expected
    assert row["agreement"]["pairs"] == 2 and row["agreement"]["pairwise_accuracy"] == 0.5
    assert row["nan"] == 1 and row["calls_per_item"] == 0.0
    assert "pairwise 0.50" in markdown([row])


# --- items and the orchestrator ----------------------------------------------------------------

@pytest.mark.skipif(not sample_path("halueval_qa").is_file() or not sample_path("msmarco_ctxrel").is_file(),
                    reason=f"bench-data samples not found under {DEFAULT_DATA_ROOT}")
def test_halueval_and_msmarco_items_are_report_rows_as_the_agreement_benchmarks_take_them():
    from benchmarks.datasets import SETS, load_rows, select_rows
    from benchmarks.split import part_of

    halueval = build_items("halueval")
    rows = select_rows(load_rows(sample_path("halueval_qa")), SETS["halueval_qa"], 20, "report")
    assert [item["id"] for item in halueval] == [row["id"] for row in rows] and len(halueval) == 20
    assert {item["human"]["hallucination"] for item in halueval} == {"yes", "no"}
    assert all(item["reference"] and item["context"] and len(item["metrics"]) == 4 for item in halueval)
    everything = load_rows(sample_path("halueval_qa"))
    positions = {row["id"]: n for n, row in enumerate(everything)}
    assert all(part_of("halueval_qa", everything[positions[item["id"]]], positions[item["id"]]) == "report"
               for item in halueval)

    msmarco = build_items("msmarco")
    assert len(msmarco) == 60 and {item["answer"] for item in msmarco} == {PLACEHOLDER_ANSWER}
    assert all(item["metrics"] == ["context_relevance"] for item in msmarco)
    pairs: dict[str, set[int]] = {}
    for item in msmarco:
        pairs.setdefault(item["meta"]["pair_id"], set()).add(item["human"]["relevant"])
    assert all(labels == {0, 1} for labels in pairs.values())


@pytest.fixture
def wikiqa_snapshot(tmp_path, monkeypatch) -> Path:
    """A mirror root with a two-question WikiQA snapshot (as tests/benchmarks/test_wikiqa_relevance.py builds one)."""
    header = "QuestionID\tQuestion\tDocumentID\tDocumentTitle\tSentenceID\tSentence\tLabel"
    lines = [header]
    for question, sentences in (("Q1", [("It is 212 metres tall .", 1), ("It is blue .", 0)]),
                                ("Q2", [("It flooded in 1911 .", 1), ("It is long .", 0)])):
        for n, (sentence, label) in enumerate(sentences):
            lines.append(f"{question}\twhat about {question}\tD{question}\tT\tD{question}-{n}\t{sentence}\t{label}")
    work = tmp_path / "work" / "WikiQACorpus"
    work.mkdir(parents=True)
    for name in ("WikiQA-dev.tsv", "WikiQA-test.tsv"):
        (work / name).write_text("\n".join(lines if name.endswith("dev.tsv") else [header]) + "\n", encoding="utf-8")
    git_dir = tmp_path / "mirror" / wikiqa.REPO.replace("/", "+") / "repo"

    def git(*args: str) -> str:
        return subprocess.run(["git", "--git-dir", str(git_dir), "--work-tree", str(tmp_path / "work"), *args],
                              capture_output=True, text=True, check=True).stdout.strip()

    subprocess.run(["git", "init", "--bare", "-q", str(git_dir)], check=True)
    git("add", "-A")
    git("-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "fixture")
    monkeypatch.setattr(wikiqa, "COMMIT", git("rev-parse", "HEAD"))
    return tmp_path / "mirror"


def test_wikiqa_items_are_the_pairs_of_a_part_with_their_paragraph(wikiqa_snapshot, tmp_path):
    both = build_items("wikiqa", 0, mirror_root=wikiqa_snapshot, part="report") + \
        build_items("wikiqa", 0, mirror_root=wikiqa_snapshot, part="tune")
    assert len(both) == 4
    by_id = {item["id"]: item for item in both}
    assert by_id["wikiqa_answer_relevance:Q1:pos"]["answer"] == "It is 212 metres tall ."
    assert by_id["wikiqa_answer_relevance:Q1:neg"]["context"] == "It is 212 metres tall . It is blue ."
    assert all(item["metrics"] == ["answer_relevance"] and item["set"] == "wikiqa" for item in both)
    write_items(both, tmp_path / "items.jsonl")
    assert read_items(tmp_path / "items.jsonl") == both


def test_each_side_runs_in_its_own_venv_with_telemetry_off():
    ragas = peers_run.side_command("ragas", Path("/peers/bin/python"), Path("i.jsonl"), Path("s.jsonl"),
                                   "http://127.0.0.1:1/v1", "judge", "faithfulness")
    assert ragas[:3] == ["/peers/bin/python", "-m", "benchmarks.peers.ragas_side"]
    environment = peers_run.side_environment("deepeval")
    assert environment["DEEPEVAL_TELEMETRY_OPT_OUT"] == "1" and environment["RAGAS_DO_NOT_TRACK"] == "true"
    assert environment["PYTHONPATH"].split(":")[0] == str(peers_run.REPO_ROOT)
    judgegraph = peers_run.side_environment("judgegraph")["PYTHONPATH"].split(":")
    assert judgegraph[:2] == [str(peers_run.REPO_ROOT), str(peers_run.REPO_ROOT.parent)]


def test_the_peer_modules_import_no_judgegraph():
    """The peers' venv has no judgegraph: their worker's modules must not need it."""
    root = Path(peers_run.__file__).parent
    for name in ("records.py", "worker.py", "ragas_side.py", "deepeval_side.py"):
        source = (root / name).read_text(encoding="utf-8")
        assert "judgegraph" not in "".join(line for line in source.splitlines() if line.startswith(("import", "from")))
        assert "benchmarks.figures" not in source and "benchmarks.datasets" not in source


# --- the fake judge's replies of the peers' shapes -----------------------------------------------

def test_the_peer_judge_answers_instructor_json_mode_with_an_instance_of_its_schema():
    schema = {"title": "NLIStatementOutput", "type": "object", "required": ["statements"], "properties": {
        "statements": {"type": "array", "items": {"type": "object", "required": ["statement", "verdict"],
                                                  "properties": {"statement": {"type": "string"},
                                                                 "verdict": {"type": "integer"}}}}}}
    body = {"response_format": {"type": "json_object"}, "messages": [
        {"role": "system", "content": "provide the parsed objects in json that match the following json_schema:\n\n"
                                      + json.dumps(schema, indent=2) + "\n\nMake sure to return an instance"},
        {"role": "user", "content": "..."}]}
    reply = peer_judge.reply("", {}, body)
    assert isinstance(reply["statements"][0]["verdict"], int) and reply["statements"][0]["statement"]
    body["messages"][0]["content"] = body["messages"][0]["content"].replace("NLIStatementOutput", "ContextRelevanceOutput")
    assert peer_judge.reply("", {}, body) == {"rating": 2}


def test_the_peer_judge_answers_deepeval_templates_by_their_opening_and_judgegraph_as_the_demo_judge():
    def ask(prompt: str) -> dict:
        return peer_judge.reply("", {}, {"messages": [{"role": "user", "content": prompt}]})

    assert "claims" in ask("Based on the given text, please extract a comprehensive list of FACTUAL, undisputed truths")
    assert "truths" in ask("Based on the given text, please generate a comprehensive list of, that can inferred")
    assert ask("Based on the input and retrieval context, please generate")["verdicts"][0]["statement"]
    assert "reason" in ask("Below is a list of Contradictions. It is a list of strings")
    assert ask("something else entirely") == {"reply": "ok"}
    judgegraph = peer_judge.reply("ClaimCheck", {}, {"messages": [
        {"role": "user", "content": "<context>Paris is in France.</context><claim>Paris is in France.</claim>"}]})
    assert judgegraph == {"verdict": "supported", "line": 1}


def test_a_resumed_folder_takes_a_larger_limit_and_refuses_other_items(tmp_path):
    from benchmarks.peers.items import ItemsMismatch, items_for_run

    items = [{"id": f"h{n}", "set": "halueval", "question": "q", "context": "c", "answer": "a", "reference": None,
              "metrics": ["faithfulness"], "human": {}, "meta": {}} for n in range(5)]
    path = tmp_path / "items-halueval.jsonl"
    assert "wrote 3 items" in items_for_run(path, items[:3])
    assert "resuming the 3 items" in items_for_run(path, None)  # no --limit: the run resumed as it is
    assert "resuming the 3 items" in items_for_run(path, items[:3])
    assert "extended" in items_for_run(path, items)
    assert [item["id"] for item in read_jsonl(path)] == ["h0", "h1", "h2", "h3", "h4"]
    for other in (items[:2], items[1:]):  # fewer rows, or other rows: never mixed into one summary
        with pytest.raises(ItemsMismatch, match="not the first of"):
            items_for_run(path, other)
    assert [item["id"] for item in read_jsonl(path)] == ["h0", "h1", "h2", "h3", "h4"]  # left as it was


# --- paired differences ------------------------------------------------------------------------

def _write_scores(folder: Path, side: str, set_name: str, metric: str, scores: dict[str, float | None]) -> None:
    for item, value in scores.items():
        status, score = status_of(value)
        append_jsonl(folder / f"scores-{side}-{set_name}.jsonl", {
            "side": side, "set": set_name, "item": item, "metric": metric, "attempt": item,
            "status": status, "score": score, "seconds": 1.0, "error": None, "peer_metric": metric})


def test_paired_halueval_compares_balanced_accuracy_on_the_rows_both_scored(tmp_path, capsys):
    from benchmarks.peers import paired

    labels = {"r1": "yes", "r2": "yes", "r3": "no", "r4": "no", "r5": "yes"}
    items = [{"id": i, "set": "halueval", "question": "q", "context": "c", "answer": "a", "reference": "r",
              "metrics": ["faithfulness"], "human": {"hallucination": h}, "meta": {}} for i, h in labels.items()]
    write_items(items, tmp_path / "items-halueval.jsonl")
    # the baseline gets every row right; the other flags r3 (a faithful answer) and fails on r5
    _write_scores(tmp_path, "judgegraph", "halueval", "faithfulness", {"r1": 0.1, "r2": 0.2, "r3": 0.9, "r4": 1.0, "r5": 0.0})
    _write_scores(tmp_path, "ragas", "halueval", "faithfulness", {"r1": 0.1, "r2": 0.3, "r3": 0.4, "r4": 0.8, "r5": None})
    _write_scores(tmp_path, "ragas", "halueval", "answer_relevance", {"r1": 1.0})  # another metric: ignored

    result = paired.compare("halueval", {i["id"]: i for i in items},
                            paired.ok_scores(tmp_path, "judgegraph", "halueval"), paired.ok_scores(tmp_path, "ragas", "halueval"))
    assert result["units"] == 4  # r5 is left out: the other side has no ok score for it
    assert result["baseline"] == 1.0 and result["other"] == 0.75 and result["changed"] == 1
    low, high = result["difference_ci"]
    assert low <= -0.25 <= high <= 0.0

    assert paired.main(["--set", "halueval", f"{tmp_path}:judgegraph", f"{tmp_path}:ragas"]) == 0
    assert "4 rows both scored" in capsys.readouterr().out


def test_paired_pairs_count_ties_as_half_and_refuse_a_folder_with_other_items(tmp_path):
    from benchmarks.peers import paired

    items = [{"id": f"{pair}:{side}", "set": "msmarco", "question": "q", "context": "c", "answer": "a",
              "reference": None, "metrics": ["context_relevance"], "human": {"relevant": int(side == "pos")},
              "meta": {"pair_id": pair}} for pair in ("p1", "p2", "p3") for side in ("pos", "neg")]
    write_items(items, tmp_path / "items-msmarco.jsonl")
    base = {"p1:pos": 0.9, "p1:neg": 0.1, "p2:pos": 0.8, "p2:neg": 0.2, "p3:pos": 0.7, "p3:neg": 0.3}
    other = {"p1:pos": 0.5, "p1:neg": 0.5, "p2:pos": 0.1, "p2:neg": 0.9, "p3:pos": 0.7, "p3:neg": None}
    result = paired.compare("msmarco", {i["id"]: i for i in items}, base, {k: v for k, v in other.items() if v is not None})
    assert result["units"] == 2  # p3: the other side did not score its negative
    assert result["baseline"] == 1.0 and result["other"] == 0.25 and result["changed"] == 2

    elsewhere = tmp_path / "elsewhere"
    write_items(items + [dict(items[0], id="p9:pos")], elsewhere / "items-msmarco.jsonl")
    with pytest.raises(SystemExit):
        paired.main(["--set", "msmarco", f"{tmp_path}:judgegraph", f"{elsewhere}:judgegraph"])
