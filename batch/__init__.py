"""Batch evaluation of JSONL files: bounded concurrency, resume, and failure records."""
