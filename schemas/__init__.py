"""Pydantic models: what items look like, what each LLM step must return, and the final outputs.

Every boundary of judgegraph is a schema: the item that comes in, each judge reply, and the
result that goes out. Nothing crosses a boundary without validating. The files those boundaries
come in are read here too, below every command that reads them: JSON Lines (`jsonl`), the
input of `evaluate` (`input_file`), the paths a command writes (`output_paths`) and the labels
file (`labels_file`); and the version they record (`version`).
"""
