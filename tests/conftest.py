"""Shared fixtures: one Chromium for the whole session and loopback HTTP servers.

Starting Chromium costs seconds, so browser tests share the session-scoped ``renderer``; tests
that must change per-job limits (``max_nodes``, ``max_bytes``, ``javascript``, ``timeout``) do
it for their duration only with ``renderer_options``. Tests that kill or time out a browser on
purpose start their own :class:`~webseg.render.Renderer` so that a failure cannot spill over.

Network traffic stays on 127.0.0.1: :class:`RecordingServer` serves files and records every
connection and request it receives, so offline tests can assert that nothing reached it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from hypothesis import HealthCheck, settings

from webseg.render import Renderer, RenderError, find_chromium

# Hypothesis' defaults fail a test whose example takes over 200 ms (``DeadlineExceeded``) or
# whose data generation is slow (``HealthCheck.too_slow``): both measure the machine, not the
# code, and CI machines (and this one, shared with other jobs) are busy. The properties stay;
# only the clocks go. With ``CI`` set (as on the CI machines) a failure also prints the blob
# that replays it (``@reproduce_failure``).
settings.register_profile("webseg", deadline=None, print_blob=bool(os.environ.get("CI")),
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("webseg")

#: Per-page time limit of the shared renderer: generous, because CI machines (and this one,
#: shared with other jobs) can be slow; tests about time limits set their own.
RENDER_TIMEOUT = 30.0


@pytest.fixture(autouse=True)
def _progress_not_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with progress output on: ``-q`` sets a module-wide flag in
    :mod:`webseg.progress`, which would otherwise stay set for the tests that run after it."""
    import webseg.progress

    monkeypatch.setattr(webseg.progress, "QUIET", False)


def _have_chromium() -> bool:
    try:
        find_chromium()
    except RenderError:
        return False
    return True


def no_browser(reason: str) -> None:
    """Skip a browser test where Chromium is missing, but fail under CI (``CI`` set), where
    ``make test`` installs it: a CI run must never go green by skipping the browser tests."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must run the browser tests)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def renderer() -> Iterator[Renderer]:
    """One Renderer (one Chromium) shared by all browser tests."""
    if not _have_chromium():
        no_browser("no Chromium installed (run `make setup`)")
    with Renderer(timeout=RENDER_TIMEOUT) as r:
        yield r


@pytest.fixture
def renderer_options(renderer: Renderer):
    """``with renderer_options(max_nodes=10): ...`` changes the shared renderer's per-job
    options (limits, time limit, JavaScript) and restores them afterwards."""

    @contextlib.contextmanager
    def override(**changes: object) -> Iterator[Renderer]:
        saved = renderer.options
        renderer.options = dataclasses.replace(saved, **changes)
        try:
            yield renderer
        finally:
            renderer.options = saved

    return override


@pytest.fixture
def own_renderer():
    """Factory for a private Renderer (closed after the test), for tests that break one."""
    if not _have_chromium():
        no_browser("no Chromium installed (run `make setup`)")
    made: list[Renderer] = []

    def make(**options: object) -> Renderer:
        r = Renderer(**options)
        r.start()
        made.append(r)
        return r

    yield make
    for r in made:
        r.close()


# --------------------------------------------------------------------------- loopback HTTP


class RecordingServer:
    """A threaded HTTP server on 127.0.0.1 that serves ``files`` and records all traffic.

    ``connections`` counts accepted TCP connections (a preconnect or a WebSocket opens one
    without sending a request we would parse); ``requests`` lists the request paths.
    """

    def __init__(self) -> None:
        self.files: dict[str, tuple[bytes, str]] = {}
        self.requests: list[str] = []
        self.connections = 0
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                with outer._lock:
                    outer.requests.append(self.path)
                body, ctype = outer.files.get(self.path.split("?")[0], (b"not found", ""))
                self.send_response(200 if ctype else 404)
                self.send_header("Content-Type", ctype or "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_GET  # noqa: N815 - beacons and forms

            def log_message(self, *args: object) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def get_request(self) -> tuple[socket.socket, object]:
                conn = super().get_request()
                with outer._lock:
                    outer.connections += 1
                return conn

        self._server = Server(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def start(self) -> RecordingServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def hits(self) -> int:
        with self._lock:
            return self.connections + len(self.requests)


@pytest.fixture
def http_server() -> Iterator[RecordingServer]:
    """A fresh loopback server for one test (its counters start at zero)."""
    srv = RecordingServer().start()
    yield srv
    srv.stop()


@pytest.fixture
def closed_port() -> int:
    """A loopback port with nothing listening (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------- processes


def descendants(pid: int | None = None) -> list[int]:
    """Process ids below ``pid`` (default: this process), from /proc; no psutil needed."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # the command name may contain spaces and parentheses: split after the last ')'
        ppid = int(stat.rsplit(b")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    out: list[int] = []
    todo = [os.getpid() if pid is None else pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


@pytest.fixture(scope="session")
def process_tools():
    """(descendants, cmdline) helpers for tests that kill browser processes."""
    return descendants, cmdline
