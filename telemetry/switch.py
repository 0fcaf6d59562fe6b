"""Whether a run exports OpenTelemetry spans, and the one-line error when it cannot.

Why its own module: the CLI decides before any work (a missing extra is exit 2, not a crash
half-way through a batch), and that decision must not import `opentelemetry` itself.
"""

from __future__ import annotations

import importlib
import os

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
