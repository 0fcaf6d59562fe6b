"""Run llama-cpp-python's OpenAI-compatible server as a private child process.

Why a child process rather than an in-process ``llama_cpp.Llama``: the judge
graph talks to every model through the OpenAI chat API (``ChatOpenAI``), so the
local model is just another ``base_url``. The child also keeps llama.cpp's
memory (about 2.2 GB at n_ctx 8192) and its C-level crashes out of our process.

The one hard requirement is *no orphan servers*. The child is stopped by, in
order of politeness:

* ``LocalServer.stop()`` / leaving the ``with`` block (SIGTERM, then SIGKILL);
* an ``atexit`` hook, which also covers Ctrl-C (KeyboardInterrupt unwinds);
* a SIGTERM/SIGHUP handler (those would otherwise kill us without atexit),
  which stops the servers and then chains to the previous handler;
* if we are killed outright (``kill -9``): ``prctl(PR_SET_PDEATHSIG, SIGKILL)``
  in the child, plus a "lifeline" pipe whose EOF the child watches. The pipe
  also covers servers started from a non-main thread, where PDEATHSIG would
  fire as soon as that thread ended, so PDEATHSIG is only used from the main
  thread.

The child runs in its own session, so a terminal's Ctrl-C reaches only us and
we decide when it stops; its output goes to a log file, never our stdout.
"""

from __future__ import annotations

import atexit
import http.client
import importlib.util
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import FrameType, TracebackType
from typing import IO, Any, TextIO

from .assembly import default_cache_dir, ensure_local_model
from .status import Status, silent

__all__ = [
    "DEFAULT_MODEL_ALIAS",
    "DEFAULT_N_CTX",
    "LocalServer",
    "LocalServerError",
    "available_cores",
    "serve_forever",
    "served_name",
]

log = logging.getLogger(__name__)

DEFAULT_N_CTX = 8192
DEFAULT_MODEL_ALIAS = "local-judge"
DEFAULT_STARTUP_TIMEOUT = 180.0
LOG_TAIL_LINES = 15
_LOG_ROTATE_BYTES = 8 * 1024 * 1024
_POLL_INTERVAL = 0.25
_PORT_RETRIES = 3
# A native build on a VM whose CPU advertises AMX but cannot run it dies with SIGILL at the first decode.
_SIGILL_HINT = (
    "llama.cpp was compiled for CPU instructions this machine cannot run; rebuild it with: "
    "CMAKE_ARGS='-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON' "
    "pip install --force-reinstall --no-cache-dir --no-deps llama-cpp-python==0.3.36"
)

# Runs in the child before llama_cpp.server. argv: parent_pid lifeline_fd pdeathsig module args...
_CHILD_BOOTSTRAP = r"""
import os, runpy, signal, sys, threading
parent_pid, lifeline_fd, use_pdeathsig, module = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
if use_pdeathsig and sys.platform.startswith("linux"):
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(1, int(signal.SIGKILL), 0, 0, 0) != 0:  # 1 == PR_SET_PDEATHSIG
        print("judgegraph: prctl(PR_SET_PDEATHSIG) failed, errno", ctypes.get_errno(), file=sys.stderr)
if os.getppid() != parent_pid:
    sys.exit("judgegraph: parent process exited before the server started")
def _watch_lifeline():
    while os.read(lifeline_fd, 1):  # nothing is ever written: EOF means the parent is gone
        continue
    os._exit(0)
threading.Thread(target=_watch_lifeline, name="judgegraph-lifeline", daemon=True).start()
sys.argv = [module] + sys.argv[5:]
sys.path.append(PACKAGE_PARENT)  # judgegraph's own modules, however the parent found them
try:
    from PACKAGE.fast_logprobs import install as _fast_logprobs
    _fast_logprobs()
except Exception as error:  # the server still works, only log-probabilities are slower
    print("judgegraph: fast log-probabilities not installed:", error, file=sys.stderr)
try:
    from PACKAGE.prompt_logits import install as _prompt_logits
    _prompt_logits()
except Exception as error:  # the server still works, only prompts cost more
    print("judgegraph: last-row prompt logits not installed:", error, file=sys.stderr)
try:
    from PACKAGE.chat_guard import install as _chat_guard
    _chat_guard()
except Exception as error:  # judgegraph's prompts are neutralised before they are sent anyway
    print("judgegraph: chat guard not installed:", error, file=sys.stderr)
try:
    from PACKAGE.json_schema_requests import install as _json_schema_requests
    _json_schema_requests()
except Exception as error:  # clients still get a schema by falling back to json_object
    print("judgegraph: json_schema requests not accepted:", error, file=sys.stderr)
runpy.run_module(module, run_name="__main__", alter_sys=True)
""".replace("PACKAGE_PARENT", repr(str(Path(__file__).resolve().parents[2]))).replace("PACKAGE", __package__ or "")
"""The child's bootstrap. A `-c` script has no package, so judgegraph's modules are imported by
their absolute name (this package's), from the folder this package is in."""


class LocalServerError(RuntimeError):
    """The local model server could not be started or died; the message quotes its log."""


def available_cores() -> int:
    """CPU cores this process may run on (respects taskset/cgroup affinity, unlike os.cpu_count)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _describe_exit(code: int) -> str:
    """``-4`` -> ``killed by SIGILL``: a signal name says far more than a negative number."""
    if code >= 0:
        return f"exited with code {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        return f"was killed by signal {-code}"
    if name == "SIGILL":
        return f"was killed by SIGILL ({_SIGILL_HINT})"
    return f"was killed by {name}"


def _free_port(host: str) -> int:
    """Ask the kernel for a free port; the small race until the child binds is handled by a retry."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


# --------------------------------------------------------------------------- cleanup registry

_live_servers: set[LocalServer] = set()
_previous_handlers: dict[int, Any] = {}
_cleanup_installed = False
_cleanup_lock = threading.Lock()


def _stop_all_servers() -> None:
    for server in list(_live_servers):
        server.stop()


def _on_fatal_signal(signum: int, frame: FrameType | None) -> None:
    """Stop our servers, then behave as the previous handler would have."""
    _stop_all_servers()
    previous = _previous_handlers.get(signum, signal.SIG_DFL)
    if callable(previous):
        previous(signum, frame)
    elif previous == signal.SIG_DFL:
        # Re-deliver with the default action so our exit status still says "killed by signal".
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


def _install_cleanup() -> None:
    """Register atexit once, and signal handlers once if we are on the main thread (Python requires it)."""
    global _cleanup_installed
    with _cleanup_lock:
        if _cleanup_installed:
            return
        atexit.register(_stop_all_servers)
        _cleanup_installed = True
        if threading.current_thread() is not threading.main_thread():
            log.debug("not on the main thread: relying on atexit and the lifeline pipe only")
            return
        for signame in ("SIGTERM", "SIGHUP", "SIGINT"):
            signum = getattr(signal, signame, None)
            if signum is None:
                continue
            current = signal.getsignal(signum)
            if current in (signal.SIG_IGN, None):
                continue
            if signum == signal.SIGINT and current is not signal.SIG_DFL:
                # Python's default SIGINT handler raises KeyboardInterrupt, which unwinds
                # `with` blocks and runs atexit; leave it (or the app's own handler) alone.
                continue
            _previous_handlers[signum] = current
            signal.signal(signum, _on_fatal_signal)


# --------------------------------------------------------------------------- server


class LocalServer:
    """A ``python -m llama_cpp.server`` child on 127.0.0.1, serving one GGUF model.

    Use as a context manager::

        with LocalServer(ensure_local_model()) as srv:
            llm = ChatOpenAI(base_url=srv.base_url, model=srv.model_alias, api_key="local")

    ``start()`` returns only once ``GET /v1/models`` answers and (with
    ``warmup``) a one-token completion succeeded, or raises
    :class:`LocalServerError` quoting the last lines of the server log.

    Defaults: a free port on 127.0.0.1, ``n_ctx`` 8192, ``n_threads`` = the
    cores we may run on, the log in the cache dir (``local-server.log``,
    appended to, rotated past 8 MB). The model name in requests is not checked
    by llama_cpp.server; ``model_alias`` is what ``/v1/models`` reports.

    ``python`` and ``server_module`` exist so tests can substitute a tiny fake
    server; ``env`` adds variables to the child's environment. ``status`` is
    told each start-up step (the port, the wait for the model to load, the
    warm-up, ready in N s); silent by default.
    """

    def __init__(
        self,
        model_path: Path | str,
        *,
        port: int | None = None,
        host: str = "127.0.0.1",
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int | None = None,
        model_alias: str = DEFAULT_MODEL_ALIAS,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
        log_path: Path | None = None,
        extra_args: Sequence[str] = (),
        python: str = sys.executable,
        server_module: str = "llama_cpp.server",
        env: Mapping[str, str] | None = None,
        warmup: bool = True,
        status: Status = silent,
    ) -> None:
        self.model_path = Path(model_path)
        self.host = host
        self.n_ctx = n_ctx
        self.n_threads = n_threads if n_threads is not None else available_cores()
        self.model_alias = model_alias
        self.startup_timeout = startup_timeout
        self.log_path = log_path if log_path is not None else default_cache_dir() / "local-server.log"
        self.extra_args = tuple(extra_args)
        self.python = python
        self.server_module = server_module
        self.env = dict(env or {})
        self.warmup = warmup
        self.status = status
        self._requested_port = port
        self._port: int | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._log_file: IO[bytes] | None = None
        self._log_offset = 0
        self._lifeline_w: int | None = None

    # ----------------------------------------------------------------- public

    @property
    def port(self) -> int:
        if self._port is None:
            raise LocalServerError("the local server has not been started")
        return self._port

    @property
    def base_url(self) -> str:
        """OpenAI-compatible base URL, e.g. ``http://127.0.0.1:PORT/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def command(self, port: int) -> list[str]:
        """The server's argv (after the bootstrap); kept public so it can be shown or logged."""
        return [
            "--model", str(self.model_path),
            "--model_alias", self.model_alias,
            "--host", self.host,
            "--port", str(port),
            "--n_ctx", str(self.n_ctx),
            "--n_threads", str(self.n_threads),
            "--n_threads_batch", str(self.n_threads),
            *self.extra_args,
        ]  # fmt: skip

    def identity(self) -> str:
        """What this server answers with, in one line: the model file (its name, size and
        modification time) and the settings that can change a reply (the context window, the
        served name, extra server arguments). Not its host, port or thread count: they change
        where and how fast it answers, not what, and the port is new on every start. The step
        cache keys the embedded judge's replies by this (`llm.local`, `batch.cache`)."""
        try:
            stat = self.model_path.stat()
            file = f"{self.model_path.name} ({stat.st_size} bytes, modified {stat.st_mtime_ns})"
        except OSError:
            file = str(self.model_path)
        extra = f", args {' '.join(self.extra_args)}" if self.extra_args else ""
        return f"llama.cpp model {file}, n_ctx {self.n_ctx}, alias {self.model_alias}{extra}"

    def start(self) -> LocalServer:
        """Start the server and block until it is healthy; returns self for chaining."""
        if self.running:
            return self
        self._preflight()
        _install_cleanup()
        attempts = 1 if self._requested_port is not None else _PORT_RETRIES
        started = time.monotonic()
        for attempt in range(1, attempts + 1):
            port = self._requested_port if self._requested_port is not None else _free_port(self.host)
            self.status(f"starting the llama.cpp server for {self.model_path.name} on {self.host}:{port} "
                        f"(log: {self.log_path})")
            self._spawn(port)
            try:
                self.status("waiting for the server to load the model and answer")
                self._wait_healthy()
                if self.warmup:
                    self.status("warming up (a one-token completion)")
                    self._warm_up()
                self.status(f"ready at {self.base_url} in {time.monotonic() - started:.1f} s")
                return self
            except LocalServerError as exc:
                tail = self.log_tail()
                self.stop()
                port_taken = "address already in use" in tail.lower()
                if not (port_taken and attempt < attempts):
                    raise exc
                log.info("port %d was taken before the server bound it; retrying", port)
            except BaseException:
                # e.g. Ctrl-C while waiting: __exit__ will not run because __enter__ did not finish.
                self.stop()
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def stop(self, timeout: float = 5.0) -> None:
        """Terminate the server (SIGTERM to its process group, then SIGKILL after ``timeout``)."""
        proc = self._proc
        if proc is None:
            return
        try:
            if proc.poll() is None:
                self._signal_group(proc, signal.SIGTERM)
                try:
                    proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    log.warning("local server pid %d ignored SIGTERM for %.0fs; killing it", proc.pid, timeout)
                    self._signal_group(proc, signal.SIGKILL)
                    try:
                        proc.wait(timeout)
                    except subprocess.TimeoutExpired:
                        # Only when another frame of this thread is already inside
                        # proc.wait(); the process is SIGKILLed and that frame reaps it.
                        log.warning("local server pid %d was killed but not yet reaped", proc.pid)
        finally:
            self._proc = None
            _live_servers.discard(self)
            self._close_lifeline()
            if self._log_file is not None:
                self._log_file.close()
                self._log_file = None

    def poll(self) -> int | None:
        """The server's exit code, or ``None`` while it runs (or was never started)."""
        return self._proc.poll() if self._proc is not None else None

    def wait(self) -> int:
        """Block until the server exits on its own; returns its exit code.

        Polls instead of ``Popen.wait()`` so a signal handler that calls
        :meth:`stop` never meets a wait lock held by the frame it interrupted.
        """
        while (code := self.poll()) is None:
            if self._proc is None:
                return 0
            time.sleep(_POLL_INTERVAL)
        return code

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        """The last ``lines`` lines this server wrote to its log (only this run's lines)."""
        try:
            with self.log_path.open("rb") as fh:
                fh.seek(0, os.SEEK_END)
                end = fh.tell()
                start = max(self._log_offset, end - 256 * 1024)
                fh.seek(start)
                text = fh.read(end - start).decode("utf-8", errors="replace")
        except FileNotFoundError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = f"pid={self.pid} url={self.base_url}" if self.running else "stopped"
        return f"LocalServer({str(self.model_path)!r}, {state})"

    # ----------------------------------------------------------------- internals

    def _preflight(self) -> None:
        """Fail early, with a fix, for problems the child would only report cryptically."""
        if not self.model_path.is_file():
            raise LocalServerError(f"model file not found: {self.model_path}")
        if (
            self.server_module == "llama_cpp.server"
            and self.python == sys.executable
            and importlib.util.find_spec("llama_cpp") is None
        ):
            raise LocalServerError(
                "llama-cpp-python is not installed: pip install 'llama-cpp-python[server]==0.3.36'"
            )

    def _open_log(self) -> None:
        """Append to the log (rotating it when large) and remember where this run starts."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        if self.log_path.exists() and self.log_path.stat().st_size > _LOG_ROTATE_BYTES:
            os.replace(self.log_path, self.log_path.with_name(self.log_path.name + ".1"))
        self._log_file = self.log_path.open("ab")
        header = f"\n=== judgegraph local server, parent pid {os.getpid()}, {time.strftime('%Y-%m-%d %H:%M:%S')} ===\n"
        self._log_file.write(header.encode())
        self._log_file.flush()
        self._log_offset = self._log_file.tell()

    def _spawn(self, port: int) -> None:
        self._open_log()
        lifeline_r, lifeline_w = os.pipe()
        use_pdeathsig = threading.current_thread() is threading.main_thread()
        argv = [
            self.python, "-c", _CHILD_BOOTSTRAP,
            str(os.getpid()), str(lifeline_r), "1" if use_pdeathsig else "0", self.server_module,
            *self.command(port),
        ]  # fmt: skip
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        log.info("starting local model server on %s:%d (log: %s)", self.host, port, self.log_path)
        try:
            self._proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=self._log_file,
                stderr=subprocess.STDOUT,
                env=env,
                pass_fds=(lifeline_r,),
                start_new_session=True,
            )
        except OSError as exc:
            os.close(lifeline_w)
            raise LocalServerError(f"could not start {self.python}: {exc}") from exc
        finally:
            os.close(lifeline_r)
        self._lifeline_w = lifeline_w
        self._port = port
        _live_servers.add(self)

    def _wait_healthy(self) -> None:
        assert self._proc is not None
        url = f"{self.base_url}/models"
        # Bypass any HTTP(S)_PROXY: the server is on loopback.
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        deadline = time.monotonic() + self.startup_timeout
        last_error = "no answer yet"
        while True:
            code = self._proc.poll()
            if code is not None:
                raise LocalServerError(
                    f"local model server {_describe_exit(code)} before becoming healthy "
                    f"(log: {self.log_path}); last log lines:\n{self.log_tail()}"
                )
            if time.monotonic() > deadline:
                raise LocalServerError(
                    f"local model server was not healthy after {self.startup_timeout:.0f}s "
                    f"({url}: {last_error}; log: {self.log_path}); last log lines:\n{self.log_tail()}"
                )
            try:
                with opener.open(url, timeout=5) as resp:
                    if resp.status == 200:
                        return
                    last_error = f"HTTP {resp.status}"
            except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
                last_error = str(exc)
            time.sleep(_POLL_INTERVAL)

    def _warm_up(self) -> None:
        """Generate one token so a broken build (e.g. SIGILL in the matmul kernels) fails here, clearly.

        llama.cpp only runs its compute kernels at the first decode; without this a
        bad build looks healthy and the judge later sees bare connection errors.
        It also faults the weights into memory, so the first real call is not slower.
        """
        assert self._proc is not None
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        body = json.dumps({"prompt": "OK", "max_tokens": 1, "temperature": 0}).encode()
        request = urllib.request.Request(
            f"{self.base_url}/completions", data=body, headers={"Content-Type": "application/json"}
        )
        try:
            with opener.open(request, timeout=max(self.startup_timeout, 30.0)) as resp:
                resp.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read(500).decode("utf-8", errors="replace")
            raise LocalServerError(
                f"local model server failed its warm-up completion (HTTP {exc.code}: {detail}); "
                f"last log lines:\n{self.log_tail()}"
            ) from exc
        except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
            code = self._wait_for_exit(2.0)
            what = _describe_exit(code) if code is not None else f"did not answer ({exc})"
            raise LocalServerError(
                f"local model server {what} during its warm-up completion "
                f"(log: {self.log_path}); last log lines:\n{self.log_tail()}"
            ) from exc

    def _wait_for_exit(self, timeout: float) -> int | None:
        """The exit code if the child exits within ``timeout`` seconds, else ``None``."""
        deadline = time.monotonic() + timeout
        while (code := self.poll()) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        return code

    @staticmethod
    def _signal_group(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
        """Signal the child's whole process group (it leads its own session)."""
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            log.debug("local server pid %d already exited", proc.pid)

    def _close_lifeline(self) -> None:
        if self._lifeline_w is not None:
            os.close(self._lifeline_w)
            self._lifeline_w = None


def served_name(model_path: Path | str) -> str:
    """The model name a server of this GGUF file answers to: the file's name without `.gguf`
    (`qwen2.5-coder-1.5b-instruct-q4_k_m`), the name the embedded judge's profile is fitted for."""
    return Path(model_path).name.removesuffix(".gguf")


def serve_forever(
    model_path: Path | str | None = None,
    port: int | None = None,
    *,
    out: TextIO | None = None,
    **server_kwargs: Any,
) -> None:
    """Run the local server until Ctrl-C, for ``judgegraph serve-local``.

    Prints only the base URL to ``out`` (stdout), so scripts can capture it;
    human hints go to stderr. ``model_path`` defaults to the assembled model.
    Returns normally on Ctrl-C; raises :class:`LocalServerError` if the server
    fails to start or dies.
    """
    path = Path(model_path) if model_path is not None else ensure_local_model()
    stream = out if out is not None else sys.stdout
    # Served under its weights' name, so a client pointed at this URL is recognised as this
    # model and gets the profile fitted for it (`calibration.profile.same_judge`).
    server_kwargs.setdefault("model_alias", served_name(path))
    server = LocalServer(path, port=port, **server_kwargs)
    try:
        with server:
            print(server.base_url, file=stream, flush=True)
            print(
                f"judgegraph: serving {path.name} as model {server.model_alias!r}; press Ctrl-C to stop",
                file=sys.stderr,
                flush=True,
            )
            code = server.wait()
            tail = server.log_tail()
            raise LocalServerError(
                f"local model server {_describe_exit(code)} unexpectedly (log: {server.log_path}); "
                f"last log lines:\n{tail}"
            )
    except KeyboardInterrupt:
        print("judgegraph: local server stopped", file=sys.stderr, flush=True)
