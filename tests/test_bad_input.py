"""Bad input never hangs and never passes silently: every input gives a valid Page or a
RenderError subclass that names the problem and the stage where it was found."""

from __future__ import annotations

import dataclasses
import gzip
import random
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import RENDER_TIMEOUT
from webseg.page import Page
from webseg.parse import PARSERS, parse
from webseg.render import (
    PageTooLarge,
    Renderer,
    RenderError,
    RenderTimeout,
    UnsupportedInput,
)


def leaf_texts(page: Page) -> list[str]:
    return [page.leaf_text(i) for i in page.text_leaves]


def render_error(renderer: Renderer, source, **kw) -> RenderError:
    with pytest.raises(RenderError) as info:
        renderer.render(source, **kw)
    err = info.value
    assert err.stage, "every error says at which stage it happened"
    assert err.reason and str(err).startswith(err.source)
    return err


# --------------------------------------------------------------------------- not HTML


@pytest.mark.browser
@pytest.mark.parametrize("data", [b"", b"   \r\n\t  \n"], ids=["empty", "whitespace"])
def test_empty_input(renderer: Renderer, data: bytes) -> None:
    err = render_error(renderer, data)
    assert err.stage == "decode" and "empty" in err.reason
    assert err.source == f"<{len(data)} bytes>"


@pytest.mark.browser
def test_empty_file(renderer: Renderer, tmp_path: Path) -> None:
    path = tmp_path / "empty.html"
    path.write_bytes(b"")
    err = render_error(renderer, path)
    assert err.stage == "decode" and "empty" in err.reason and err.source == str(path)


@pytest.mark.browser
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_bytes(renderer: Renderer, seed: int) -> None:
    data = random.Random(seed).randbytes(20_000)
    err = render_error(renderer, data)
    assert err.stage == "decode" and "binary" in err.reason


@pytest.mark.browser
def test_png(renderer: Renderer) -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4
    err = render_error(renderer, png)
    assert err.stage == "decode" and "PNG" in err.reason


@pytest.mark.browser
def test_unsupported_input_type(renderer: Renderer) -> None:
    with pytest.raises(TypeError):  # UnsupportedInput is a TypeError ...
        renderer.render(12345)  # type: ignore[arg-type]
    err = render_error(renderer, None)  # ... and a RenderError
    assert isinstance(err, UnsupportedInput) and "NoneType" in err.reason


@pytest.mark.browser
def test_missing_and_directory_paths(renderer: Renderer, tmp_path: Path) -> None:
    for path in (tmp_path / "nope.html", tmp_path):
        err = render_error(renderer, path)
        assert err.stage == "read" and "no such file" in err.reason and str(path) in str(err)
    err = render_error(renderer, (tmp_path / "nope.html").as_uri())
    assert err.stage == "read"


# --------------------------------------------------------------------------- encodings


WESTERN = ("<html><head><title>Crème brûlée</title></head><body>"
           "<p>Le café est très bon. Où est la bibliothèque? Ça coûte cher.</p>"
           "<p>Über die Brücke gehen Mädchen schön früh; Straße, Größe.</p>"
           "<p>Señor Muñoz, ¿qué tal? Naïve façade.</p></body></html>")


@pytest.mark.browser
@pytest.mark.parametrize("codec", ["latin-1", "cp1252"])
def test_undeclared_western_page(renderer: Renderer, codec: str) -> None:
    page = renderer.render(WESTERN.encode(codec))
    assert leaf_texts(page) == [
        "Le café est très bon. Où est la bibliothèque? Ça coûte cher.",
        "Über die Brücke gehen Mädchen schön früh; Straße, Größe.",
        "Señor Muñoz, ¿qué tal? Naïve façade."]
    assert page.title == "Crème brûlée"


@pytest.mark.browser
@pytest.mark.parametrize("text", [
    "café naïve über",
    "Le café est très bon. Où est la bibliothèque? Ça coûte cher, naïve idée déjà vue.",
])
def test_undeclared_short_latin1_text(renderer: Renderer, text: str) -> None:
    page = renderer.render(f"<html><body><p>{text}</p></body></html>".encode("latin-1"))
    assert leaf_texts(page) == [text]


# --------------------------------------------------------------------------- size limits


@pytest.mark.browser
def test_ten_megabyte_page(renderer: Renderer) -> None:
    # ~10 MB in 2,000 paragraphs of 5 kB: the cost is Chromium parsing and laying out the
    # bytes (seconds on a loaded machine), not our walk.
    words = b"lorem ipsum dolor sit amet %d " * 170
    paragraphs = [b"<p>" + words.replace(b"%d", b"%d" % i) + b"</p>\n" for i in range(2000)]
    data = b"<html><body>" + b"".join(paragraphs) + b"</body></html>"
    assert len(data) > 10_000_000
    t0 = time.perf_counter()
    res = renderer.render_result(data)
    seconds = time.perf_counter() - t0
    # bounded by the per-page limit (plus closing the tab): never a hang
    assert seconds < renderer.options.timeout + 15
    if res.ok:
        assert len(res.page.text_leaves) == 2000
        assert res.page.leaf_text(int(res.page.text_leaves[-1])).startswith("lorem ipsum")
    else:
        assert isinstance(res.error, PageTooLarge | RenderTimeout), res.error


@pytest.mark.browser
def test_max_bytes(renderer_options, tmp_path: Path) -> None:
    data = b"<p>" + b"x" * 5000 + b"</p>"
    path = tmp_path / "big.html"
    path.write_bytes(data)
    with renderer_options(max_bytes=1000) as r:
        for source in (data, path):
            err = render_error(r, source)
            assert isinstance(err, PageTooLarge) and err.stage == "read"
            assert "1000" in err.reason and str(len(data)) in err.reason
        assert r.render(b"<p>small</p>").n > 0
    # a gzip bomb is stopped while decompressing, without inflating it all
    bomb = gzip.compress(b"<p>" + b"a" * 10_000_000, compresslevel=9)
    assert len(bomb) < 20_000
    with renderer_options(max_bytes=20_000) as r:
        err = render_error(r, bomb)
        assert err.stage == "decode" and "exceeds 20000" in err.reason


@pytest.mark.browser
def test_max_nodes(renderer_options) -> None:
    data = b"<html><body>" + b"<p>para</p>" * 300 + b"</body></html>"  # 300 p + 300 text
    with renderer_options(max_nodes=500) as r:
        err = render_error(r, data)
        # refused by the fast parse before Chromium lays anything out
        assert isinstance(err, PageTooLarge) and err.stage == "parse"
        assert "more than 500 nodes" in err.reason
    with renderer_options(max_nodes=700) as r:
        assert r.render(data).n == 3 + 600  # html, head, body; 300 p with their text


@pytest.mark.browser
def test_max_nodes_counts_text_nodes(renderer_options) -> None:
    # 200 elements but 400 nodes: a limit of 300 must stop it before the (slow) walk
    data = b"<html><body>" + b"<p>text</p>" * 200 + b"</body></html>"
    with renderer_options(max_nodes=300) as r:
        err = render_error(r, data)
        assert isinstance(err, PageTooLarge)


@pytest.mark.browser
def test_node_limit_is_checked_before_the_browser(renderer_options) -> None:
    """A 250k-node page is refused by the pre-render count with the documented message (not
    after the time limit spent in Chromium); a page that builds its nodes with scripts, which
    no parse can see, is still stopped by the walk's own count."""
    data = b"<html><body>" + b"<p>para</p>" * 125_000 + b"</body></html>"
    with renderer_options(timeout=60) as r:
        err = render_error(r, data)
    assert isinstance(err, PageTooLarge) and err.stage == "parse"
    assert err.reason.startswith("DOM has more than 200000 nodes (at least 200001)")
    script = (b"<html><body><script>for (let i = 0; i < 400; i++) document.body"
              b".appendChild(document.createElement('p')).textContent = 'x';</script>")
    with renderer_options(max_nodes=300, javascript=True) as r:
        err = render_error(r, script)
    assert isinstance(err, PageTooLarge) and err.stage == "walk"


# --------------------------------------------------------------------------- deep DOM


DEEP = b"<html><body>" + b"<div>" * 5000 + b"deep text" + b"</div>" * 5000 + b"</body></html>"


@pytest.mark.browser
def test_deep_nesting_renders(renderer: Renderer) -> None:
    page = renderer.render(DEEP)
    assert page.tag.count("div") == 5000
    assert leaf_texts(page) == ["deep text"]
    # Chromium's parser stops nesting at depth 512 and adds deeper elements as siblings
    assert 500 <= page.depth.max() <= 520
    assert page.find_xpath(page.xpaths[int(page.text_leaves[0])]) == page.text_leaves[0]


@pytest.mark.parametrize("parser", PARSERS)
def test_deep_nesting_parses(parser: str) -> None:
    limit = sys.getrecursionlimit()
    page = parse(DEEP, parser=parser)  # iterative: no RecursionError however deep the tree
    assert sys.getrecursionlimit() == limit
    assert page.tag.count("div") == 5000
    assert leaf_texts(page) == ["deep text"]
    assert 500 <= page.depth.max() <= 520  # Chromium's depth cap, emulated
    assert len(page.xpaths) == page.n


# --------------------------------------------------------------------------- offline policy


def network_page(url: str) -> bytes:
    """A page whose every kind of resource points at ``url`` (and at a name that never
    resolves); also meta refresh and preconnect, which used to escape the offline policy."""
    return f"""<!DOCTYPE html><html><head>
<link rel="stylesheet" href="{url}/style.css"><link rel="preconnect" href="{url}">
<link rel="dns-prefetch" href="{url}"><link rel="prefetch" href="{url}/prefetch">
<link rel="preload" as="image" href="{url}/preload.png"><link rel="icon" href="{url}/fav.ico">
<script src="{url}/script.js"></script>
<style>@import url("{url}/import.css"); body {{ background: url({url}/bg.png) }}
@font-face {{ font-family: web; src: url({url}/font.woff) }} p {{ font-family: web }}</style>
<meta http-equiv="refresh" content="0; url={url}/refresh">
</head><body><p>offline text</p>
<img src="{url}/img.png"><img srcset="{url}/srcset.png 2x"><iframe src="{url}/frame"></iframe>
<video src="{url}/video.mp4" autoplay></video><audio src="{url}/audio.mp3" preload="auto"></audio>
<object data="{url}/object"></object><embed src="{url}/embed">
<svg><image href="{url}/svg.png"/></svg><input type="image" src="{url}/input.png">
<img src="http://example.invalid/x.png"><iframe src="http://example.invalid/"></iframe>
<script>
  fetch("{url}/fetch"); navigator.sendBeacon("{url}/beacon", "x");
  try {{ new WebSocket("{url.replace("http", "ws")}/ws"); }} catch (e) {{}}
  setTimeout(() => {{ location.href = "{url}/script-redirect"; }}, 0);
</script>
</body></html>""".encode()


@pytest.mark.browser
@pytest.mark.parametrize("javascript", [False, True], ids=["js-off", "js-on"])
def test_local_input_never_reaches_the_network(renderer_options, http_server, tmp_path: Path,
                                               javascript: bool) -> None:
    html = network_page(http_server.url)
    path = tmp_path / "net.html"
    path.write_bytes(html)
    # Blocked resources fail at once; were they waited for, the render would end in a
    # RenderTimeout (raised by render). No wall-clock bound: the CI machine is busy.
    with renderer_options(javascript=javascript, timeout=20) as r:
        for source in (html, path):
            page = r.render(source)
            # the page itself stays: no error page, no redirect target
            assert leaf_texts(page) == ["offline text"]
            assert page.meta["offline"] is True
        time.sleep(0.5)  # let any late connection arrive
    assert http_server.requests == []
    assert http_server.connections == 0


@pytest.mark.browser
def test_meta_refresh_to_local_file_keeps_the_page(renderer: Renderer, tmp_path: Path) -> None:
    (tmp_path / "other.html").write_bytes(b"<p>other page</p>")
    path = tmp_path / "start.html"
    path.write_bytes(b'<meta http-equiv="refresh" content="0; url=other.html"><p>start page</p>')
    page = renderer.render(path)
    assert leaf_texts(page) == ["start page"] and page.url == path.resolve().as_uri()


# --------------------------------------------------------------------------- scripts


LOOP = b"<html><body><p>before</p><script>while (true) {}</script><p>after</p></body></html>"
AFTER_LOAD_LOOP = b"<body onload='setTimeout(() => { while (true) {} }, 200)'><p>quick</p></body>"


@pytest.mark.browser
def test_endless_script_times_out_and_browser_survives(own_renderer) -> None:
    r = own_renderer(javascript=True, timeout=3)
    t0 = time.perf_counter()
    with pytest.raises(RenderTimeout) as info:
        r.render(LOOP)
    assert time.perf_counter() - t0 < 3 + 30  # the limit, plus a busy machine's slack
    assert info.value.stage == "timeout" and "3 s" in info.value.reason
    # the pages below must load: give them a busy machine's time limit
    r.options = dataclasses.replace(r.options, timeout=RENDER_TIMEOUT)
    # the same renderer, the same browser, still works
    assert leaf_texts(r.render(b"<p>normal page</p>")) == ["normal page"]
    # A loop that starts after "load" either catches the walk (a timeout) or not (a page);
    # either way it must not hang the next page, e.g. by leaving a busy tab for reuse.
    res = r.render_result(AFTER_LOAD_LOOP)
    assert res.ok or isinstance(res.error, RenderTimeout)
    time.sleep(0.3)
    assert leaf_texts(r.render(b"<p>next page</p>")) == ["next page"]
    assert r.restarts == 0


@pytest.mark.browser
def test_script_loop_cannot_run_with_javascript_off(renderer: Renderer) -> None:
    assert leaf_texts(renderer.render(LOOP)) == ["before", "after"]  # the default for bytes


# --------------------------------------------------------------------------- URLs


@pytest.mark.browser
def test_unreachable_url(renderer: Renderer, closed_port: int) -> None:
    url = f"http://127.0.0.1:{closed_port}/page.html"
    t0 = time.perf_counter()
    err = render_error(renderer, url)
    assert time.perf_counter() - t0 < renderer.options.timeout  # refused, not timed out
    assert err.stage == "navigate" and not isinstance(err, RenderTimeout)
    assert "ERR_CONNECTION_REFUSED" in err.reason and err.source == url


# --------------------------------------------------------------------------- batches


@pytest.mark.browser
def test_batch_reports_every_failure_in_order(renderer: Renderer, tmp_path: Path,
                                              closed_port: int) -> None:
    good = tmp_path / "good.html"
    good.write_bytes(b"<p>good file</p>")
    sources = [
        b"<p>one</p>",
        b"",
        random.Random(7).randbytes(4096),
        tmp_path / "missing.html",
        good,
        f"http://127.0.0.1:{closed_port}/",
        None,
        b"<p>two</p>",
    ]
    expected = [None, "decode", "decode", "read", None, "navigate", "read", None]
    results = list(renderer.render_many(sources, concurrency=3))
    assert [r.index for r in results] == list(range(len(sources)))
    assert [r.error.stage if r.error else None for r in results] == expected
    assert [leaf_texts(r.page) for r in results if r.ok] == [["one"], ["good file"], ["two"]]
    for r in results:
        assert r.ok or (isinstance(r.error, RenderError) and r.error.reason)


@pytest.mark.browser
@pytest.mark.parametrize("behaviour", ["close", "silent"])
def test_misbehaving_server(renderer_options, behaviour: str) -> None:
    """A server that closes every connection fails at once (and is not mistaken for a browser
    crash); one that accepts and never answers hits the time limit instead of hanging."""
    import socket
    import threading

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    held: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            if behaviour == "close":
                conn.close()
            else:
                held.append(conn)

    threading.Thread(target=serve, daemon=True).start()
    url = f"http://127.0.0.1:{srv.getsockname()[1]}/"
    try:
        with renderer_options(timeout=3) as r:
            t0 = time.perf_counter()
            err = render_error(r, url)
            assert time.perf_counter() - t0 < 3 + 30  # the limit, plus a busy machine's slack
    finally:
        srv.close()
        for conn in held:
            conn.close()
    if behaviour == "close":
        assert type(err) is RenderError and err.stage == "navigate"
        assert "net::ERR_" in err.reason  # EMPTY_RESPONSE, SOCKET_NOT_CONNECTED, ...
    else:
        assert isinstance(err, RenderTimeout)
