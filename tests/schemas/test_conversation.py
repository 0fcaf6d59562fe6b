"""A conversation's history in every shape a chat stack writes, read as `(role, content)`
messages; bounded, unknown roles named, and read the same through the graph's first node."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, messages_to_dict
from langchain_core.load import dumpd

from judgegraph.graph.every_item.validate_input import validate_input
from judgegraph.schemas.conversation import (
    MAX_HISTORY_CHARS,
    MAX_HISTORY_MESSAGES,
    MESSAGE_CHARS,
    WINDOW_CHARS,
    WINDOW_MESSAGES,
    ChatMessage,
    HistoryError,
    prompt_window,
    read_messages,
)

EXPECTED = [ChatMessage(role="user", content="What is the Eiffel Tower?"),
            ChatMessage(role="assistant", content="A tower in Paris.")]
LANGCHAIN = [HumanMessage("What is the Eiffel Tower?"), AIMessage("A tower in Paris.")]

SHAPES = {
    "openai": [{"role": "user", "content": "What is the Eiffel Tower?"},
               {"role": "assistant", "content": "A tower in Paris."}],
    "openai content parts": [{"role": "user", "content": [{"type": "text", "text": "What is the Eiffel Tower?"}]},
                             {"role": "assistant", "content": "A tower in Paris."}],
    "langchain / ragas type dicts": [{"type": "human", "content": "What is the Eiffel Tower?"},
                                     {"type": "ai", "content": "A tower in Paris."}],
    "langchain messages_to_dict": messages_to_dict(LANGCHAIN),
    "langchain lc-serialized": [dumpd(message) for message in LANGCHAIN],
    "langchain objects": LANGCHAIN,
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_shape_reads_as_the_same_messages(shape):
    assert read_messages(SHAPES[shape]) == EXPECTED


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_shape_reaches_the_rag_input_through_the_first_node(shape):
    item = {"question": "How tall is it?", "answer": "330 m.", "context": "It is 330 m tall.",
            "history": SHAPES[shape]}
    update = validate_input({"item": item})
    assert update["input_errors"] == {}
    assert update["inputs"]["rag"].history == EXPECTED


def test_system_developer_and_tool_roles_are_read():
    messages = read_messages([SystemMessage("Be brief."), {"role": "developer", "content": "Cite."},
                              ToolMessage("42", tool_call_id="t1"), {"role": "function", "content": "x"}])
    assert [m.role for m in messages] == ["system", "system", "tool", "tool"]


def test_an_unknown_role_is_an_input_error_that_names_it():
    item = {"question": "q?", "answer": "a", "history": [{"role": "user", "content": "hi"},
                                                         {"role": "wizard", "content": "abracadabra"}]}
    update = validate_input({"item": item})
    reason = update["input_errors"]["rag"]
    assert "message 2" in reason and "unknown role 'wizard'" in reason and "known: user, assistant" in reason
    assert update["inputs"] == {}


@pytest.mark.parametrize("history, words", [
    ("just a string", "list of messages"),
    ([{"content": "no role"}], "neither 'role' nor 'type'"),
    ([42], "not a message"),
    ([{"role": "user", "content": {"nested": "object"}}], "not text"),
])
def test_what_is_not_a_message_list_is_named(history, words):
    with pytest.raises(HistoryError, match=words):
        read_messages(history)


def test_a_non_text_content_part_is_named_not_dropped():
    [message] = read_messages([{"role": "user", "content": [
        {"type": "text", "text": "What is this?"}, {"type": "image_url", "image_url": {"url": "x"}}]}])
    assert message.content == "What is this?\n[image_url part not shown]"


def test_a_history_is_bounded_in_messages_and_characters():
    with pytest.raises(HistoryError, match=f"over the limit of {MAX_HISTORY_MESSAGES}"):
        read_messages([{"role": "user", "content": "x"}] * (MAX_HISTORY_MESSAGES + 1))
    with pytest.raises(HistoryError, match=f"over the limit of {MAX_HISTORY_CHARS}"):
        read_messages([{"role": "user", "content": "x" * (MAX_HISTORY_CHARS // 2 + 1)}] * 2)


def test_the_judge_sees_a_bounded_window_of_the_latest_messages():
    history = [ChatMessage(role="user" if i % 2 == 0 else "assistant", content=f"message {i}") for i in range(40)]
    window = prompt_window(history)
    assert len(window.messages) == WINDOW_MESSAGES and window.left_out == 40 - WINDOW_MESSAGES
    assert window.messages[-1].content == "message 39"
    long = [ChatMessage(role="assistant", content="y" * 10_000) for _ in range(10)]
    window = prompt_window(long)
    assert all(len(m.content) <= MESSAGE_CHARS for m in window.messages)
    assert sum(len(m.content) for m in window.messages) <= WINDOW_CHARS and window.cut == len(window.messages)


def test_the_chat_history_name_of_langchain_chains_is_read_and_announced():
    item = {"question": "And its height?", "answer": "330 m.", "chat_history": LANGCHAIN}
    update = validate_input({"item": item})
    assert update["inputs"]["rag"].history == EXPECTED
    assert update["trace"][0].detail["read_as"] == {"history": "chat_history"}


def test_a_ragas_multi_turn_user_input_splits_into_history_question_and_answer():
    """RAGAS `MultiTurnSample.user_input`: the chat as one message list."""
    item = {"user_input": [{"type": "human", "content": "What is the Eiffel Tower?"},
                           {"type": "ai", "content": "A tower in Paris."},
                           {"type": "human", "content": "How tall is it?"},
                           {"type": "ai", "content": "330 m."}],
            "retrieved_contexts": ["The Eiffel Tower is 330 m tall."]}
    update = validate_input({"item": item})
    rag = update["inputs"]["rag"]
    assert (rag.question, rag.answer, rag.history) == ("How tall is it?", "330 m.", EXPECTED)
    assert update["trace"][0].detail["read_as"]["history"] == "user_input"


def test_a_message_list_question_beside_its_own_history_is_a_clash():
    item = {"user_input": [{"type": "human", "content": "a"}, {"type": "ai", "content": "b"},
                           {"type": "human", "content": "c?"}],
            "response": "d", "history": [{"role": "user", "content": "z"}]}
    reason = validate_input({"item": item})["input_errors"]["rag"]
    assert "'user_input' and 'history' both give the conversation history" in reason


def test_liverag_reads_history_too():
    item = {"question": "And when?", "answer": "1889.", "documents": ["It opened in 1889."],
            "history": SHAPES["openai"]}
    assert validate_input({"item": item})["inputs"]["liverag"].history == EXPECTED
