"""Render pages in Chromium (through Playwright) into :class:`~webseg.page.Page` objects.

Policy (DESIGN.md "Rendering policy"), and why:

* **Local input renders offline.** Bytes and files are served to the browser by a request
  route; every request that is not ``file:``, ``data:``, ``about:`` or ``blob:`` is aborted, so
  a page can neither hang on a dead host nor leak that it was opened. What routes cannot see
  (preconnects, WebSockets) goes to a dead proxy, and the page cannot navigate away from
  itself (meta refresh, scripts): those navigations are answered "204 No Content".
* **We decode bytes, not the browser**, with :func:`webseg.decode.decode_html` (BOM, HTTP
  header block, ``<meta charset>``, detection; gzip handled), and hand Chromium UTF-8 with an
  explicit ``charset=utf-8`` header, which takes precedence over the page's own meta tag. A
  local file is served at its real ``file://`` URL so relative CSS, fonts and images resolve.
* **JavaScript is off by default for local input** (the page is what the bytes say, and an
  infinite loop cannot run), on for URLs; :class:`RenderOptions` changes both.
* Viewport 1280 px wide, a per-page time limit, a maximum node count and a maximum input size.
* One walk inside the page (``js/walk.js``) returns everything as a single JSON string.
* **No painting where nothing needs it.** Chromium's CPU bounds the throughput, and a third of
  it went into painting, rastering and compositing pages nobody looks at. When Debian's
  ``chromium-headless-shell`` (the same Blink as ``chromium``) is installed, pages without
  JavaScript and without a screenshot are rendered in its tabs that produce no frames at all
  (``enableBeginFrameControl``): style and layout run only when forced, which
  :meth:`Renderer._navigate_frameless` does while the page loads. Same boxes and styles as
  Chromium (all columns identical on the 81 pages of kreuzer-random), about half the CPU per
  page (bench/render.py). Pages with scripts or screenshots need frames, and the shell's painted
  tabs differ (a synthetic mouse at (0, 0) hovers the top-left element): they go to Chromium.

:class:`Renderer` owns one browser. Playwright's asyncio API runs on a private event-loop thread,
so the renderer is usable from plain synchronous code, from threads and from notebooks alike,
and :meth:`Renderer.render_many` can keep several pages in flight. When the browser dies it is
started again and the affected input is retried once; every input yields a page or an error.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import threading
import time
import weakref
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from webseg.decode import DecodeError, decode_html
from webseg.page import Page

#: Chromium flags that keep a headless browser quiet on a machine with no network.
CHROMIUM_ARGS = (
    "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
    "--disable-extensions", "--mute-audio", "--hide-scrollbars",
)
#: Flags for the headless shell. Its default is full hinting, which rounds glyph advances to
#: whole pixels; Chromium follows Debian's fontconfig default, hintslight: "slight" gives the
#: same text metrics, so the same boxes.
HEADLESS_SHELL_ARGS = ("--font-render-hinting=slight",)
LOCAL_SCHEMES = ("file:", "data:", "about:", "blob:")
#: URLs the route handler sees. A ``file:`` image, style sheet, script or font is local and would
#: be continued anyway; leaving it out of the route lets Playwright continue it without a round
#: trip to Python (~25 requests a page; 10-15 % of the CPU per page). A document with such a
#: name is routed for its own job (see _render_job).
ROUTED = re.compile(r"^(?!file:)|^file:(?!.*\.(?:png|gif|jpe?g|bmp|webp|ico|svg|css|js|"
                    r"woff2?|ttf|otf|eot)(?:[?#].*)?$)", re.IGNORECASE)
#: Forces style and layout (in a frameless tab nothing else runs them); says how far the
#: document has loaded.
LAYOUT_JS = ("() => (document.documentElement && document.documentElement.getBoundingClientRect(),"
             " document.readyState)")
#: Seconds between two forced layouts while a frameless tab loads.
LAYOUT_POLL = 0.03
#: Seconds to get a context and a tab (~0.2 s normally) before the browser counts as wedged.
OPEN_TIMEOUT = 15.0
#: How a navigation fails in a tab whose renderer died before or while it started.
STALE_TAB_ERRORS = ("net::ERR_ABORTED", "frame was detached")
#: Origin under which byte input without a URL is served (``.invalid`` never resolves).
SYNTHETIC_ORIGIN = "http://webseg.invalid"
#: Proxy of offline contexts. Request interception cannot see everything a page can make
#: Chromium open: ``<link rel=preconnect>`` and media preloads open TCP connections, and
#: WebSockets bypass routes. Sending all of an offline context's traffic to a proxy on port 0
#: (nothing can listen there, the connect fails at once; Playwright also proxies loopback)
#: makes "offline" hold at the network level too.
OFFLINE_PROXY = {"server": "http://127.0.0.1:0"}
WALK_JS = (Path(__file__).parent / "js" / "walk.js").read_text(encoding="utf-8")


class RenderError(RuntimeError):
    """A page could not be rendered. ``stage`` says where: read, decode, navigate, walk, ..."""

    def __init__(self, message: str, *, source: str = "", stage: str = "render") -> None:
        super().__init__(f"{source}: {message}" if source else message)
        self.source = source
        self.stage = stage
        self.reason = message


class RenderTimeout(RenderError):
    """The page did not finish within the per-page time limit."""


class PageTooLarge(RenderError):
    """The input or its DOM exceeds the configured limits."""


class BrowserCrashed(RenderError):
    """The browser or the page's renderer process died while rendering."""


class UnsupportedInput(RenderError, TypeError):
    """The input is neither bytes, a path nor an http(s) URL.

    Also a :class:`TypeError` (what :meth:`Renderer.render` raised before), and a
    :class:`RenderError` so that :meth:`Renderer.render_many` reports it as one bad input
    instead of letting it end the whole batch.
    """


@dataclass(frozen=True)
class RenderOptions:
    """Knobs of the rendering policy. ``None`` for ``javascript``/``offline`` means automatic:
    off/on for local input (bytes, files), on/off for URLs."""

    viewport_width: int = 1280
    viewport_height: int = 1024
    timeout: float = 30.0
    javascript: bool | None = None
    offline: bool | None = None
    max_nodes: int = 200_000
    max_bytes: int = 50 * 1024 * 1024
    wait_until: str = "load"
    settle_ms: int = 0
    executable_path: str | None = None
    #: None: render pages without JavaScript and screenshot in frameless tabs of the headless
    #: shell when it is installed (and executable_path is not set); False: never.
    frameless: bool | None = None
    sandbox: bool | None = None
    extra_args: tuple[str, ...] = ()
    user_agent: str | None = None


@dataclass(frozen=True)
class RenderJob:
    """One input of :meth:`Renderer.render_many` with per-input settings.

    ``url`` is the page's real address for bytes input (WARC payloads, stored crawls): the
    document is served under it offline, so relative links resolve and ``page.url`` is set.
    ``encoding`` overrides detection for this input.
    """

    source: Any
    url: str | None = None
    encoding: str | None = None


@dataclass
class RenderResult:
    """Outcome for one input of a batch: ``page`` or ``error`` is set, never both."""

    index: int
    source: str
    page: Page | None = None
    error: RenderError | None = None
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.page is not None


@dataclass
class _Job:
    """An input resolved into what to load and under which policy."""

    label: str
    url: str
    body: bytes | None  # UTF-8 document to serve at ``url``; None = let the browser fetch
    javascript: bool
    offline: bool
    encoding: str | None = None
    encoding_source: str | None = None


def find_chromium() -> str:
    """Path of a Chromium/Chrome executable: $WEBSEG_CHROMIUM, then the usual names on PATH."""
    env = os.environ.get("WEBSEG_CHROMIUM")
    if env:
        return env
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    raise RenderError("no Chromium found: install Debian's package (`apt-get install chromium`, "
                      "or run `make setup`) or set WEBSEG_CHROMIUM", stage="launch")


def find_headless_shell() -> str | None:
    """Path of the headless shell (Debian: ``apt-get install chromium-headless-shell``), or
    $WEBSEG_HEADLESS_SHELL ("" to never use it); None when there is none."""
    env = os.environ.get("WEBSEG_HEADLESS_SHELL")
    if env is not None:
        return env or None
    if os.access("/usr/lib/chromium/chromium-headless-shell", os.X_OK):
        return "/usr/lib/chromium/chromium-headless-shell"  # the binary, not Debian's sh wrapper
    for name in ("chromium-headless-shell", "chrome-headless-shell"):
        found = shutil.which(name)
        if found:
            return found
    return None


def is_headless_shell(executable: str) -> bool:
    return "headless-shell" in os.path.basename(os.path.realpath(executable))


def source_label(source: Any) -> str:
    """Short printable name of an input for messages and reports."""
    if isinstance(source, bytes | bytearray | memoryview):
        return f"<{len(source)} bytes>"
    return str(source)


def is_url(source: Any) -> bool:
    return isinstance(source, str) and source.split(":", 1)[0].lower() in ("http", "https")



def _take_document(queue: deque[tuple[Any, bytes]] | None, tab: Any) -> bytes | None:
    """Remove and return the document waiting for ``tab`` (None: there is none). Matched by
    tab, not by bytes: two records of one URL may carry identical bytes, and taking the other
    job's entry would leave that job's navigation with nothing to serve (it was aborted)."""
    if not queue or tab is None:
        return None
    for i, (owner, body) in enumerate(queue):
        if owner is tab:
            del queue[i]
            return body
    return None


class Renderer:
    """A Chromium instance that turns HTML bytes, files or URLs into :class:`Page` objects.

    >>> with Renderer() as r:                                       # doctest: +SKIP
    ...     page = r.render(Path("page.html"))
    ...     for res in r.render_many(paths, concurrency=3):
    ...         print(res.source, res.page or res.error)
    """

    def __init__(self, options: RenderOptions | None = None, **overrides: Any) -> None:
        self.options = replace(options or RenderOptions(), **overrides)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._pw: Any = None
        self._browser: Any = None
        self._contexts: dict[tuple[bool, bool], Any] = {}
        self._idle_pages: dict[tuple[bool, bool, bool], list[Any]] = {}  # + frameless
        self._shell = False  # the browser is a headless shell: frameless tabs
        self._browser_cdp: Any = None
        self._context_ids: dict[tuple[bool, bool], str] = {}  # CDP browserContextId
        self._route_handlers: dict[tuple[bool, bool], Any] = {}
        self._frameless: weakref.WeakSet[Any] = weakref.WeakSet()
        self._tab_lock: asyncio.Lock | None = None
        # Chromium for pages that need frames when the browser is the shell (see _render_one)
        self._painter: Renderer | None = None
        self._painter_lock: asyncio.Lock | None = None
        #: URL -> (tab, document bytes) of the jobs in flight: each tab is served its own job's
        #: document, also when two jobs of one URL (a WARC's re-crawl) render at once
        self._documents: dict[str, deque[tuple[Any, bytes]]] = {}
        self._context_lock: asyncio.Lock | None = None
        # tabs whose current document is one we served (see _new_context)
        self._served: weakref.WeakSet[Any] = weakref.WeakSet()
        self._crashed: weakref.WeakSet[Any] = weakref.WeakSet()  # tabs whose renderer died
        self._retired: weakref.WeakSet[Any] = weakref.WeakSet()  # browsers being replaced
        # tab -> set when the route suppressed a navigation away from it (see _navigate)
        self._nav_blocked: weakref.WeakKeyDictionary[Any, asyncio.Event] = \
            weakref.WeakKeyDictionary()
        self._counter = 0
        self._launch_lock: asyncio.Lock | None = None
        self.restarts = 0

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> Renderer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        if self._loop is not None:
            return
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="webseg-render",
                                        daemon=True)
        self._thread.start()
        try:
            self._call(self._launch(), timeout=60)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self._painter is not None:
            self._painter.close()
            self._painter = None
        if self._loop is None:
            return
        with contextlib.suppress(Exception):
            self._call(self._shutdown(), timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._loop.close()
        self._loop = None
        self._thread = None

    def _call(self, coro: Any, timeout: float | None = None) -> Any:
        if self._loop is None:
            raise RuntimeError("Renderer is not started: use `with Renderer() as r:`")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def _submit(self, coro: Any) -> Future:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    async def _launch(self) -> None:
        from playwright.async_api import async_playwright

        if self._launch_lock is None:
            self._launch_lock = asyncio.Lock()
        if self._pw is None:
            self._pw = await async_playwright().start()
        opts = self.options
        sandbox = opts.sandbox if opts.sandbox is not None else os.geteuid() != 0
        shell = None
        if opts.frameless is not False and opts.executable_path is None \
                and not os.environ.get("WEBSEG_CHROMIUM"):
            shell = find_headless_shell()
        executable = opts.executable_path or shell or find_chromium()
        self._shell = opts.frameless is not False and is_headless_shell(executable)
        args = list(CHROMIUM_ARGS) + list(HEADLESS_SHELL_ARGS if self._shell else ()) \
            + list(opts.extra_args)
        if not sandbox:
            args.append("--no-sandbox")
        try:
            self._browser = await self._pw.chromium.launch(
                executable_path=executable, args=args,
                headless=True, chromium_sandbox=sandbox, timeout=60_000)
            self._browser_cdp = (await self._browser.new_browser_cdp_session()
                                 if self._shell else None)
        except RenderError:
            raise
        except Exception as e:  # noqa: BLE001 - report any launch failure the same way
            raise RenderError(f"could not start Chromium: {e}", stage="launch") from e
        self._contexts = {}
        self._context_ids = {}
        self._idle_pages = {}

    async def _shutdown(self) -> None:
        with contextlib.suppress(Exception):
            if self._browser is not None:
                await asyncio.wait_for(self._browser.close(), 10)
        self._browser = None
        with contextlib.suppress(Exception):
            if self._pw is not None:
                await self._pw.stop()
        self._pw = None

    async def _restart(self, seen_browser: Any) -> None:
        """Start a new browser unless another task already replaced ``seen_browser``."""
        assert self._launch_lock is not None
        async with self._launch_lock:
            if self._browser is not seen_browser and self._browser is not None \
                    and self._browser.is_connected():
                return
            if self._browser is not None:
                # Pages still rendering in it fail while it closes: mark it so that they
                # know the failure was not theirs and retry (see _render_one).
                self._retired.add(self._browser)
            with contextlib.suppress(Exception):
                if self._browser is not None:
                    await asyncio.wait_for(self._browser.close(), 5)
            self.restarts += 1
            await self._launch()

    # ------------------------------------------------------------------ inputs
    def _resolve(self, source: Any, url: str | None, encoding: str | None) -> _Job:
        """Turn bytes / path / URL into a job; reads and decodes local input here."""
        opts = self.options
        label = source_label(source)
        if is_url(source):
            return _Job(label, source, None,
                        javascript=opts.javascript if opts.javascript is not None else True,
                        offline=opts.offline if opts.offline is not None else False)
        if isinstance(source, str) and source.startswith("file://"):
            from urllib.parse import unquote, urlparse
            source = Path(unquote(urlparse(source).path))
        if isinstance(source, str | os.PathLike):
            path = Path(source)
            if not path.is_file():
                raise RenderError("no such file", source=label, stage="read")
            size = path.stat().st_size
            if size > opts.max_bytes:
                raise PageTooLarge(f"file is {size} bytes, limit is {opts.max_bytes}",
                                   source=label, stage="read")
            try:
                data = path.read_bytes()
            except OSError as e:  # permissions, I/O errors: one bad input, not a crashed batch
                raise RenderError(f"cannot read file: {e.strerror or e}", source=label,
                                  stage="read") from e
            doc_url = url or path.resolve().as_uri()
            if doc_url.endswith(".gz"):  # serve foo.html.gz as foo.html so relative links work
                doc_url = doc_url[:-3]
        elif isinstance(source, bytes | bytearray | memoryview):
            data = bytes(source)
            if len(data) > opts.max_bytes:
                raise PageTooLarge(f"input is {len(data)} bytes, limit is {opts.max_bytes}",
                                   source=label, stage="read")
            self._counter += 1
            doc_url = url or f"{SYNTHETIC_ORIGIN}/{self._counter}/page.html"
        else:
            raise UnsupportedInput(f"cannot render a {type(source).__name__}: give bytes, a "
                                   "path or an http(s) URL", source=label, stage="read")
        try:
            dec = decode_html(data, encoding, max_bytes=opts.max_bytes)
        except DecodeError as e:
            raise RenderError(str(e), source=label, stage="decode") from e
        _check_node_limit(dec.text, opts.max_nodes, label)
        return _Job(label, doc_url, dec.text.encode("utf-8"),
                    javascript=bool(opts.javascript),
                    offline=opts.offline if opts.offline is not None else True,
                    encoding=dec.encoding, encoding_source=dec.source)

    async def _context(self, javascript: bool, offline: bool) -> Any:
        key = (javascript, offline)
        ctx = self._contexts.get(key)
        if ctx is not None:
            return ctx
        if self._context_lock is None:
            self._context_lock = asyncio.Lock()
        async with self._context_lock:  # concurrent first renders must not make two contexts
            ctx = self._contexts.get(key)
            if ctx is not None:
                return ctx
            ctx = await self._new_context(javascript, offline)
            self._contexts[key] = ctx
            return ctx

    async def _new_context(self, javascript: bool, offline: bool) -> Any:
        opts = self.options
        ctx = await self._browser.new_context(
            java_script_enabled=javascript, bypass_csp=False, service_workers="block",
            viewport={"width": opts.viewport_width, "height": opts.viewport_height},
            user_agent=opts.user_agent, proxy=OFFLINE_PROXY if offline else None)
        documents = self._documents
        served = self._served
        nav_blocked = self._nav_blocked

        def main_frame_page(req: Any) -> Any:
            """The tab when ``req`` is a navigation of its main frame, else None."""
            try:
                frame = req.frame
                return frame.page if frame.parent_frame is None else None
            except Exception:  # noqa: BLE001 - e.g. service-worker requests have no frame
                return None

        async def route(r: Any) -> None:
            req = r.request
            req_url = req.url.split("#", 1)[0]
            try:
                if req.resource_type == "document":
                    tab = main_frame_page(req)
                    body = _take_document(documents.get(req_url), tab)
                    if body is not None:
                        # Each job's document is served once, to its own tab: a reload gets
                        # none (below), a second job of the same URL its own bytes.
                        served.add(tab)
                        await r.fulfill(status=200, body=body,
                                        headers={"content-type": "text/html; charset=utf-8"})
                        return
                    if offline and tab is not None and tab in served:
                        # The page we render must not navigate away: aborting the navigation
                        # shows an error page instead (a <meta http-equiv=refresh> or a script
                        # setting location made the walk fail with "Execution context was
                        # destroyed"), and a local target would replace the page we were given.
                        # 204 No Content means "no navigation": the current document stays.
                        await r.fulfill(status=204, body=b"")
                        blocked = nav_blocked.get(tab)
                        if blocked is not None:
                            blocked.set()
                        return
                if not offline or req_url.startswith(LOCAL_SCHEMES):
                    await r.continue_()
                else:
                    await r.abort("blockedbyclient")
            except Exception:  # noqa: BLE001 - the page may have gone away meanwhile
                pass

        self._route_handlers[(javascript, offline)] = route  # for names ROUTED leaves out
        await ctx.route(ROUTED, route)
        return ctx

    # ------------------------------------------------------------------ rendering
    async def _render_job(self, job: _Job, screenshot: str | None) -> tuple[Page, dict]:
        opts = self.options
        browser = self._browser
        if browser is None or not browser.is_connected():
            await self._restart(browser)
            browser = self._browser
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        key = (job.javascript, job.offline)
        # Scripts (requestAnimationFrame, observers) and screenshots need frames.
        frameless = self._shell and not job.javascript and not screenshot
        crashed = asyncio.Event()
        idle = self._idle_pages.setdefault((*key, frameless), [])
        try:
            # Bounded: when a renderer process dies while its tab is being created, Playwright's
            # new_page() never returns (seen when renderers were killed mid-batch) and the
            # batch hung for good. A browser that cannot open a tab in time is replaced.
            async with asyncio.timeout(min(opts.timeout, OPEN_TIMEOUT)):
                page = await self._open_tab(key, idle, job, crashed, frameless)
        except TimeoutError as e:
            await self._restart(browser)
            raise BrowserCrashed(f"could not open a browser tab within "
                                 f"{min(opts.timeout, OPEN_TIMEOUT):g} s", source=job.label,
                                 stage="open") from e
        on_crash = lambda *_: crashed.set()  # noqa: E731
        page.on("crash", on_crash)
        self._served.discard(page)
        if job.body is not None:
            self._documents.setdefault(job.url, deque()).append((page, job.body))
        doc_route = None
        if job.body is not None and not ROUTED.search(job.url):  # e.g. drawing.svg
            doc_route = re.compile("^" + re.escape(job.url) + "(?:#.*)?$")
            await page.route(doc_route, self._route_handlers[key])
        reusable = False
        stage = "navigate"
        try:
            async with asyncio.timeout(opts.timeout):
                try:
                    await self._navigate(page, job)
                except Exception as e:  # noqa: BLE001
                    err = self._classify(e, job, "navigate", crashed)
                    # A tab whose renderer was killed (while idle, or while it was starting)
                    # fails its navigation with ERR_ABORTED, often before Playwright reports
                    # the crash: retry it once in a new tab (see _render_one).
                    if any(m in str(e) for m in STALE_TAB_ERRORS):
                        err.stale_tab = True
                    raise err from e
                if opts.settle_ms:
                    await page.wait_for_timeout(opts.settle_ms)
                t1 = time.perf_counter()
                timings["browser"] = t1 - t0
                stage = "walk"
                raw = await self._walk(page, job, crashed)
                t2 = time.perf_counter()
                timings["walk"] = t2 - t1
                if screenshot:
                    stage = "screenshot"
                    try:
                        await page.screenshot(path=screenshot, full_page=True,
                                              timeout=opts.timeout * 1000, animations="disabled")
                    except Exception as e:  # noqa: BLE001
                        raise self._classify(e, job, "screenshot", crashed) from e
                # Only a tab without JavaScript is idle once walked: with scripts on, a timer
                # may start an endless loop after the walk, and the next job's navigation in
                # that tab (same renderer) would hang until *its* time limit.
                reusable = not crashed.is_set() and not job.javascript
        except TimeoutError as e:
            raise RenderTimeout(f"page did not render within {opts.timeout:g} s ({stage})",
                                source=job.label, stage="timeout") from e
        finally:
            queue = self._documents.get(job.url)
            if queue is not None and job.body is not None:
                _take_document(queue, page)  # not served: the job failed early
                if not queue:
                    del self._documents[job.url]
            page.remove_listener("crash", on_crash)
            if doc_route is not None:
                with contextlib.suppress(Exception):
                    await page.unroute(doc_route)
            if reusable and self._browser is browser:
                idle.append(page)
            else:
                try:
                    await asyncio.wait_for(page.close(run_before_unload=False), 10)
                except Exception:  # noqa: BLE001 - a hung renderer: replace the browser
                    await self._restart(browser)
        t3 = time.perf_counter()
        page_model = page_from_walk(raw, job, viewport_width=opts.viewport_width)
        timings["model"] = time.perf_counter() - t3
        return page_model, timings

    async def _open_tab(self, key: tuple[bool, bool], idle: list[Any], job: _Job,
                        crashed: asyncio.Event, frameless: bool = False) -> Any:
        ctx = await self._context(*key)
        # Opening a tab costs ~0.2 s, a navigation in an open one far less: keep idle tabs.
        # A tab whose renderer died while idle is dropped (it would fail the next job).
        while idle and idle[-1] in self._crashed:
            stale = idle.pop()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(stale.close(run_before_unload=False), 5)
        if idle:
            return idle.pop()
        try:
            page = await (self._new_frameless_tab(key, ctx) if frameless else ctx.new_page())
        except Exception as e:  # noqa: BLE001 - "Target crashed", "... has been closed"
            raise self._classify(e, job, "open", crashed) from e
        page.on("crash", self._crashed.add)  # the handler gets the page
        return page

    async def _new_frameless_tab(self, key: tuple[bool, bool], ctx: Any) -> Any:
        """A tab of ``ctx`` that produces no frames. Playwright cannot ask for one, so it is
        created over CDP and Playwright adopts it as it adopts a popup (same viewport,
        JavaScript setting, routes and proxy as the context's other tabs)."""
        if self._tab_lock is None:
            self._tab_lock = asyncio.Lock()
        # Serialised: the new tab is the context's next "page" event (a context without
        # JavaScript opens no popups, so no other tab can appear meanwhile).
        async with self._tab_lock:
            ctx_id = self._context_ids.get(key)
            if ctx_id is None:  # Playwright does not tell a context's CDP id; a tab does
                probe = await ctx.new_page()
                try:
                    cdp = await ctx.new_cdp_session(probe)
                    info = await cdp.send("Target.getTargetInfo")
                    ctx_id = self._context_ids[key] = info["targetInfo"]["browserContextId"]
                    await cdp.detach()
                finally:
                    await probe.close()
            async with ctx.expect_page() as event:
                await self._browser_cdp.send("Target.createTarget", {
                    "url": "about:blank", "browserContextId": ctx_id,
                    "enableBeginFrameControl": True})
            page = await event.value
        self._frameless.add(page)
        return page

    async def _navigate(self, page: Any, job: _Job) -> None:
        """``page.goto`` that survives a navigation away being suppressed (see the route).

        When our route answers a navigation away from the page with 204 before "load" (a
        script or a meta refresh redirecting while the page loads), Chromium keeps and finishes
        the document, but Playwright never reports its "load" any more, so a plain goto would
        wait for the full timeout and the page would fail. Then we wait for the document's
        ``readyState`` ourselves.
        """
        opts = self.options
        if page in self._frameless:
            await self._navigate_frameless(page, job)
            return
        blocked = asyncio.Event()
        self._nav_blocked[page] = blocked
        goto = asyncio.ensure_future(page.goto(job.url, wait_until=opts.wait_until,
                                               timeout=opts.timeout * 1000))
        goto.add_done_callback(lambda t: t.cancelled() or t.exception())  # never "unretrieved"
        waiter = asyncio.ensure_future(blocked.wait())
        ready = ("interactive", "complete") if opts.wait_until == "domcontentloaded" \
            else ("complete",)
        try:
            await asyncio.wait({goto, waiter}, return_when=asyncio.FIRST_COMPLETED)
            while not goto.done():
                try:
                    if await page.evaluate("document.readyState") in ready:
                        return
                except Exception as e:  # noqa: BLE001 - between two documents
                    if "context was destroyed" not in str(e):
                        raise
                await asyncio.wait({goto}, timeout=0.05)
            await goto
        finally:
            waiter.cancel()
            goto.cancel()
            self._nav_blocked.pop(page, None)

    async def _navigate_frameless(self, page: Any, job: _Job) -> None:
        """Load ``job`` in a frameless tab. Style and layout run there only when forced, and
        layout is what requests web fonts and starts plugins (an ``<object>`` holds "load"
        until a layout ran), so lay out every LAYOUT_POLL seconds, as a painted tab does on its
        frames, until the document is complete. A navigation away that the route suppressed
        needs no special case here: we watch the document, not Playwright's load event.
        """
        opts = self.options
        ready = ("interactive", "complete") if opts.wait_until in ("domcontentloaded", "commit") \
            else ("complete",)
        await page.goto(job.url, wait_until="commit", timeout=opts.timeout * 1000)
        while True:
            try:
                if await page.evaluate(LAYOUT_JS) in ready:
                    return
            except Exception as e:  # noqa: BLE001 - between two documents
                if "context was destroyed" not in str(e):
                    raise
            await asyncio.sleep(LAYOUT_POLL)

    async def _walk(self, page: Any, job: _Job, crashed: asyncio.Event) -> str:
        """Run walk.js; when a navigation replaces the document meanwhile (a URL's script or
        meta refresh redirecting after "load"), wait for the new one and walk that instead."""
        for attempt in range(3):
            try:
                return await page.evaluate(WALK_JS, {"maxNodes": self.options.max_nodes})
            except Exception as e:  # noqa: BLE001
                if "context was destroyed" not in str(e) or attempt == 2 or crashed.is_set():
                    raise self._classify(e, job, "walk", crashed) from e
                with contextlib.suppress(Exception):
                    await page.wait_for_load_state(self.options.wait_until
                                                   if self.options.wait_until != "commit"
                                                   else "load")
        raise AssertionError("unreachable")

    def _classify(self, e: Exception, job: _Job, stage: str, crashed: asyncio.Event
                  ) -> RenderError:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        low = msg.lower()
        # Playwright: "Target crashed", "Navigation failed because page crashed!", "Target
        # page, context or browser has been closed", "Browser closed."; but a network error
        # such as net::ERR_CONNECTION_CLOSED is the page's own failure, not a crash.
        gone = "net::err_" not in low and ("crash" in low or "closed" in low)
        if crashed.is_set() or gone:
            return BrowserCrashed(msg, source=job.label, stage=stage)
        if "Timeout" in type(e).__name__ or "timeout" in msg.lower():
            return RenderTimeout(msg, source=job.label, stage=stage)
        return RenderError(msg, source=job.label, stage=stage)

    async def _render_one(self, index: int, source: Any, url: str | None,
                          encoding: str | None, screenshot: str | None) -> RenderResult:
        t0 = time.perf_counter()
        label = source_label(source)
        try:
            job = self._resolve(source, url, encoding)
        except RenderError as e:
            return RenderResult(index, label, error=e, seconds=time.perf_counter() - t0)
        if self._shell and self.options.executable_path is None \
                and (job.javascript or screenshot):
            return await self._render_painted(index, source, url, encoding, screenshot, t0)
        for attempt in (0, 1):
            browser = self._browser
            try:
                page, timings = await self._render_job(job, screenshot)
                return RenderResult(index, label, page=page, timings=timings,
                                    seconds=time.perf_counter() - t0)
            except Exception as e:  # noqa: BLE001 - never let one input end a batch
                err = e if isinstance(e, RenderError) else RenderError(
                    f"{type(e).__name__}: {e}", source=label, stage="render")
                # The browser died, or another task is replacing it: any error then (a closed
                # target, an aborted navigation, ...) is not this input's fault.
                dead = browser is None or not browser.is_connected() or browser in self._retired
                if dead:
                    try:
                        await self._restart(browser)
                    except RenderError as launch_error:
                        return RenderResult(index, label, error=launch_error,
                                            seconds=time.perf_counter() - t0)
                # Retry once. A crashed tab (renderer process killed, out of memory) needs no
                # new browser - Chromium starts a new renderer - and restarting it would kill
                # every other page in flight.
                if attempt == 0 and (dead or isinstance(err, BrowserCrashed)
                                     or getattr(err, "stale_tab", False)):
                    continue
                return RenderResult(index, label, error=err, seconds=time.perf_counter() - t0)
        raise AssertionError("unreachable")

    async def _render_painted(self, index: int, source: Any, url: str | None,
                              encoding: str | None, screenshot: str | None,
                              t0: float) -> RenderResult:
        """Render in a second Renderer that runs Chromium (started on first use): this one
        runs the headless shell, whose painted tabs differ from Chromium's."""
        if self._painter_lock is None:
            self._painter_lock = asyncio.Lock()
        async with self._painter_lock:
            if self._painter is None:
                try:
                    painter = Renderer(replace(self.options, frameless=False,
                                               executable_path=find_chromium()))
                    await asyncio.to_thread(painter.start)
                except RenderError as e:
                    return RenderResult(index, source_label(source), error=e,
                                        seconds=time.perf_counter() - t0)
                self._painter = painter
        p = self._painter
        # per-job options (limits, time limit) follow this renderer's, which may change
        p.options = replace(self.options, frameless=False,
                            executable_path=p.options.executable_path)
        return await asyncio.wrap_future(
            p._submit(p._render_one(index, source, url, encoding, screenshot)))

    # ------------------------------------------------------------------ public API
    def render(self, source: bytes | str | os.PathLike, *, url: str | None = None,
               encoding: str | None = None, screenshot: str | os.PathLike | None = None
               ) -> Page:
        """Render one input and return its :class:`Page`; raises :class:`RenderError`.

        ``url`` sets the document URL for byte input (relative links resolve against it);
        ``encoding`` overrides detection; ``screenshot`` also writes a full-page PNG.
        """
        res = self.render_result(source, url=url, encoding=encoding, screenshot=screenshot)
        if res.error is not None:
            raise res.error
        assert res.page is not None
        return res.page

    def render_result(self, source: Any, *, url: str | None = None,
                      encoding: str | None = None,
                      screenshot: str | os.PathLike | None = None) -> RenderResult:
        """Like :meth:`render` but returns a :class:`RenderResult` instead of raising."""
        shot = str(screenshot) if screenshot else None
        return self._call(self._render_one(0, source, url, encoding, shot),
                          timeout=self.options.timeout * 3 + 60)

    def render_many(self, sources: Iterable[Any], concurrency: int = 3, *,
                    encoding: str | None = None) -> Iterator[RenderResult]:
        """Render many inputs with up to ``concurrency`` pages in flight.

        Yields one :class:`RenderResult` per input, in input order, whatever happened to it.
        Inputs are consumed lazily (a bounded window ahead), so an endless iterator is fine.
        Each input is a source (bytes, path or URL) or a :class:`RenderJob` carrying its own
        URL and encoding. ``encoding`` overrides detection for every input without one (for
        collections known to have been transcoded without fixing their meta tags).
        """
        if concurrency < 1:
            raise ValueError("concurrency must be >= 1")
        sem_holder: dict[str, asyncio.Semaphore] = {}

        async def limited(i: int, s: Any) -> RenderResult:
            sem = sem_holder.get("sem")
            if sem is None:
                sem = sem_holder["sem"] = asyncio.Semaphore(concurrency)
            async with sem:
                if isinstance(s, RenderJob):
                    return await self._render_one(i, s.source, s.url, s.encoding or encoding,
                                                  None)
                return await self._render_one(i, s, None, encoding, None)

        window: deque[Future] = deque()
        it = iter(enumerate(sources))
        exhausted = False
        while True:
            while not exhausted and len(window) < 2 * concurrency:
                try:
                    i, s = next(it)
                except StopIteration:
                    exhausted = True
                    break
                window.append(self._submit(limited(i, s)))
            if not window:
                return
            yield window.popleft().result()


def _check_node_limit(text: str, max_nodes: int, label: str) -> None:
    """Refuse a page over the node limit before Chromium sees it: a fast parse counts what the
    walk would (:func:`webseg.parse.count_nodes`), so a 250k-node page is refused in a
    fraction of a second, not after the time limit spent on its layout. Pages with too few
    tags to reach the limit are not parsed at all (:func:`webseg.parse.may_exceed`)."""
    from webseg.parse import count_nodes, may_exceed

    if not max_nodes or not may_exceed(text, max_nodes):
        return
    n = count_nodes(text, stop=max_nodes)
    if n > max_nodes:
        raise PageTooLarge(f"DOM has more than {max_nodes} nodes (at least {n})",
                           source=label, stage="parse")


def page_from_walk(raw: str, job: _Job | None = None, viewport_width: int = 1280) -> Page:
    """Build a :class:`Page` from the JSON string returned by ``walk.js``."""
    d = json.loads(raw)
    label = job.label if job else ""
    if not d.get("ok"):
        if d.get("error") == "too_many_nodes":
            raise PageTooLarge(f"DOM has more than {d['limit']} nodes (at least {d['count']})",
                               source=label, stage="walk")
        raise RenderError(f"page walk failed: {d.get('error')}", source=label, stage="walk")
    meta = {"renderer": "chromium"}
    if job is not None:
        meta.update(javascript=job.javascript, offline=job.offline,
                    encoding_source=job.encoding_source)
    url = d["url"]
    if url.startswith(SYNTHETIC_ORIGIN):
        url = None
    import numpy as np

    n = len(d["parent"])
    return Page(
        parent=np.asarray(d["parent"], dtype=np.int32),
        kind=np.asarray(d["kind"], dtype=np.int8),
        tag=d["tag"], text=d["text"], attrs=[a or {} for a in d["attrs"]],
        box=np.asarray(d["box"], dtype=np.float32).reshape(n, 4),
        bg=np.asarray(d["bg"], dtype=np.uint8).reshape(n, 3),
        color=np.asarray(d["color"], dtype=np.uint8).reshape(n, 4),
        font_size=np.asarray(d["font_size"], dtype=np.float32),
        font_weight=np.asarray(d["font_weight"], dtype=np.int16),
        italic=np.asarray(d["italic"], dtype=bool),
        font_family=np.asarray(d["font_family"], dtype=np.int32),
        font_families=d["font_families"],
        display=np.asarray(d["display"], dtype=np.int32), displays=d["displays"],
        position=np.asarray(d["position"], dtype=np.int32), positions=d["positions"],
        visible=np.asarray(d["visible"], dtype=bool),
        url=url, title=d.get("title", ""),
        encoding=(job.encoding if job and job.encoding else d.get("encoding")),
        width=float(d["width"]), height=float(d["height"]),
        viewport_width=viewport_width, has_layout=True, meta=meta,
        ws_before={int(k): str(v) for k, v in (d.get("ws_before") or {}).items()},
    )


def render(source: bytes | str | os.PathLike, **options: Any) -> Page:
    """Render one input with a throw-away browser (convenient, slow: use :class:`Renderer`)."""
    with Renderer(**options) as r:
        return r.render(source)
