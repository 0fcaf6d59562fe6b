"""A conversation file judged turn by turn through the batch CLI, with a scripted judge behind
the fake OpenAI-compatible server: a record per turn with its history, resume per turn, the
per-conversation summary, and the cost of a conversation (one added call per turn at most)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from judgegraph.batch.conversations import conversation_summaries, expand, is_conversation, turn_id
from judgegraph.batch.dry_run import estimate_item
from judgegraph.batch.reader import Entry
from judgegraph.commands import cli
from tests.batch.test_batch_runner import rag_judge, records, run_cli, write_lines
from tests.support import fakes
EXIT_USAGE = 2  # docs/exit-codes.md
from tests.support.scripted_server import ScriptedEndpoint

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "conversation.jsonl"


def conversation(conv_id="c1", **extra) -> dict:
    return {"id": conv_id, "messages": [
        {"role": "user", "content": "What is the capital of France?"},
        {"role": "assistant", "content": "Paris is the capital of France.", "context": ["Paris is the capital of France."]},
        {"role": "user", "content": "How many people live there?"},
        {"role": "assistant", "content": "About 2.1 million people.", "context": ["Paris has 2.1 million inhabitants."],
         "reference": "2.1 million"},
    ], **extra}


def conversation_judge():
    judge = rag_judge()
    judge.default["StandaloneQuestionReply"] = fakes.standalone("How many people live in Paris?")
    return judge


@pytest.fixture
def scripted():
    with ScriptedEndpoint(conversation_judge()) as endpoint:
        yield endpoint


def test_a_line_is_a_conversation_by_its_shape():
    assert is_conversation(conversation())
    assert is_conversation({"turns": [{"role": "user", "content": "hi"}]})  # DeepEval's ConversationalTestCase
    assert not is_conversation({"question": "q", "answer": "a", "messages": []})
    assert not is_conversation({"messages": "not a list"})


def test_each_assistant_turn_becomes_an_item_with_the_history_before_its_question():
    first, second = expand(Entry(3, "c1", item=conversation(evaluation_goal="fact-checking")))
    assert (first.id, second.id) == (turn_id("c1", 1), "c1/turn-2")
    assert first.item["history"] == [] and first.item["question"] == "What is the capital of France?"
    assert second.item["question"] == "How many people live there?"
    assert second.item["history"] == [{"role": "user", "content": "What is the capital of France?"},
                                      {"role": "assistant", "content": "Paris is the capital of France."}]
    assert second.item["context"] == ["Paris has 2.1 million inhabitants."] and second.item["reference"] == "2.1 million"
    assert second.item["evaluation_goal"] == "fact-checking" and "reference" not in first.item
    assert second.conversation.as_record() == {"id": "c1", "turn": 2, "turns": 2} and second.line == 3


def test_deepeval_turns_with_their_retrieval_context_are_read():
    turns = {"turns": [{"role": "user", "content": "Who wrote Hamlet?"},
                       {"role": "assistant", "content": "Shakespeare.", "retrieval_context": ["Hamlet is by Shakespeare."]}]}
    [turn] = expand(Entry(1, "line-1", item=turns))
    assert turn.item["context"] == ["Hamlet is by Shakespeare."] and turn.id == "line-1/turn-1"


def test_a_liverag_conversation_gives_each_turn_its_documents():
    [first, _] = expand(Entry(1, "c", item=conversation(rubric="liverag")))
    assert first.item["documents"] == ["Paris is the capital of France."] and "context" not in first.item
    assert first.item["rubric"] == "liverag"


@pytest.mark.parametrize("line, words", [
    ({"messages": [{"role": "user", "content": "hi"}]}, "no assistant turn after a user message"),
    ({"messages": [{"role": "oracle", "content": "hi"}]}, "unknown role 'oracle'"),
])
def test_a_conversation_that_cannot_be_judged_is_one_failed_entry(line, words):
    [entry] = expand(Entry(4, "line-4", item=line))
    assert entry.item is None and words in entry.error and entry.id == "line-4"


def test_the_batch_writes_a_record_per_turn_and_a_summary_per_conversation(tmp_path, scripted, capsys):
    items = write_lines(tmp_path / "conversations.jsonl", [conversation("c1"), conversation("c2")])
    out = tmp_path / "results.jsonl"
    assert run_cli(items, "--out", out, *scripted.flags) == 0
    written = records(out)
    assert sorted(r["id"] for r in written) == ["c1/turn-1", "c1/turn-2", "c2/turn-1", "c2/turn-2"]
    assert {r["id"]: r["conversation"] for r in written}["c2/turn-2"] == {"id": "c2", "turn": 2, "turns": 2}
    assert all(r["result"]["evaluation_status"] == "success" for r in written)
    assert scripted.judge.count("StandaloneQuestionReply") == 2  # turn 2 of each; turn 1 has no history
    err = capsys.readouterr().err
    assert "Conversations (2; mean and worst turn per metric)" in err
    [summary, _] = conversation_summaries(written)
    assert summary.judged == 2 and summary.failed == [] and summary.mean("faithfulness") == 1.0
    assert summary.as_dict()["metrics"]["faithfulness"] == {"mean": 1.0, "worst_turn": 1, "worst": 1.0}


def test_resume_is_per_turn(tmp_path, scripted, capsys):
    items = write_lines(tmp_path / "conversations.jsonl", [conversation("c1")])
    out = tmp_path / "results.jsonl"
    assert run_cli(items, "--out", out, *scripted.flags) == 0
    kept = [line for line in out.read_text(encoding="utf-8").splitlines() if '"c1/turn-2"' not in line]
    out.write_text("\n".join(kept) + "\n", encoding="utf-8")
    calls = len(scripted.judge.calls)
    assert run_cli(items, "--out", out, *scripted.flags) == 0
    assert sorted(r["id"] for r in records(out)) == ["c1/turn-1", "c1/turn-2"]
    new_steps = [step for step, _, _ in scripted.judge.calls[calls:]]
    assert new_steps.count("StandaloneQuestionReply") == 1  # only turn 2 was judged again
    assert "resuming: 1 id(s)" in capsys.readouterr().err


def test_a_worst_turn_and_a_failed_turn_are_named():
    written = [
        {"id": "c/turn-1", "rubric": "rag", "conversation": {"id": "c", "turn": 1, "turns": 3},
         "result": {"faithfulness": 1.0, "evaluation_status": "success"}},
        {"id": "c/turn-2", "rubric": "rag", "conversation": {"id": "c", "turn": 2, "turns": 3},
         "result": {"faithfulness": 0.25, "evaluation_status": "success"}},
        {"id": "c/turn-3", "rubric": "rag", "conversation": {"id": "c", "turn": 3, "turns": 3},
         "result": {"faithfulness": None, "evaluation_status": "failed", "error": "faithfulness: timeout"}},
        {"id": "plain", "rubric": "rag", "result": {"faithfulness": 1.0, "evaluation_status": "success"}},
    ]
    [summary] = conversation_summaries(written)
    assert summary.worst("faithfulness") == (2, 0.25) and summary.failed == [3]
    assert summary.mean("faithfulness") == pytest.approx(0.625)


def test_a_single_conversation_file_needs_out(tmp_path, capsys):
    path = tmp_path / "one.json"
    path.write_text(json.dumps(conversation()), encoding="utf-8")
    assert cli.main(["evaluate", str(path), "--base-url", "http://127.0.0.1:9/v1", "--model", "m"]) == EXIT_USAGE
    assert "holds a conversation, judged turn by turn" in capsys.readouterr().err


def test_the_example_conversation_has_three_turns():
    [line] = EXAMPLE.read_text(encoding="utf-8").splitlines()
    turns = expand(Entry(1, "eiffel-chat", item=json.loads(line)))
    assert [t.id for t in turns] == ["eiffel-chat/turn-1", "eiffel-chat/turn-2", "eiffel-chat/turn-3"]
    assert len(turns[2].item["history"]) == 4


# --- cost: at most one added call per item, the standalone question ---------------------------

def _usage_by_id(out: Path) -> dict[str, dict]:
    return {r["id"]: r["usage"] for r in records(out)}


def test_history_adds_exactly_one_call_per_item_and_its_tokens(tmp_path):
    """The same item with and without history, judged by the same scripted server: the item
    with history makes one more call (the standalone question) and nothing else changes."""
    plain = {"id": "plain", "question": "How many people live in Paris?", "answer": "About 2.1 million people.",
             "context": ["Paris has 2.1 million inhabitants."]}
    history = [{"role": "user", "content": "What is the capital of France?"},
               {"role": "assistant", "content": "Paris is the capital of France."}]
    followup = plain | {"id": "followup", "question": "How many people live there?", "history": history}
    items = write_lines(tmp_path / "items.jsonl", [plain, followup])
    out = tmp_path / "results.jsonl"
    with ScriptedEndpoint(conversation_judge()) as endpoint:
        assert run_cli(items, "--out", out, "--concurrency", "1", *endpoint.flags) == 0
        steps = [step for step, _, _ in endpoint.judge.calls]
    usage = _usage_by_id(out)
    assert usage["followup"]["calls"] == usage["plain"]["calls"] + 1
    assert steps.count("StandaloneQuestionReply") == 1
    # the fake server counts prompt tokens by characters: the added call's prompt holds the history
    assert usage["followup"]["input_tokens"] > usage["plain"]["input_tokens"]


def test_dry_run_counts_the_standalone_question_and_the_steps_after_it():
    plain = {"question": "How many people live in Paris?", "answer": "About 2.1 million people.",
             "context": ["Paris has 2.1 million inhabitants."]}
    followup = plain | {"question": "How many people live there?",
                        "history": [{"role": "user", "content": "What is the capital of France?"}]}
    _, without = estimate_item(plain, rubric=None, claim_check="per-claim")
    _, with_history = estimate_item(followup, rubric=None, claim_check="per-claim")
    assert with_history.calls == without.calls + 1
    assert with_history.steps == without.steps + Counter({"StandaloneQuestionReply": 1})
