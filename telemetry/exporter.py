"""Where the spans go: an OpenTelemetry SDK tracer provider of judgegraph's own, exporting
over OTLP/HTTP as the standard `OTEL_EXPORTER_OTLP_*` variables say.

Why a provider of its own rather than the global one: the CLI owns its process, and a Python
app that configured its own provider keeps it untouched. The exporter is the SDK's
`OTLPSpanExporter`, so `OTEL_EXPORTER_OTLP_ENDPOINT` (the spans go to `<endpoint>/v1/traces`),
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `..._HEADERS`, `..._TIMEOUT` and `OTEL_SERVICE_NAME` /
`OTEL_RESOURCE_ATTRIBUTES` work as documented by OpenTelemetry. Spans are exported in the
background (`BatchSpanProcessor`); `close` flushes what is left. An export that fails is the
SDK's warning on stderr, never a changed result: nothing here raises into the judging.
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


class ItemTracer:
    """Records each judged item as a trace; `close()` once at the end flushes the spans."""

    def __init__(self, exporter: SpanExporter | None = None) -> None:
        """`exporter`: where spans go (default: OTLP/HTTP configured from the environment)."""
        if exporter is None:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            exporter = OTLPSpanExporter()
        self.provider = TracerProvider(resource=Resource.create(_service_attributes()))
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


def _service_attributes() -> dict[str, str]:
    named = os.environ.get("OTEL_SERVICE_NAME") or "service.name=" in os.environ.get("OTEL_RESOURCE_ATTRIBUTES", "")
    return {} if named else {"service.name": SERVICE_NAME}
