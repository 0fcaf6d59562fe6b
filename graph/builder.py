"""The judge graph: which nodes exist and how they connect.

The nodes come from the rubric declarations (`graph.rubrics.RUBRICS`): each rubric lists the
nodes it needs, and shared ones (the claim pipeline) are added once. `validate_input` sends a
valid item to `embed_item`, which embeds what the planned nodes will need in one batch
(`graph.every_item.item_embeddings`) and sends them off in parallel; an item with a conversation's
`history` goes first to `write_standalone_question` (`graph.every_item.standalone_question`), so
that what `embed_item` embeds and the steps judge is the standalone question. `finalize` is
deferred and waits for all. The
graph, drawn from the compiled graph (`tests/graph/test_graph_drawing.py` checks it):

    __start__ -> validate_input
    validate_input ~> embed_item, finalize, write_standalone_question
    enumerate_reference_elements ~> check_reference_element, check_reference_elements_batch,
        finalize, judge_organization
    check_reference_element, check_reference_elements_batch, judge_organization,
        judge_expected_output, extract_claims, judge_liverag_relevance, judge_context_relevance,
        judge_answer_relevance, judge_semantic_similarity -> finalize
    embed_item ~> check_reference_element, check_reference_elements_batch,
        enumerate_reference_elements, extract_claims, finalize, judge_answer_relevance,
        judge_context_relevance, judge_expected_output, judge_liverag_relevance,
        judge_organization, judge_semantic_similarity
    write_standalone_question -> embed_item
    finalize -> __end__

`->` is a plain edge, `~>` a routed one: `embed_item` may send any rubric's nodes (it
sends only the planned ones, without the question's nodes when a standalone question could
not be written), and `enumerate_reference_elements` fans out one task per element with
`Send`. `extract_claims` is the claims node: it lists the claims and checks them itself, side
by side (`nodes.claims.check_claim.extract_and_check_claims`), so no claim check waits for a
superstep. docs/architecture.md charts the same graph.

Every node goes through `run.step_nodes.as_node`: LLM nodes are steps (`llm.steps`) that
await the model under `ainvoke` and block on it under `invoke`, from one implementation.
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from ..run.context import JudgeContext
from ..run.state import JudgeInput, JudgeOutput, JudgeState
from ..run.step_nodes import as_node, as_route, input_schema_of
from . import rubrics
from .every_item.finalize import finalize
from .every_item.item_embeddings import embed_item
from .every_item.standalone_question import NODE as STANDALONE_NODE
from .every_item.standalone_question import write_standalone_question
from .every_item.validate_input import route_after_validation, validate_input


def build_graph() -> StateGraph:
    """The uncompiled graph, for embedding: compile it with your own checkpointer or cache."""
    builder = StateGraph(
        JudgeState, context_schema=JudgeContext, input_schema=JudgeInput, output_schema=JudgeOutput
    )
    builder.add_node("validate_input", as_node(validate_input, "validate_input"))
    builder.add_node("finalize", as_node(finalize, "finalize"), defer=True)
    entry_points = []
    for node in rubrics.all_nodes():
        builder.add_node(node.name, as_node(node.action, node.name), destinations=node.destinations,
                         input_schema=input_schema_of(node.action))
        if node.destinations is None:
            builder.add_edge(node.name, "finalize")
        entry_points.append(node.name)
    builder.add_node("embed_item", as_node(embed_item, "embed_item"), destinations=(*entry_points, "finalize"))
    builder.add_node(STANDALONE_NODE, as_node(write_standalone_question, STANDALONE_NODE),
                     input_schema=input_schema_of(write_standalone_question))
    builder.add_edge(START, "validate_input")
    builder.add_conditional_edges("validate_input", as_route(route_after_validation),
                                  [STANDALONE_NODE, "embed_item", "finalize"])
    builder.add_edge(STANDALONE_NODE, "embed_item")
    builder.add_edge("finalize", END)
    return builder
