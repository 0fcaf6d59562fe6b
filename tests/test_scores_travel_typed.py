"""No shipped module parses a failure text back or reads a signal by string key (issue 56):
a judged run's status, cause and signals travel as typed `Score`s from the step that decides
them (`graph.metrics_view.run_metrics`).

Reading an output back from a results file is the one exception, because a file holds only the
rendered output and its `--details` trace: the functions a declaration registers for that
(`read_metrics=`, `read_signals=`), and `judgegraph calibrate`'s readers of recorded runs. The
forbidden patterns, by `ast`: the name `failed_metrics` (the old inverse of the `error` text),
a call of `step_detail(` / `step_events(` (a signal looked up in a trace by node name), and a
`.split(` of anything named `error`."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.test_import_cycles import ROOT, module_files

READER_KEYWORDS = ("read_metrics", "read_signals")
"""A declaration's readers of a results file: registered under these keywords."""

RECORDED_RUN_READERS = {
    "fitting/recompute_relevance.py": {"recorded_context_relevance", "recorded_answer_relevance"},
}
"""`judgegraph calibrate` re-decides recorded runs from a results file's details."""

TRACE_LOOKUPS = {"step_detail", "step_events"}
ERROR_TEXT = re.compile(r"(^|\.)\w*error\w*$|\[['\"]error['\"]\]$|get\(['\"]error['\"].*\)$")
"""What an error text is spelt as: `error`, `outcome.error`, `result["error"]`, `result.get("error")`."""
DEFINED_HERE = "declarations/run_details.py"


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call) and node.args:  # functools.partial(reader, ...)
        return _name(node.args[0])
    return None


def registered_readers(trees: dict[str, ast.Module]) -> set[str]:
    readers = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                readers |= {_name(k.value) for k in node.keywords if k.arg in READER_KEYWORDS} - {None}
    return readers


def forbidden_uses(relative: str, tree: ast.Module, allowed: set[str]) -> list[str]:
    """`path:line: what` for each forbidden pattern outside an allowed function."""
    found = []

    def visit(node: ast.AST, function: str | None) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            function = node.name
        if isinstance(node, ast.Name | ast.Attribute | ast.alias | ast.FunctionDef):
            name = node.name if isinstance(node, ast.alias | ast.FunctionDef) else _name(node)
            if name == "failed_metrics":
                found.append(f"{relative}:{node.lineno if hasattr(node, 'lineno') else '?'}: failed_metrics")
        if isinstance(node, ast.Call) and function not in allowed and relative != DEFINED_HERE:
            callee = _name(node.func) if not isinstance(node.func, ast.Call) else None
            if callee in TRACE_LOOKUPS:
                found.append(f"{relative}:{node.lineno}: {callee}(")
            if callee == "split" and isinstance(node.func, ast.Attribute) and ERROR_TEXT.search(ast.unparse(node.func.value)):
                found.append(f"{relative}:{node.lineno}: {ast.unparse(node.func)}(")
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(tree, None)
    return found


def test_no_module_parses_a_failure_or_reads_a_signal_by_key():
    trees = {str(path.relative_to(ROOT)): ast.parse(path.read_text(encoding="utf-8"))
             for path in module_files().values()}
    readers = registered_readers(trees)
    assert {"read_rag_metrics", "metric_record_signals", "claim_signals"} <= readers
    found = []
    for relative, tree in trees.items():
        found += forbidden_uses(relative, tree, readers | RECORDED_RUN_READERS.get(relative, set()))
    assert found == []


def test_the_check_sees_each_forbidden_pattern():
    source = '''
def score(details, result):
    failed = failed_metrics(result["error"])
    detail = step_detail(details, "judge")
    return result.get("error").split(";"), detail, failed

def read_it(details):
    return step_detail(details, "judge")
'''
    found = forbidden_uses("nodes/x.py", ast.parse(source), {"read_it"})
    assert [use.split(": ", 1)[1] for use in found] == [
        "failed_metrics", 'step_detail(', 'result.get(\'error\').split(']


def test_the_readers_are_found_where_the_declarations_register_them():
    tree = ast.parse("D = MetricDeclaration(read_signals=reader, read_metrics=partial(rag_reader, metrics=M))")
    assert registered_readers({"x.py": tree}) == {"reader", "rag_reader"}
    assert Path(ROOT, DEFINED_HERE).is_file()


RUN_CONSUMERS = ("evaluators/", "testing/", "telemetry/", "commands/item_outcome.py")
"""What reads a judged run in the same process: its metrics come from its scores."""
FILE_READINGS = {"rubric_metrics", "record_metrics", "read_metrics", "read_signals"}


def test_a_judged_runs_consumers_read_its_scores_not_its_rendered_output():
    found = []
    for path in module_files().values():
        relative = str(path.relative_to(ROOT))
        if not relative.startswith(RUN_CONSUMERS):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and _name(node.func) in FILE_READINGS:
                found.append(f"{relative}:{node.lineno}: {_name(node.func)}(")
    assert found == []
