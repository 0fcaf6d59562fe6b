"""Whether anything listens at the OTLP receiver's address, asked once before a run exports.

Why: OpenTelemetry's exporter retries a refused connection with backoff for up to its timeout
(10 s by default), and each attempt logs the raw `HTTPConnectionPool(...) Max retries exceeded`
text on stderr. With the receiver down, a one-item `evaluate --otel` took some 20 s longer and
printed four lines of urllib3 errors. One TCP connection, bounded by `CONNECT_TIMEOUT_S`, tells a
receiver that is not there at once; the run then says so in one line and exports nothing. A
receiver that answers is left to the exporter, retries and all (a 503 can pass).
"""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

CONNECT_TIMEOUT_S = 0.5
"""How long the check waits for a connection: a receiver on the same network accepts within
milliseconds; an address that swallows packets costs at most this."""

_DEFAULT_PORTS = {"http": 80, "https": 443}


def receiver_problem(endpoint: str, timeout_s: float = CONNECT_TIMEOUT_S) -> str | None:
    """Why nothing can be sent to `endpoint` (an OTLP/HTTP URL), in a few words; None when a
    TCP connection to its host and port opens (or the URL is not one this check can read: the
    exporter then says what it says)."""
    try:
        parts = urlsplit(endpoint)
        host, port = parts.hostname, parts.port or _DEFAULT_PORTS.get(parts.scheme)
    except ValueError:
        return None
    if not host or not port:
        return None
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return None
    except ConnectionRefusedError:
        return "connection refused"
    except socket.gaierror:
        return "host name not found"
    except TimeoutError:
        return f"no answer within {timeout_s:g} s"
    except OSError as error:
        return error.strerror or type(error).__name__
