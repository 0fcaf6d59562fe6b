"""`benchmarks.same_results` reads a trace node by node: LangGraph's interleaving of the nodes is
scheduling (the claims node moved the claim checks' events next to the extraction's), each
node's own events keep their order."""

from __future__ import annotations

from benchmarks.same_results import first_difference, in_node_order


def _outcome(*nodes: tuple[str, str | None]) -> dict:
    return {"exit": 0, "trace": {"nodes": [{"node": node, "label": label} for node, label in nodes]}}


def test_the_same_events_interleaved_otherwise_are_the_same():
    send_tasks = _outcome(("extract_claims", None), ("judge_context_relevance", None),
                          ("check_claim", "claim 1"), ("check_claim", "claim 2"), ("finalize", None))
    claims_node = _outcome(("extract_claims", None), ("check_claim", "claim 1"), ("check_claim", "claim 2"),
                           ("judge_context_relevance", None), ("finalize", None))
    assert first_difference(send_tasks, claims_node) is not None
    assert first_difference(in_node_order(send_tasks), in_node_order(claims_node)) is None


def test_a_node_whose_events_changed_order_is_a_difference():
    one = _outcome(("check_claim", "claim 1"), ("check_claim", "claim 2"))
    other = _outcome(("check_claim", "claim 2"), ("check_claim", "claim 1"))
    assert first_difference(in_node_order(one), in_node_order(other)) is not None


def test_an_outcome_without_a_trace_is_left_as_it_is():
    batch = {"exit": 0, "records": [{"id": "a"}]}
    assert in_node_order(batch) is batch
