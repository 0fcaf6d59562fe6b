"""A real OTLP/HTTP trace receiver on 127.0.0.1, decoding what exporters send with the message
classes of the `opentelemetry-proto` package.

Why beside Phoenix: Arize Phoenix (tests.support.phoenix_server) needs a virtualenv of its own,
143 packages and about 850 MiB, so it runs only where one is named; the OpenTelemetry Collector
is no PyPI package (docs/benchmarks.md, "OpenTelemetry receiver"). This receiver runs
everywhere and sees what Phoenix's API does not show (request headers, the resource). It is the
receiving half of the protocol as the spec states it:
`POST /v1/traces`, body an `ExportTraceServiceRequest` in binary protobuf (gzip when the
exporter compresses), answered with an empty `ExportTraceServiceResponse`. It keeps every
span it receives, decoded into plain dicts, for tests to read back.

    with OtlpReceiver() as receiver:          # receiver.endpoint: OTEL_EXPORTER_OTLP_ENDPOINT
        ...; receiver.wait_for_spans(n)
"""

from __future__ import annotations

import gzip
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from tests.support.loopback_server import LoopbackServer


def any_value(value: AnyValue) -> Any:
    """An OTLP attribute value as Python (str, bool, int, float, list, dict, bytes)."""
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [any_value(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: any_value(kv.value) for kv in value.kvlist_value.values}
    return getattr(value, kind) if kind else None


def decoded_spans(request: ExportTraceServiceRequest) -> list[dict[str, Any]]:
    spans = []
    for resource_spans in request.resource_spans:
        resource = {kv.key: any_value(kv.value) for kv in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                spans.append({
                    "trace_id": span.trace_id.hex(), "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex() or None, "name": span.name,
                    "start_ns": span.start_time_unix_nano, "end_ns": span.end_time_unix_nano,
                    "attributes": {kv.key: any_value(kv.value) for kv in span.attributes},
                    "events": [{"name": e.name, "attributes": {kv.key: any_value(kv.value) for kv in e.attributes}}
                               for e in span.events],
                    "status": span.status.code, "resource": resource, "scope": scope_spans.scope.name,
                })
    return spans


class OtlpReceiver(LoopbackServer):
    """Receives OTLP/HTTP traces; `spans` is everything received, `headers` each request's."""

    thread_name = "otlp-receiver"

    def __init__(self, port: int = 0) -> None:
        super().__init__(port)
        self.spans: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()

    @property
    def endpoint(self) -> str:
        """The base for `OTEL_EXPORTER_OTLP_ENDPOINT` (the exporter appends `/v1/traces`)."""
        return self.base_url.removesuffix("/v1")

    def wait_for_spans(self, count: int, timeout: float = 30.0) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if len(self.spans) >= count:
                    return list(self.spans)
            time.sleep(0.05)
        with self._lock:
            return list(self.spans)

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path != "/v1/traces" or "protobuf" not in self.headers.get("Content-Type", ""):
                    self.send_response(404 if self.path != "/v1/traces" else 415)
                    self.end_headers()
                    return
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                with receiver._lock:
                    receiver.spans.extend(decoded_spans(request))
                    receiver.headers.append({k.lower(): v for k, v in self.headers.items()})
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

        return Handler
