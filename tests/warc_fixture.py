"""A small crawl WARC written the way crawlers write them, for the WARC-semantics tests.

Holds, in order: warcinfo; request + 200 HTML response; request + 301 redirect with an empty
body; 404 HTML page; 500 HTML page; a revisit of the 200 page (identical payload digest); a
metadata record; a 200 image (not HTML); a second 200 HTML page of the same URL as the first
(a re-crawl); and a truncated last 200 HTML response.
"""

from __future__ import annotations

import io
from pathlib import Path

ARTICLE = (b"<html><head><title>Alpha article</title></head><body><nav><a href=/>Home</a> "
           b"<a href=/n>News</a></nav><main><h1>Alpha article</h1><p>"
           + b" ".join(b"alpha%d" % i for i in range(80))
           + b"</p></main><footer>Copyright example</footer></body></html>")
ERROR_PAGE = b"<html><head><title>Not found</title></head><body><h1>Not found</h1></body></html>"
A = "http://example.org/news/alpha"
DATE = "2024-05-01T10:00:00Z"

#: (url, expected status, expected reason fragment) of each line, in input order
EXPECTED = [
    (A, "ok", None),
    ("http://example.org/old", "skipped", "http: 301"),
    ("http://example.org/missing", "skipped", "http: 404"),
    ("http://example.org/broken", "skipped", "http: 500"),
    (A, "skipped", "revisit"),
    ("http://example.org/logo.png", "skipped", "image/png"),
    (A, "ok", None),
    ("http://example.org/news/cut", "error", "truncated"),
]


def write_crawl_warc(path: Path, gz: bool = False, truncate: bool = True) -> Path:
    """Write the crawl WARC to ``path`` (uncompressed by default, so it can be cut);
    ``truncate=False`` keeps the last record whole (a healthy crawl: nothing fails)."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    buf = io.BytesIO()
    w = WARCWriter(buf, gzip=gz)
    w.write_record(w.create_warcinfo_record(path.name, {"software": "webseg-tests"}))

    def request(url: str) -> None:
        h = StatusAndHeaders(f"GET {url.split('example.org', 1)[1] or '/'} HTTP/1.1",
                             [("Host", "example.org")], is_http_request=True)
        w.write_record(w.create_warc_record(url, "request", payload=io.BytesIO(b""),
                                            http_headers=h))

    def response(url: str, status: str, body: bytes, ctype: str = "text/html; charset=utf-8",
                 extra: list[tuple[str, str]] | None = None, date: str = DATE) -> None:
        h = StatusAndHeaders(status, [("Content-Type", ctype), *(extra or [])],
                             protocol="HTTP/1.1")
        rec = w.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=h,
                                   warc_headers_dict={"WARC-Date": date})
        w.write_record(rec)
        return rec

    request(A)
    first = response(A, "200 OK", ARTICLE)
    request("http://example.org/old")
    response("http://example.org/old", "301 Moved Permanently", b"",
             extra=[("Location", A)])
    response("http://example.org/missing", "404 Not Found", ERROR_PAGE)
    response("http://example.org/broken", "500 Internal Server Error", ERROR_PAGE)
    digest = first.rec_headers.get_header("WARC-Payload-Digest")
    rv = w.create_revisit_record(A, digest, A, DATE,
                                 http_headers=StatusAndHeaders(
                                     "200 OK", [("Content-Type", "text/html")],
                                     protocol="HTTP/1.1"))
    rv.rec_headers.add_header("WARC-Refers-To", first.rec_headers.get_header("WARC-Record-ID"))
    w.write_record(rv)
    w.write_record(w.create_warc_record(A, "metadata", payload=io.BytesIO(b"outlinks: 2\r\n"),
                                        warc_content_type="application/warc-fields"))
    response("http://example.org/logo.png", "200 OK", b"\x89PNG\r\n\x1a\n" + b"\0" * 40,
             ctype="image/png")
    response(A, "200 OK", ARTICLE, date="2024-06-01T10:00:00Z")
    response("http://example.org/news/cut", "200 OK", ARTICLE)
    data = buf.getvalue()
    # the last record loses its tail: a truncated download
    path.write_bytes(data[:-200] if truncate else data)
    return path
