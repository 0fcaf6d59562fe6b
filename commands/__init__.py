"""The command line (`python cli.py ...` or the `judgegraph` console script): `cli` parses and
dispatches; `judge_flags` turns the model flags into a judge for the single-item and batch paths."""
