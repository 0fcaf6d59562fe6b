"""`items(...)`: a file's items as `judgegraph evaluate` reads them, one test each."""

from __future__ import annotations

import json
import textwrap

import pytest

import judgegraph.testing.items  # noqa: F401 - kept across pytester's module snapshots
from judgegraph.testing import FileItem, ItemFileError, read_items
from tests.support import demo_judge
from tests.support.fault_server import FaultServer

pytest_plugins = ("pytester",)

CONTEXT = [
    "Craigslist is a classified advertisements website founded in 1995 by Craig Newmark.",
    "24 Hours on Craigslist is a 2005 documentary about a single day of Craigslist posts.",
]


def test_jsonl_in_ragas_names_and_a_conversation_read_as_the_batch_reads_them(tmp_path):
    path = tmp_path / "cases.jsonl"
    conversation = {"id": "chat", "messages": [
        {"role": "user", "content": "Who founded Craigslist?"},
        {"role": "assistant", "content": "Craig Newmark.", "context": CONTEXT},
        {"role": "user", "content": "When?"},
        {"role": "assistant", "content": "In 1995.", "context": CONTEXT}]}
    path.write_text("\n".join(json.dumps(line) for line in [
        {"id": "ragas", "user_input": "Who founded Craigslist?", "response": "Craig Newmark.",
         "retrieved_contexts": CONTEXT},
        {"question": "When?", "answer": "1995", "context": CONTEXT},
        conversation]) + "\n")
    found = read_items(path)
    assert [item_id for item_id, _ in found] == ["ragas", "line-2", "chat/turn-1", "chat/turn-2"]
    ragas = found[0][1]
    assert isinstance(ragas, FileItem) and ragas["user_input"] == "Who founded Craigslist?"
    assert ragas.source == f"{path}:1" and ragas.field_map is None
    assert found[3][1]["history"]  # the second turn carries the first as its history


def test_a_csv_with_a_field_map_reads_the_mapped_column_as_a_list(tmp_path):
    path = tmp_path / "cases.csv"
    path.write_text('prompt,completion,passages\n'
                    '"Who founded Craigslist?","Craig Newmark.","[""Craigslist was founded by Craig Newmark.""]"\n')
    [(item_id, item)] = read_items(path, field_map="question=prompt,answer=completion,context=passages")
    assert item_id == "line-2"
    assert item["passages"] == ["Craigslist was founded by Craig Newmark."]
    assert item.field_map == {"question": "prompt", "answer": "completion", "context": "passages"}


@pytest.mark.parametrize(("content", "says"), [
    ('{"question": "q", "answer": "a", "context": ["c"]}\nnot json\n', r"cases\.jsonl: .*line 2"),
    ("\n", r"cases\.jsonl holds no item"),
])
def test_a_file_that_cannot_be_read_whole_is_an_error_naming_it(tmp_path, content, says):
    path = tmp_path / "cases.jsonl"
    path.write_text(content)
    with pytest.raises(ItemFileError, match=says):
        read_items(path)


def test_items_parametrises_a_test_per_item_judged_with_the_files_field_map(pytester):
    (pytester.path / "data").mkdir()
    (pytester.path / "data" / "cases.csv").write_text(
        "id,prompt,completion,passages\n"
        f'founder,Who founded Craigslist?,Craigslist was founded in 1995 by Craig Newmark.,"{json.dumps(CONTEXT).replace(chr(34), chr(34) * 2)}"\n'
        f'year,When did the documentary come out?,The documentary came out in 2007.,"{json.dumps(CONTEXT).replace(chr(34), chr(34) * 2)}"\n')
    pytester.makepyfile(test_file_cases=textwrap.dedent('''
        from judgegraph.testing import assert_judged, items

        @items("data/cases.csv", field_map="question=prompt,answer=completion,context=passages")
        def test_case(item):
            assert_judged(item, faithfulness=0.8)
    '''))
    with FaultServer(reply=demo_judge.reply) as judge:
        result = pytester.runpytest("-p", "no:judgegraph", "-p", "judgegraph.testing.plugin", "-p", "no:cacheprovider",
                                    "--judgegraph-base-url", judge.base_url, "--judgegraph-no-cache", "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*test_case?founder? PASSED*", "*test_case?year? FAILED*",
                                 "*faithfulness: 0.00 < threshold 0.8: FAILED*"])
