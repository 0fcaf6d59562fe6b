"""Pydantic models: what items look like, what each LLM step must return, and the final outputs.

Every boundary of judgegraph is a schema: the item that comes in, each judge reply, and the
result that goes out. Nothing crosses a boundary without validating.
"""
