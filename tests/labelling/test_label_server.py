"""The labelling page's server, over real HTTP on 127.0.0.1: the page, its headers, labels,
skips and undos written through forms, and the requests it refuses (no token, another host or
origin, a body too large, a label for an item already labelled)."""

from __future__ import annotations

import http.client
from html import unescape
import json
import re
import threading
from pathlib import Path
from urllib.parse import urlencode

import pytest

from judgegraph.labelling.server import MAX_BODY_BYTES, LabellingServer
from judgegraph.labelling.session import start_session
from tests.support.labelling_results import HOSTILE_ANSWER, results_record, scored_results, write_results


@pytest.fixture
def served(tmp_path):
    results = scored_results(tmp_path / "results.jsonl", [0.0, 0.5, 1.0, 0.25, 0.75], hostile_at=2)
    session = start_session(results, tmp_path / "labels.jsonl", metrics=["faithfulness", "context_relevance"],
                            stratified=None, seed=11)
    server = LabellingServer(session)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def request(server, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    all_headers = {"Host": f"127.0.0.1:{server.port}"} | (headers or {})
    if body is not None:
        all_headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
    connection.request(method, path, body=body, headers=all_headers)
    response = connection.getresponse()
    data = response.read().decode("utf-8")
    connection.close()
    return response, data


def page(server) -> tuple[str, dict[str, str]]:
    response, html = request(server, "GET", "/")
    assert response.status == 200
    hidden = {name: unescape(value)  # what a browser posts
              for name, value in re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', html)}
    return html, hidden


def post(server, action: str, fields: dict, headers: dict | None = None):
    return request(server, "POST", action, urlencode(fields).encode("utf-8"), headers)


def labels(path: Path) -> list[dict]:
    lines = path.read_text(encoding="utf-8").split("\n")  # a line ends at "\n" only, as the readers' do
    return [json.loads(line) for line in lines if line][1:]


def test_the_page_shows_one_item_with_strict_headers(served):
    response, html = request(served, "GET", "/")
    assert response.status == 200
    policy = response.getheader("Content-Security-Policy")
    assert policy.startswith("default-src 'none'") and "script-src 'sha256-" in policy and "unsafe" not in policy
    assert "form-action 'self'" in policy and "frame-ancestors 'none'" in policy
    assert response.getheader("X-Content-Type-Options") == "nosniff"
    assert response.getheader("Cache-Control") == "no-store"
    # a page with "no-referrer" makes the browser send `Origin: null` with its own forms
    assert response.getheader("Referrer-Policy") == "same-origin" and 'content="same-origin"' in html
    first = served.session.design.order[0]
    assert f'id="item-id">{first.id}<' in html
    assert 'name="m:faithfulness" value="1"' in html and 'name="m:context_relevance" value="0"' in html
    # blind by default (issue 55): nothing of the judge's on the item's page, its context unmarked
    assert "<mark>" not in html and 'id="judge-scores"' not in html and 'class="claims"' not in html
    assert html.count("<script>") == 1


def test_labels_skips_and_undos_go_to_the_file(served):
    path = served.session.log.path
    order = [r.id for r in served.session.design.order]
    _, hidden = page(served)
    response, _ = post(served, "/label", hidden | {"m:faithfulness": "1", "m:context_relevance": "0", "note": "ok"})
    assert response.status == 303 and response.getheader("Location") == "/"
    assert labels(path)[0]["human"] == {"faithfulness": 1, "context_relevance": 0} and labels(path)[0]["note"] == "ok"
    _, hidden = page(served)
    assert hidden["id"] == order[1] and hidden["position"] == "1"
    assert post(served, "/skip", hidden)[0].status == 303
    assert labels(path)[-1] == {"id": order[1], "skipped": True, "position": 1}
    _, hidden = page(served)
    assert post(served, "/undo", {"token": hidden["token"]})[0].status == 303
    html, hidden = page(served)
    assert hidden["id"] == order[1] and f"undone: item &#39;{order[1]}&#39; is shown again" in html


def test_a_repeated_post_labels_once(served):
    _, hidden = page(served)
    form = hidden | {"m:faithfulness": "0", "m:context_relevance": "1"}
    post(served, "/label", form)
    post(served, "/label", form)  # a second tab, or a resubmitted form
    assert len(labels(served.session.log.path)) == 1
    html, _ = page(served)
    assert "is not the one to label now" in html


def test_a_value_off_the_scale_or_missing_is_not_saved(served):
    _, hidden = page(served)
    post(served, "/label", hidden | {"m:faithfulness": "7", "m:context_relevance": "1"})
    post(served, "/label", hidden | {"m:faithfulness": "1"})
    assert labels(served.session.log.path) == []
    html, _ = page(served)
    assert "not saved: context_relevance: give one of 1, 0" in html


@pytest.mark.parametrize("field, text", [("m:faithfulness", "--1"), ("m:faithfulness", "\u00b9"),
                                         ("m:faithfulness", "\u0661"), ("position", "--0"), ("position", "\u00b2")])
def test_a_value_that_is_not_an_ascii_integer_is_not_saved_and_the_server_answers(served, field, text):
    """`"--1"` and `"¹"` pass a digits test that `int` then refuses: a traceback on the terminal
    and a connection dropped, where the page should say what was not saved."""
    _, hidden = page(served)
    response, _ = post(served, "/label", hidden | {"m:faithfulness": "1", "m:context_relevance": "1", field: text})
    assert response.status == 303
    assert labels(served.session.log.path) == []
    html, _ = page(served)
    assert "not saved:" in html


@pytest.mark.parametrize("fields, headers, status", [
    ({"token": "forged"}, {}, 403),
    ({}, {"Host": "evil.example:80"}, 403),
    ({}, {"Origin": "http://evil.example"}, 403),
    ({}, {"Origin": "null"}, 403),  # a sandboxed frame's; the page's own forms send its origin
    ({}, {"Content-Type": "text/plain"}, 415),
])
def test_forged_requests_are_refused(served, fields, headers, status):
    _, hidden = page(served)
    response, _ = post(served, "/skip", hidden | fields, headers)
    assert response.status == status
    assert labels(served.session.log.path) == []


def test_another_host_cannot_read_the_page(served):
    response, body = request(served, "GET", "/", headers={"Host": "rebound.example"})
    assert response.status == 403 and "token" not in body


def test_a_body_over_the_limit_is_refused_unread(served):
    _, hidden = page(served)
    big = urlencode(hidden | {"note": "x" * (MAX_BODY_BYTES + 1)}).encode()
    response, _ = request(served, "POST", "/skip", big)
    assert response.status == 413
    assert labels(served.session.log.path) == []


def test_markup_in_an_answer_is_escaped(served):
    while served.session.current().record.id != "item-2":
        _, hidden = page(served)
        post(served, "/skip", hidden)
    html, _ = page(served)
    assert "&lt;script&gt;document.title=&#39;pwned&#39;" in html
    assert HOSTILE_ANSWER not in html and html.count("<script>") == 1 and "<img" not in html


def test_when_every_item_is_done_the_page_says_so(served):
    for _ in range(served.session.n_items):
        _, hidden = page(served)
        post(served, "/label", hidden | {"m:faithfulness": "1", "m:context_relevance": "1"})
    html, _ = page(served)
    assert "Every item has a label or a skip" in html and len(labels(served.session.log.path)) == 5


@pytest.mark.parametrize("item_id", ["q\u202e7", "q\r7", "q\x1b]0;t\x077", "q%2F7 +&=", "q\x7f7", "q\u2028\u00e9\u20ac7"])
def test_an_item_whose_id_holds_control_or_bidi_characters_can_be_labelled_and_skipped(tmp_path, item_id):
    """The page shows such an id written out (`q\\u202e7`); the form must still send the id
    itself, or the item is never the current one and no label nor skip of it is saved."""
    records = [results_record(0, 0.5), results_record(1, 0.25)]
    for record in records:
        record["id"] = item_id + record["id"]
    results = write_results(tmp_path / "results.jsonl", records)
    session = start_session(results, tmp_path / "labels.jsonl", metrics=["faithfulness"], stratified=None, seed=3)
    server = LabellingServer(session)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        html, hidden = page(server)
        assert "\u202e" not in html and "\x1b" not in html and "\r" not in html
        first, second = (entry.id for entry in session.design.order)
        post(server, "/label", hidden | {"m:faithfulness": "1"})
        _, hidden = page(server)
        post(server, "/skip", hidden)
    finally:
        server.shutdown()
        server.server_close()
    written = labels(tmp_path / "labels.jsonl")
    assert [(row["id"], row.get("human"), row.get("skipped")) for row in written] == [(first, 1, None), (second, None, True)]


def body(html: str) -> str:
    """The page without its stylesheet and script (whose class names say "supported")."""
    return html[html.index("<body"):html.index("<script>")]


def test_the_judge_is_shown_only_once_the_label_is_saved(served):
    """Blind labels (issue 55): the item's page holds none of the judge's verdicts, evidence,
    scores, explanations or stratum; the next page shows them for the item just labelled."""
    html, hidden = page(served)
    for judge_text in ("<td>supported</td>", "explanation", "evidence the judge used", "<mark>", "judge-scores", "stratum"):
        assert judge_text not in body(html)
    post(served, "/label", hidden | {"m:faithfulness": "0", "m:context_relevance": "1"})
    html, _ = page(served)
    after = html[html.index('<section id="judge-after" data-position="0">'):html.index('<main id="item"')]
    assert "faithfulness explanation" in after and "<td>supported</td>" in after and "evidence the judge used" in after
    assert "judge_shown" not in labels(served.session.log.path)[0]  # a blind label
    # an undo brings the item back: its judge was seen, so its new label records it
    post(served, "/undo", {"token": hidden["token"]})
    html, hidden = page(served)
    assert 'id="judge-after"' not in html and "<td>supported</td>" not in body(html)
    post(served, "/label", hidden | {"m:faithfulness": "1", "m:context_relevance": "1"})
    assert labels(served.session.log.path)[-1]["judge_shown"] is True


def test_show_judge_puts_the_judge_on_the_page_and_on_each_label(tmp_path):
    results = scored_results(tmp_path / "results.jsonl", [0.0, 0.5])
    session = start_session(results, tmp_path / "labels.jsonl", metrics=["faithfulness"], stratified=None, seed=3,
                            show_judge=True)
    server = LabellingServer(session)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        html, hidden = page(server)
        assert "<mark>" in html and "<td>supported</td>" in html and '<section id="judge-scores" hidden>' in html
        post(server, "/label", hidden | {"m:faithfulness": "1"})
    finally:
        server.shutdown()
        server.server_close()
        session.close()
    assert labels(tmp_path / "labels.jsonl")[0]["judge_shown"] is True


def test_an_active_page_is_blind_and_shows_the_running_precision(tmp_path):
    """The `--target-width` line holds no verdict on the item at hand, so the blind page shows it;
    each label saved through the page records its draw's q_k and no judge_shown."""
    results = scored_results(tmp_path / "results.jsonl", [round(n / 29, 2) for n in range(30)])
    session = start_session(results, tmp_path / "labels.jsonl", metrics=["faithfulness"], stratified=None, seed=8,
                            kind="active")
    session.target_width = 0.1
    server = LabellingServer(session)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        for n in range(10):
            html, hidden = page(server)
            assert 'id="precision"' not in html
            item_page = body(html)[body(html).index('<main id="item"'):]
            for judge_text in ("<td>supported</td>", "explanation", "evidence the judge used", "<mark>",
                               "judge-scores"):
                assert judge_text not in item_page
            post(server, "/label", hidden | {"m:faithfulness": str(n % 2)})
        html, _ = page(server)
        assert 'id="precision">faithfulness: +-' in html and " now; " in html and "for +-0.1</span>" in html
        assert "<td>supported</td>" not in body(html)[body(html).index('<main id="item"'):]
    finally:
        server.shutdown()
        server.server_close()
        session.close()
    written = labels(tmp_path / "labels.jsonl")
    assert len(written) == 10
    assert all(0 < row["inclusion_probability"] <= 1 and "judge_shown" not in row for row in written)
