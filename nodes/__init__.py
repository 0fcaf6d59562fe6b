"""Graph nodes: one module per step. Where is X done?

- `validate_input`: rubric choice and input validation (no model call).
- `extract_claims`: the answer's atomic claims, shared by every claim-based rubric.
- `check_claim`: one claim against the context (fanned out), or all claims at once (batch mode).
- `evidence`: code that checks a verdict's quote really occurs in the context.
- `faithfulness`: the faithfulness rules, in Python.
- `judge_context_relevance`, `judge_answer_relevance`, `judge_semantic_similarity`: single-call judgments.
- `rag_result`: the `rag` rubric's scoring rules and its 11-key output.
- `finalize`: assembles every requested rubric's output at the end of the run.
- `rubrics`: the registry that says which rubric uses which nodes.
"""
