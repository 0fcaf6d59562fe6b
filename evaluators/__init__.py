"""judgegraph's rubrics as LangSmith / openevals-style evaluators.

    evaluator = create_rag_evaluator(model="openai:gpt-4o-mini")   # or a chat model, or None
    rows = evaluator(inputs={"question": q}, outputs={"answer": a, "context": docs},
                     reference_outputs={"answer": ref})
    # [{"key": "faithfulness", "score": 0.5, "comment": "...", "metadata": {"status": "judged", ...}}, ...]

Each factory is keyword-only and returns `(*, inputs, outputs, reference_outputs=None, **kw)`,
the shape `langsmith.evaluate` and the openevals evaluators use; `create_async_*` return the
coroutine twin for `langsmith.aevaluate`. Parameters (all optional):

- `model`: a LangChain chat model, a `JudgeContext`, a string (`"provider:name"`, `"local"`, or
  a model name served at `base_url`), or None for the default judge (`JUDGEGRAPH_MODEL`,
  `OPENAI_BASE_URL`, else the embedded local model).
- `metrics` (rag only): judge only these, e.g. `["faithfulness"]`; one row per metric.
- `feedback_key_prefix`: prepended to every key (`"jg_"` -> `"jg_faithfulness"`).
- `prepare_item(inputs, outputs, reference_outputs, extra) -> dict`: build the rubric's item
  yourself when your dataset uses other field names (`extra` holds the call's other kwargs).
- `item_defaults`: fixed item fields, e.g. `{"evaluation_goal": "fact-checking"}`.
- `field_map`: read a field from another key of the dict that holds it, e.g.
  `{"answer": "generation", "context": "passages"}` (or `"answer=generation,context=passages"`);
  RAGAS, DeepEval and LangChain names (`retrieved_contexts`, `actual_output`,
  `source_documents`...) are read without it (docs/input-fields.md).
- `max_concurrency`; any other keyword (`max_repairs=`, `claim_check="batch"`) is a
  `JudgeContext` setting.

Every rubric judgegraph declares (`judgegraph.graph.rubrics`) also has an evaluator by name:
`create_evaluator("coverage", model=...)`, `create_async_evaluator(...)`. The named factories
below are that call with the rubric fixed, one line each (`public_factories.factory_pair`).
"""

from __future__ import annotations

from .public_factories import factory_pair

create_evaluator, create_async_evaluator = factory_pair(
    None, "The evaluator of any declared rubric, by name: one row per metric it declares.", selects_metrics=True)
create_rag_evaluator, create_async_rag_evaluator = factory_pair(
    "rag", "Faithfulness, context relevance, answer relevance and semantic similarity, one row each.",
    selects_metrics=True)
create_liverag_evaluator, create_async_liverag_evaluator = factory_pair(
    "liverag", "LiveRAG's relevance (-1..2) and faithfulness (-1..1), one row each.")
create_coverage_evaluator, create_async_coverage_evaluator = factory_pair(
    "coverage", "How much of the reference the output covers, 0..5, with the seed's five rationale bullets.")
create_expected_output_evaluator, create_async_expected_output_evaluator = factory_pair(
    "expected_output", "The output against the expected output on your scale: numerical, categorical or "
    "range_quality.", item_fields={"evaluation_type": "evaluationType", "evaluation_config": "evaluationConfig"})

__all__ = [
    "create_evaluator", "create_async_evaluator",
    "create_rag_evaluator", "create_async_rag_evaluator",
    "create_liverag_evaluator", "create_async_liverag_evaluator",
    "create_coverage_evaluator", "create_async_coverage_evaluator",
    "create_expected_output_evaluator", "create_async_expected_output_evaluator",
]
