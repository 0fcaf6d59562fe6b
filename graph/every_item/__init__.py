"""The nodes that run for every item, whatever its rubric, beside the builder that wires them:
input validation (`validate_input.py`, with the rubric chosen from the item's keys in
`input_fields.py`), a conversation's standalone question (`standalone_question.py`), the
item's embeddings computed before its first model call (`item_embeddings.py`), and the last
node, which assembles every requested rubric's output (`finalize.py`). They read the rubric
registry (`graph/rubrics.py`), so they sit above the rubrics."""
