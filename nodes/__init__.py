"""Graph nodes: one module per step. Where is X done?

Shared by every rubric:
- `validate_input`: rubric choice and input validation (no model call).
- `rubrics`: the registry that says which rubric uses which nodes; `finalize` assembles outputs.
- `judgment`, `tracing`, `scoring`: the single-call step shape, trace events, half-up rounding.

The claim pipeline (`rag` and `liverag`):
- `extract_claims`: the answer's atomic claims, extracted once per item, then the Send fan-out.
- `check_claim`: **where claims are checked**, one fanned-out task per claim or all at once.
- `evidence`: code that checks a verdict's quote occurs in the context and carries its numbers.
- `refusal_cues`: does the answer explicitly say it cannot answer?
- `faithfulness`: the faithfulness rules, in Python.

`rag` (seed 000): `context_relevance`, `answer_relevance`, `semantic_similarity` (each a node
plus its scoring rule) and `rag_result` (plan and the 11-key output).
`liverag` (seed 002): `liverag_relevance`, `liverag_result`.
`coverage` (seed 003): `coverage_elements` (enumerate, fan out), `coverage_check` (facts and
conclusions), `coverage_terms` (terms, in code), `coverage_organization`, `coverage_formula`,
`coverage_result`.
`expected_output` (seed 001): `expected_output_config` (config checks), `expected_output_judge`,
`expected_output_match` (exact match), `expected_output_result`.
"""
