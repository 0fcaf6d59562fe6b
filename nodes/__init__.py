"""Graph nodes and the rubrics they make up. Where is X done?

- `rubrics.py`: the rubrics judgegraph knows, in detection order (one line per rubric).
- `metrics_view.py`: a rubric's output read as typed metric records, through its declaration.
- `common/`: the nodes every item runs, whatever its rubric.
  - which rubric, and is the item valid (no model call)? `validate_input.py`.
  - where are the outputs assembled? `finalize.py`, the last node.
- The declaration types (`RubricSpec`, `MetricSpec`, `NodeSpec`, `MetricDeclaration`) and the
  helpers every rubric's scoring shares are in `declarations/`; the run's state, context,
  judgment step and trace events in `run/`; context lines, claims cut in code and quotes in
  `text/`.
- `claims/`: the claim pipeline `rag` and `liverag` share.
  - where are the answer's claims found, and fanned out? `extract.py`.
  - which context lines does a check show? `evidence.py`.
  - where is a claim checked? `check.py`.
  - where is a claim's verdict decided? `verdict.py`, with code's checks in `signals.py`
    (number conflicts, grounding) and the second reading of one-claim answers in
    `second_reading.py`.
  - where is rag's faithfulness scored? `faithfulness.py`; what it measured, for metric
    records: `measured.py`.
- One folder per rubric. Each has `rubric.py` (its declaration), `result.py` (its plan and its
  typed output), `metric_records.py` (its output read as metric records), `evaluator_item.py`
  (its item from a LangSmith call), and its own nodes:
  - `rag/` (seed 000): `context_relevance.py`, `answer_relevance.py`, `semantic_similarity.py`;
  - `liverag/` (seed 002): `relevance.py`, and `faithfulness.py` over the shared claims;
  - `coverage/` (seed 003): `elements.py` (enumerate and fan out), `check.py`, `terms.py` (in
    code), `organization.py`, `formula.py` (the 0..5 score);
  - `expected_output/` (seed 001): `judge.py`, `match.py` (exact match); its config checks run
    while the input is validated (`schemas/expected_output_config.py`).

Adding a rubric: docs/adding-a-rubric.md.
"""
