"""Where the spans go: an OpenTelemetry SDK tracer provider of judgegraph's own, exporting
over OTLP/HTTP as the standard `OTEL_EXPORTER_OTLP_*` variables say.

Why a provider of its own rather than the global one: the CLI owns its process, and a Python
app that configured its own provider keeps it untouched. The exporter is the SDK's
`OTLPSpanExporter`, so `OTEL_EXPORTER_OTLP_ENDPOINT` (the spans go to `<endpoint>/v1/traces`),
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `..._HEADERS`, `..._TIMEOUT` and `OTEL_SERVICE_NAME` /
`OTEL_RESOURCE_ATTRIBUTES` work as documented by OpenTelemetry. Spans are exported in the
background (`BatchSpanProcessor`); `close` flushes what is left. An export that fails never
changes a result: nothing here raises into the judging.

What a failed export prints: one line. A receiver that is not there is found before the run
exports anything (`receiver_check`): one line names it and the cause, and the run exports
nothing, instead of the exporter's retries (some 20 s) and its raw urllib3 messages. A receiver
that fails later (it went down, it answers 500) is the exporter's to retry; its messages are
held back while the tracer is open (`_OneLine`), and the first becomes one judgegraph line.
"""

from __future__ import annotations

import logging
import os

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter

from .judged_item import JudgedItem
from .span_builder import record_item

SERVICE_NAME = "judgegraph"
"""`service.name` unless `OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES` names one."""

logger = logging.getLogger("judgegraph.telemetry")


EXPORTER_LOGGERS = ("opentelemetry.exporter.otlp.common.http",
                    "opentelemetry.exporter.otlp.proto.http.trace_exporter",
                    "opentelemetry.sdk.trace.export")
"""Where the exporter's own failure messages come from (its retries, with urllib3's error text
inside them, and the batch processor): each gets `_OneLine` while a tracer is open. Not
urllib3's own logger: other code of the process (a model download) uses it too."""


class _OneLine(logging.Filter):
    """Holds back the exporter's messages; the first warning or error becomes one line."""

    def __init__(self, endpoint: str) -> None:
        super().__init__()
        self.endpoint = endpoint
        self.said = False

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING and not self.said:
            self.said = True
            logger.warning("judgegraph: OpenTelemetry export to %s failed; spans may be missing "
                           "(later export failures are not repeated)", self.endpoint)
        return False


class ItemTracer:
    """Records each judged item as a trace; `close()` once at the end flushes the spans."""

    def __init__(self, exporter: SpanExporter | None = None) -> None:
        """`exporter`: where spans go (default: OTLP/HTTP configured from the environment; a
        receiver that cannot be reached is said in one line, and nothing is exported)."""
        self._quiet: _OneLine | None = None
        self.provider = TracerProvider(resource=Resource.create(_service_attributes()))
        if exporter is None:
            exporter = _otlp_exporter_if_reachable()
            if exporter is not None:
                self._quiet = _OneLine(getattr(exporter, "_endpoint", "the OTLP receiver"))
                for name in EXPORTER_LOGGERS:
                    logging.getLogger(name).addFilter(self._quiet)
        if exporter is not None:
            self.provider.add_span_processor(BatchSpanProcessor(exporter))
        from ..schemas.version import __version__

        self.tracer = self.provider.get_tracer("judgegraph", __version__)

    def record(self, judged: JudgedItem) -> None:
        """The spans of one item; a fault here is logged, never raised into the run."""
        try:
            record_item(self.tracer, judged)
        except Exception as error:  # noqa: BLE001 - telemetry must never change a result
            logger.warning("judgegraph: OpenTelemetry spans of item %r not recorded: %s",
                           judged.record.get("id"), error)

    def close(self) -> None:
        """Export what is left and stop; an unreachable collector is a logged warning."""
        try:
            self.provider.force_flush()
            self.provider.shutdown()
        except Exception as error:  # noqa: BLE001
            logger.warning("judgegraph: OpenTelemetry export did not finish: %s", error)
        finally:
            if self._quiet is not None:
                for name in EXPORTER_LOGGERS:
                    logging.getLogger(name).removeFilter(self._quiet)
                self._quiet = None


def _otlp_exporter_if_reachable() -> SpanExporter | None:
    """The OTLP/HTTP exporter the environment configures, or None (after one line naming the
    receiver and the cause) when nothing listens at its address (`receiver_check`)."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    from .receiver_check import receiver_problem

    exporter = OTLPSpanExporter()
    endpoint = getattr(exporter, "_endpoint", None)  # the SDK's own reading of OTEL_EXPORTER_OTLP_*
    problem = receiver_problem(endpoint) if isinstance(endpoint, str) else None
    if problem is None:
        return exporter
    logger.warning("judgegraph: OpenTelemetry receiver %s cannot be reached (%s): no spans are exported "
                   "this run (docs/tracing.md)", endpoint, problem)
    exporter.shutdown()
    return None


def _service_attributes() -> dict[str, str]:
    named = os.environ.get("OTEL_SERVICE_NAME") or "service.name=" in os.environ.get("OTEL_RESOURCE_ATTRIBUTES", "")
    return {} if named else {"service.name": SERVICE_NAME}
