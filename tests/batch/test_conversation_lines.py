"""Conversation lines read as single items are: through the batch CLI with a scripted judge
behind the fake server, every key of a line is read, reported or refused (never dropped), ids
stay apart (a repeated conversation id, an item id of a turn's form), a long line is refused
before it is expanded, and LangChain's `messages_to_dict` form is read. Property tests check
the expansion itself for any sequence of messages."""

from __future__ import annotations

import json
import time
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgegraph.batch.conversations import MAX_CONVERSATION_MESSAGES, expand, expand_conversations, is_turn_id
from judgegraph.batch.reader import Entry
from judgegraph.batch.triage import Classifier
from tests.batch.test_batch_runner import rag_item, records, run_cli, write_lines
from tests.batch.test_conversation_batch import conversation, conversation_judge
from tests.support.scripted_server import ScriptedEndpoint

PARIS = "Paris is the capital of France."


@pytest.fixture
def scripted():
    with ScriptedEndpoint(conversation_judge()) as endpoint:
        yield endpoint


def chat(conv_id="c", context_on_messages=True, **extra) -> dict:
    line = conversation(conv_id, **extra)
    if not context_on_messages:
        for message in line["messages"]:
            message.pop("context", None)
            message.pop("reference", None)
    return line


def judge_lines(tmp_path, scripted, lines) -> tuple[int, dict[str, dict]]:
    items = write_lines(tmp_path / "chats.jsonl", lines)
    out = tmp_path / "results.jsonl"
    code = run_cli(items, "--out", out, *scripted.flags)
    return code, {str(r["id"]): r for r in records(out)}


def test_a_line_level_context_is_every_turns_context(tmp_path, scripted):
    line = chat(context_on_messages=False, context=[PARIS, "Paris has 2.1 million inhabitants."])
    code, written = judge_lines(tmp_path, scripted, [line])
    assert code == 0 and sorted(written) == ["c/turn-1", "c/turn-2"]
    for record in written.values():
        assert record["result"]["faithfulness"] == 1.0  # judged against the line's context, not an empty one
        assert "empty" not in record["result"]["faithfulness_explanation"]


def test_a_line_level_reference_is_read_for_a_single_turn_and_refused_for_several(tmp_path, scripted):
    one_turn = {"id": "one", "reference": "Paris", "messages": chat()["messages"][:2]}
    two_turns = chat("two", ground_truth="Paris")
    two_turns["messages"][3].pop("reference")
    code, written = judge_lines(tmp_path, scripted, [one_turn, two_turns])
    assert written["one/turn-1"]["result"]["semantic_similarity"] is not None
    assert "does not say which of its 2 turns" in written["two"]["result"]["reason"]


@pytest.mark.parametrize("line, words", [
    ({"id": "both", "messages": chat()["messages"], "turns": chat()["messages"]}, "gives both 'messages' and 'turns'"),
    ({"id": "both", "messages": [{"role": "user", "content": "Capital?"},
                                 {"role": "assistant", "content": "Paris.", "context": [PARIS], "contexts": ["Lyon."]}]},
     "under both 'context' and 'contexts'"),
    ({"id": "both", "context": [PARIS], "messages": chat()["messages"]}, "give it once"),
    ({"id": "both", "history": [{"role": "user", "content": "hi"}], "messages": chat()["messages"]},
     "history is its 'messages'"),
])
def test_a_clash_in_a_line_is_refused_with_its_keys(tmp_path, scripted, line, words):
    code, written = judge_lines(tmp_path, scripted, [line, rag_item("after")])
    assert code == 1 and sorted(written) == ["after", "both"]
    assert words in written["both"]["result"]["reason"]
    assert written["after"]["result"]["evaluation_status"] == "success"  # one bad line affects no other


def test_keys_no_one_reads_are_reported_not_dropped(tmp_path, scripted, capsys):
    line = chat(team="search")
    line["messages"][1]["tool_calls"] = [{"name": "lookup"}]
    code, written = judge_lines(tmp_path, scripted, [line])
    assert code == 0
    assert written["c/turn-1"]["input_fields"]["unused_keys"] == ["team", "messages[2].tool_calls"]
    assert written["c/turn-2"]["input_fields"]["unused_keys"] == ["team"]
    err = capsys.readouterr().err
    assert "'team'" in err and "'messages[2].tool_calls'" in err


def test_a_repeated_conversation_id_is_an_input_error_not_a_merge(tmp_path, scripted):
    longer = chat("c")
    longer["messages"] += [{"role": "user", "content": "And its river?"},
                           {"role": "assistant", "content": "The Seine.", "context": ["Paris lies on the Seine."]}]
    code, written = judge_lines(tmp_path, scripted, [chat("c"), longer])
    assert code == 1
    assert sorted(written) == ["c", "c/turn-1", "c/turn-2"]  # no turn 3 borrowed from the second chat
    assert "already the id of the conversation on line 1" in written["c"]["result"]["reason"]
    assert all(written[f"c/turn-{n}"]["conversation"]["turns"] == 2 for n in (1, 2))


@pytest.mark.parametrize("plain_first", [True, False])
def test_an_item_with_a_turns_id_never_replaces_that_turn(tmp_path, scripted, plain_first):
    plain = rag_item("c/turn-2", answer="Lyon.")
    lines = [plain, chat("c")] if plain_first else [chat("c"), plain]
    code, written = judge_lines(tmp_path, scripted, lines)
    line = 1 if plain_first else 2
    assert written["c/turn-2"]["conversation"] == {"id": "c", "turn": 2, "turns": 2}
    assert "has the form of a conversation turn's id" in written[f"line-{line}"]["result"]["reason"]


def test_langchain_messages_to_dict_lines_are_read(tmp_path, scripted):
    from langchain_core.messages import AIMessage, ChatMessage, HumanMessage, messages_to_dict

    messages = messages_to_dict([ChatMessage(role="user", content="What is the capital of France?"),
                                 AIMessage("Paris is the capital of France."),
                                 HumanMessage("How many people live there?"),
                                 ChatMessage(role="assistant", content="About 2.1 million people.")])
    messages[1]["context"] = [PARIS]
    code, written = judge_lines(tmp_path, scripted, [{"id": "lc", "messages": messages}])
    assert code == 0 and sorted(written) == ["lc/turn-1", "lc/turn-2"]
    assert "input_fields" not in written["lc/turn-1"] or not written["lc/turn-1"]["input_fields"].get("unused_keys")


def test_a_long_conversation_is_refused_before_it_is_expanded():
    messages = [{"role": "user" if n % 2 == 0 else "assistant", "content": f"message {n}"} for n in range(4_000)]
    tracemalloc.start()
    started = time.process_time()
    [entry] = expand(Entry(1, "long", item={"messages": messages}))
    seconds = time.process_time() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert entry.item is None and f"over the limit of {MAX_CONVERSATION_MESSAGES}" in entry.error
    assert seconds < 1.0 and peak < 5_000_000


def test_the_longest_allowed_conversation_shares_its_messages_between_turns():
    messages = [{"role": "user" if n % 2 == 0 else "assistant", "content": f"message {n} " * 20}
                for n in range(MAX_CONVERSATION_MESSAGES)]
    tracemalloc.start()
    turns = expand(Entry(1, "long", item={"messages": messages}))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(turns) == MAX_CONVERSATION_MESSAGES // 2
    assert turns[-1].item["history"][0] is turns[1].item["history"][0]  # one dict per message, shared
    assert peak < 20_000_000, peak  # a copy of every history as new dicts takes ~100 MB


# -- properties of the expansion ---------------------------------------------------------------

MESSAGE = st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "system", "tool", "human", "ai"]),
                                 "content": st.text(max_size=12)})


@settings(max_examples=200, deadline=None)
@given(messages=st.lists(MESSAGE, max_size=30), conv_id=st.text(min_size=1, max_size=8))
def test_each_turn_answers_the_last_user_message_with_everything_before_it_as_history(messages, conv_id):
    roles = [{"human": "user", "ai": "assistant"}.get(m["role"], m["role"]) for m in messages]
    expected = []
    last_user = None
    for index, (role, message) in enumerate(zip(roles, messages)):
        if role == "user":
            last_user = index
        elif role == "assistant" and message["content"].strip() and last_user is not None:
            expected.append((last_user, index))
    entries = expand(Entry(1, conv_id, item={"id": conv_id, "messages": messages}))
    if not expected:
        assert [e.item for e in entries] == [None]
        return
    assert [e.id for e in entries] == [f"{conv_id}/turn-{n}" for n in range(1, len(expected) + 1)]
    for entry, (user, reply) in zip(entries, expected):
        assert entry.item["question"] == messages[user]["content"]
        assert entry.item["answer"] == messages[reply]["content"]
        assert [m["content"] for m in entry.item["history"]] == [m["content"] for m in messages[:user]]


@settings(max_examples=100, deadline=None)
@given(ids=st.lists(st.sampled_from(["a", "b", "a/turn-1", "b/turn-2", "c"]), min_size=1, max_size=8),
       shapes=st.lists(st.booleans(), min_size=8, max_size=8))
def test_ids_stay_unique_whatever_the_lines_order(ids, shapes):
    """Every turn of every accepted conversation is judged (none is skipped as another line's
    duplicate), and no item of a turn's form is judged; plain duplicates are the batch's usual
    first-one-wins."""
    entries = [Entry(n, i, item=chat(i) if shapes[n] else rag_item(i)) for n, i in enumerate(ids)]
    expanded = list(expand_conversations(entries))
    classifier = Classifier(set())
    kinds = [(entry, classifier.kind(entry)) for entry in expanded]
    assert all(kind == "judge" for entry, kind in kinds if entry.conversation is not None)
    assert not any(is_turn_id(entry.id) for entry, kind in kinds if kind == "judge" and entry.conversation is None)
    chats = [i for n, i in enumerate(ids) if shapes[n] and not is_turn_id(i)]
    accepted = {entry.conversation.conversation for entry in expanded if entry.conversation is not None}
    assert accepted == set(chats)  # each conversation id judged once, as its first line
    assert {e.line for e in expanded} == set(range(len(ids)))  # every line has a record: judged or its error
