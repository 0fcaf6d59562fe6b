"""The labelling page's server: the standard library's HTTP server on 127.0.0.1, for one person.

Why these defences, on a page only its own user should reach:
- bound to 127.0.0.1, never another interface: the items may be private;
- every POST must carry the random token printed in the page (other sites' pages cannot read
  our page, so they cannot forge a label: a CSRF-safe form), and a `Host` that is this server
  (a DNS-rebinding page has another name), and an `Origin`, when the browser sends one, that is
  this server's;
- request bodies are bounded (MAX_BODY_BYTES, a form of a few fields and a note) and so is the
  time a connection may stay silent;
- the page is sent with a strict Content-Security-Policy (`labelling.page`), `nosniff`, no
  framing, no caching, and no referrer sent to other sites (`same-origin`: a `no-referrer` page
  makes the browser send `Origin: null` with its own forms, which the origin check refuses).

Each POST does one thing (label, skip, undo) and redirects to `/`, which shows the next item:
reloading the page never labels twice. The session's actions run under one lock, so two tabs
cannot interleave half-written labels; a label for an item another tab already labelled is
refused with a message, never written twice.
"""

from __future__ import annotations

import hmac
import re
import secrets
import sys
import threading
from dataclasses import replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from ..report.build import item_view
from ..text.visible import visible
from .blind_view import blind
from .page import PageView, Revealed, assets, posted_id, render_page
from .errors import LabellingError
from .results_index import IndexedRecord
from .session import Session, StaleItem

MAX_BODY_BYTES = 64 * 1024
"""A form: a token, a position, an id, a label per metric and a note of at most a few KB."""
IDLE_SECONDS = 30
"""How long a connection may send nothing before it is closed."""


class LabellingServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, session: Session, port: int = 0) -> None:
        self.session = session
        self.token = secrets.token_urlsafe(32)
        self.lock = threading.Lock()
        self.message: str | None = None
        self.revealed: tuple[int, IndexedRecord, dict[str, int]] | None = None
        """The item last labelled (position, record, label by metric): the judge's side of it is
        shown on the next page; an undo or a skip takes it away."""
        super().__init__(("127.0.0.1", port), _Handler)

    def handle_error(self, request: object, client_address: tuple) -> None:
        """One line on stderr for a request that broke a handler, not the standard library's
        traceback on the person's terminal (the request's connection is closed; the server goes on)."""
        error = sys.exc_info()[1]
        print(visible(f"judgegraph: a request to the labelling page failed: {type(error).__name__}: {error}"),
              file=sys.stderr)

    @property
    def port(self) -> int:
        return self.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def page(self) -> str:
        with self.lock:
            session = self.session
            message, self.message = self.message, None
            current = session.current()
            view = PageView(token=self.token, labels_file=str(session.log.path), n_items=session.n_items,
                            labelled=session.labelled, skipped=session.skipped, scales=session.scales,
                            message=message, show_judge=session.show_judge, precision=session.precision())
            if current is not None:
                shown = item_view(current.position + 1, session.record(current))
                view = replace(view, position=current.position, stratum=current.stratum,
                               item=shown if session.show_judge else blind(shown))
            if self.revealed is not None and not session.show_judge:
                position, record, human = self.revealed
                view = replace(view, revealed=Revealed(position, item_view(position + 1, session.index.read(record)),
                                                       human))
        return render_page(view)

    def act(self, action: str, form: dict[str, str]) -> None:
        """Run one POSTed action; a problem the person can fix becomes the next page's message."""
        with self.lock:
            try:
                if action == "/undo":
                    self.revealed = None
                    undone = self.session.undo()
                    self.message = f"undone: item {undone!r} is shown again" if undone else "nothing to undo"
                    return
                position, item_id = _position(form), posted_id(form.get("id", ""))
                if action == "/skip":
                    self.session.skip(position, item_id)
                    self.revealed = None
                else:
                    values = {key[2:]: _integer(value) for key, value in form.items() if key.startswith("m:")}
                    current = self.session.current()
                    row = self.session.label(position, item_id, values, form.get("note", ""))
                    human = row["human"] if isinstance(row["human"], dict) else {self.session.scales[0].metric: row["human"]}
                    self.revealed = (position, current.record, human)  # label() checked it is the current one
            except StaleItem as error:
                self.message = f"{error}; here is the next one"
            except LabellingError as error:
                self.message = f"not saved: {error}"


def _position(form: dict[str, str]) -> int:
    value = _integer(form.get("position", ""))
    if value is None:
        raise LabellingError("the form has no item position")
    return value


_INTEGER = re.compile(r"-?[0-9]{1,11}")
"""What a form's value or position may be: `str.isdigit` also takes "²" and "--1" past a
`lstrip("-")`, which `int` then refuses (or reads "١" as 1)."""


def _integer(text: str) -> int | None:
    text = text.strip()
    return int(text) if _INTEGER.fullmatch(text) else None


_LENGTH = re.compile(r"[0-9]{1,19}")
"""A Content-Length as HTTP/1.1 writes it (RFC 9110: 1*DIGIT, ASCII digits only); 19 digits keep
any number `int` reads small, and anything above MAX_BODY_BYTES is refused anyway."""


def _content_length(values: list[str], transfer_encoding: str | None) -> tuple[int, str | None]:
    """The body's length from the request's headers, or why it cannot be read (a 411 or a 400,
    never an exception): `str.isdigit` took "²", which `int` refuses."""
    if transfer_encoding is not None:
        return 0, "a Transfer-Encoding is not read here: send the form with a Content-Length"
    if not values:
        return 0, "a Content-Length is required"
    texts = {value.strip() for value in values}
    if len(texts) != 1 or not _LENGTH.fullmatch(next(iter(texts))):
        return 0, "the Content-Length must be one number of bytes"
    return int(next(iter(texts))), None


class _Handler(BaseHTTPRequestHandler):
    server: LabellingServer
    server_version = "judgegraph-label"
    sys_version = ""
    timeout = IDLE_SECONDS

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        """Quiet: the terminal shows the URL and the final count, not a line per request."""

    def _host_ok(self) -> bool:
        allowed = {f"127.0.0.1:{self.server.port}", f"localhost:{self.server.port}"}
        if self.headers.get("Host", "") not in allowed:
            return False
        origin = self.headers.get("Origin")
        return origin is None or origin in {f"http://{host}" for host in allowed}

    def _send(self, status: HTTPStatus, body: str = "", *, location: str | None = None,
              content_type: str = "text/plain; charset=utf-8") -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Content-Security-Policy", assets().policy)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Referrer-Policy", "same-origin")  # "no-referrer" makes a browser send `Origin: null`
        self.send_header("Cache-Control", "no-store")
        if location:
            self.send_header("Location", location)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if not self._host_ok():
            return self._send(HTTPStatus.FORBIDDEN, "wrong host\n")
        if urlsplit(self.path).path != "/":
            return self._send(HTTPStatus.NOT_FOUND, "not found\n")
        try:
            page = self.server.page()
        except (LabellingError, OSError, ValueError) as error:
            return self._send(HTTPStatus.INTERNAL_SERVER_ERROR, f"cannot show the next item: {error}\n")
        self._send(HTTPStatus.OK, page, content_type="text/html; charset=utf-8")

    def do_POST(self) -> None:  # noqa: N802
        if not self._host_ok():
            return self._send(HTTPStatus.FORBIDDEN, "wrong host or origin\n")
        action = urlsplit(self.path).path
        if action not in ("/label", "/skip", "/undo"):
            return self._send(HTTPStatus.NOT_FOUND, "not found\n")
        length, problem = _content_length(self.headers.get_all("Content-Length") or [],
                                          self.headers.get("Transfer-Encoding"))
        if problem is not None:
            self.close_connection = True  # what follows the headers cannot be told apart from the body
            status = HTTPStatus.LENGTH_REQUIRED if problem.startswith("a Content-Length is required") else HTTPStatus.BAD_REQUEST
            return self._send(status, problem + "\n")
        if length > MAX_BODY_BYTES:
            self.close_connection = True
            return self._send(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"at most {MAX_BODY_BYTES} bytes\n")
        if self.headers.get_content_type() != "application/x-www-form-urlencoded":
            return self._send(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "a form is expected\n")
        try:
            fields = parse_qs(self.rfile.read(length).decode("utf-8"), keep_blank_values=True,
                              max_num_fields=32, strict_parsing=False)
        except (UnicodeDecodeError, ValueError):
            return self._send(HTTPStatus.BAD_REQUEST, "an unreadable form\n")
        form = {key: values[-1] for key, values in fields.items()}
        if not hmac.compare_digest(form.get("token", "").encode("utf-8"), self.server.token.encode("utf-8")):
            return self._send(HTTPStatus.FORBIDDEN, "the form's token is not this page's (reload the page)\n")
        self.server.act(action, form)
        self._send(HTTPStatus.SEE_OTHER, "", location="/")
