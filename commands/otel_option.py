"""`--otel`: the flag, the check that the extra is installed, and the one item's trace.

Why its own module: both modes of `evaluate` take the flag, the check must run before any work
(a missing extra is one line and exit 2, naming the install command), and `opentelemetry` is
imported only once the flag (or `JUDGEGRAPH_OTEL=1`) asks for it.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:
    from ..graph.api import EvaluationRun
    from ..telemetry.exporter import ItemTracer
    from ..telemetry.step_clock import StepClock


OTEL_ENV = "JUDGEGRAPH_OTEL"
"""Set to 1 (or true, yes, on) to export spans without `--otel`."""

INSTALL_HINT = "pip install 'judgegraph[otel]'"

NEEDED_MODULES = ("opentelemetry.sdk.trace", "opentelemetry.exporter.otlp.proto.http.trace_exporter")
"""The SDK and the OTLP/HTTP exporter: what the `otel` extra installs beside the API."""


class OtelUnavailable(Exception):
    """`--otel` without the `otel` extra installed; one line naming the install command."""


def otel_requested(flag: bool | None, environ: dict[str, str] | None = None) -> bool:
    """True when the flag is given or `JUDGEGRAPH_OTEL` says yes."""
    value = (os.environ if environ is None else environ).get(OTEL_ENV, "")
    return bool(flag) or value.strip().lower() in ("1", "true", "yes", "on")


def check_otel_installed() -> None:
    """Raise `OtelUnavailable` when the SDK or the OTLP/HTTP exporter cannot be imported."""
    for name in NEEDED_MODULES:
        try:
            importlib.import_module(name)
        except ImportError as error:
            raise OtelUnavailable(f"--otel needs OpenTelemetry: {INSTALL_HINT} ({error})") from error


def load_langsmith_without_opentelemetry() -> None:
    """Import `langsmith.client` with OpenTelemetry out of sight, so a run without `--otel` loads
    no OpenTelemetry module even where the SDK is installed.

    Why: langchain-core loads `langsmith.client` on every run, and it imports
    `opentelemetry.sdk.trace` at module level (about 17 ms, 40 modules) only to name a type hint;
    without the package it defines a stand-in class, a configuration langsmith supports. Its
    OpenTelemetry tracing imports what it needs when it is switched on, after this, so LangSmith's
    own OTel mode is unchanged. Does nothing once either is loaded."""
    if "langsmith.client" in sys.modules or "opentelemetry" in sys.modules:
        return
    sys.modules["opentelemetry"] = None  # type: ignore[assignment]  # import opentelemetry... -> ImportError
    try:
        importlib.import_module("langsmith.client")
    except ImportError:
        pass  # no langsmith: nothing imports it either
    finally:
        if sys.modules.get("opentelemetry", 0) is None:
            del sys.modules["opentelemetry"]


def add_otel_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--otel", action="store_true", default=None,
                        help="export each judged item as an OpenTelemetry trace (a span per step) over "
                             f"OTLP/HTTP to $OTEL_EXPORTER_OTLP_ENDPOINT (also {OTEL_ENV}=1; needs the otel "
                             "extra; docs/tracing.md)")


def wants_otel(args: argparse.Namespace) -> bool:
    """`--otel`, or `JUDGEGRAPH_OTEL=1`; raises `OtelUnavailable` when asked
    for without the extra installed."""
    if not otel_requested(getattr(args, "otel", None)):
        return False
    check_otel_installed()
    return True


def open_item_tracer() -> ItemTracer:
    """The run's tracer, exporting as the `OTEL_EXPORTER_OTLP_*` variables say (call
    `wants_otel` first); `close()` it at the end of the run."""
    from ..telemetry.exporter import ItemTracer

    return ItemTracer()


def step_clock() -> StepClock:
    from ..telemetry.step_clock import StepClock

    return StepClock()


def trace_one_item(tracer: ItemTracer, item: Any, run: EvaluationRun, model_id: str, input_name: str,
                   clock: StepClock, started_ns: int, ended_ns: int) -> None:
    """One item judged by `evaluate item.json`: its trace, as a batch records each item's (the
    item's `id`, else the file's name), then the export flushed."""
    from ..batch.records import judged_record
    from ..telemetry.judged_item import JudgedItem

    item_id = item.get("id") if isinstance(item, dict) and isinstance(item.get("id"), str | int) else Path(input_name).name
    fields = {k: v for k, v in item.items() if k != "id"} if isinstance(item, dict) else item
    record = judged_record(item_id, 1, run.rubrics, run.result, dict(run.usage))
    try:
        tracer.record(JudgedItem(record=record, item=fields, run=run, model_id=model_id, started_ns=started_ns,
                                 ended_ns=ended_ns, clock=clock))
    finally:
        tracer.close()
