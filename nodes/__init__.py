"""The rubrics, and the claim and citation pipelines they share. Where is X done?

Nothing here imports the rubric registry (`graph/rubrics.py`) or the graph's builder: the
rubrics build on the run's state and steps (`run/`) and on the declaration types
(`declarations/`), and the nodes every item runs, whatever its rubric (validation, the
standalone question, the item's embeddings, finalize), sit above them in `graph/every_item/`.

- `claims/`: the claim pipeline `rag` and `liverag` share.
  - where are the answer's claims found, and fanned out? `extract.py`.
  - which context lines does a check show? `evidence.py`.
  - where is a claim checked? `check_claim.py`.
  - where is a claim's verdict decided? `verdict.py`, with code's checks in `code_checks.py`
    (number conflicts, grounding) and the second reading of one-claim answers in
    `second_reading.py`; what it measured, for metric records: `metric_signals.py`.
- `citations/`: a cited answer's sentences, markers and passages, judged from the claim checks.
- One folder per rubric. Each has one module per metric ending with its declaration, listed
  in `metrics.py` (`DECLARED`), and `rubric.py` (its declaration), `result.py` (each metric
  decided once as a typed `Score`, and its output rendered from the scores),
  `metric_records.py` (a run's scores, or an output read back from a file, as metric records),
  built by loops over that tuple, `evaluator_item.py` (its item from a LangSmith call), and its
  own nodes (a new rubric needs only `rubric.py` and its metrics: docs/adding-a-rubric.md):
  - `rag/` (seed 000): one module per metric (`faithfulness.py`, `context_relevance.py`,
    `answer_relevance.py`, `semantic_similarity.py`, `citations.py`), listed in `metrics.py`;
  - `liverag/` (seed 002): `relevance.py`, and `quote_faithfulness.py` over the shared claims;
  - `coverage/` (seed 003): `elements.py` (enumerate and fan out), `check.py`, `terms.py` (in
    code), `organization.py`, `formula.py` (the 0..5 score), `coverage_metric.py` (the score
    and bullets from the steps' outcomes);
  - `expected_output/` (seed 001): `judge_expected_output.py`, `match.py` (exact match),
    `expected_output_metric.py` (the evaluation assembled from the reply); its
    config checks run while the input is validated (`schemas/expected_output_config.py`).

Adding a rubric: docs/adding-a-rubric.md.
"""
