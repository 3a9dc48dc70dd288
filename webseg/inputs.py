"""Input records for the batch commands: pages on disk, WARC files, URL lists and URLs.

The application layers (index, dedup, classify, pipeline) all start from "whatever the user
pointed at". :func:`iter_inputs` turns command-line arguments into a stream of
:class:`InputRecord` objects, one per page, in a deterministic order, and
:func:`render_inputs` renders that stream in a batch. Two rules hold throughout:

* **Nothing is dropped silently.** An input that cannot be read (missing file, corrupt WARC,
  a WARC response that is not HTML, a malformed URL line) becomes a record with ``error`` set,
  so a caller writes one result per record and can report what failed.
* **Local bytes render offline.** Files and WARC payloads are served to Chromium from memory
  under their own URL (the WARC ``WARC-Target-URI``), so relative links resolve but no request
  leaves the machine (see :mod:`webseg.render`). Only explicit http(s) URLs use the network.

Record ids are stable across runs (file path; ``warc-path#byte-offset``; the URL), which is
what resumable jobs key on.
"""

from __future__ import annotations

import gzip
import zlib
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal

from webseg.page import Page

__all__ = ["HTML_SUFFIXES", "WARC_SUFFIXES", "URL_LIST_SUFFIXES", "InputRecord", "iter_inputs",
           "iter_warc", "iter_warc_stream", "render_inputs"]

HTML_SUFFIXES = (".html", ".htm", ".xhtml", ".html.gz", ".htm.gz", ".xhtml.gz")
WARC_SUFFIXES = (".warc", ".warc.gz")
URL_LIST_SUFFIXES = (".txt", ".urls")
#: Largest WARC payload read into memory; bigger records become error records.
MAX_PAYLOAD_BYTES = 32 * 1024 * 1024
_HTML_TYPES = ("text/html", "application/xhtml+xml", "application/xml", "text/xml", "text/plain")

Kind = Literal["file", "warc", "url"]


@dataclass(frozen=True)
class InputRecord:
    """One page to process.

    ``source`` is what to render: a :class:`~pathlib.Path` for a file on disk (read lazily by
    the renderer, with its size limit), ``bytes`` for a WARC payload, a ``str`` URL for URL
    input; ``None`` when ``error`` is set. ``url`` is the page's address where known.
    ``skipped`` marks records that are not pages at all (a WARC response carrying an image,
    script or PDF): they have an ``error`` saying why, and batch jobs count them apart from
    failures.
    """

    id: str
    url: str | None
    source: bytes | str | Path | None
    kind: Kind
    error: str | None = None
    skipped: bool = False

    def read_bytes(self) -> bytes:
        """The page bytes for local input (files are gunzipped when named ``*.gz``).

        For callers that need the raw HTML without rendering (text-only fallbacks, hashing).
        """
        if self.error is not None:
            raise ValueError(f"{self.id}: {self.error}")
        if isinstance(self.source, bytes):
            return self.source
        if isinstance(self.source, Path):
            data = self.source.read_bytes()
            return gzip.decompress(data) if self.source.name.endswith(".gz") else data
        raise ValueError(f"{self.id}: URL input has no local bytes; render it")


def _is_url(s: str) -> bool:
    return s.startswith(("http://", "https://"))


def iter_inputs(paths: Sequence[str | Path]) -> Iterator[InputRecord]:
    """Expand command-line inputs into page records, in a deterministic order.

    * a directory: every HTML page (``*.html``, ``*.htm``, ``*.xhtml``, optionally ``.gz``) and
      every WARC file (``*.warc``, ``*.warc.gz``) under it, recursively, sorted by path;
    * a WARC file: one record per HTTP response (or resource) record in it;
    * a ``.txt`` / ``.urls`` file: one http(s) URL per line (blank lines and ``#`` comments
      skipped; any other line becomes an error record);
    * an http(s) URL;
    * any other existing file is taken as one HTML page.

    A path that does not exist becomes an error record.
    """
    for arg in paths:
        s = str(arg)
        if _is_url(s):
            yield InputRecord(id=s, url=s, source=s, kind="url")
            continue
        p = Path(s)
        if p.is_dir():
            for f in sorted(q for q in p.rglob("*") if q.is_file()):
                name = f.name.lower()
                if name.endswith(WARC_SUFFIXES):
                    yield from iter_warc(f)
                elif name.endswith(HTML_SUFFIXES):
                    yield InputRecord(id=str(f), url=None, source=f, kind="file")
        elif p.is_file():
            name = p.name.lower()
            if name.endswith(WARC_SUFFIXES):
                yield from iter_warc(p)
            elif name.endswith(URL_LIST_SUFFIXES):
                yield from _iter_url_list(p)
            else:
                yield InputRecord(id=str(p), url=None, source=p, kind="file")
        else:
            yield InputRecord(id=s, url=None, source=None, kind="file",
                              error="read: no such file or directory")


def _iter_url_list(path: Path) -> Iterator[InputRecord]:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as e:
        yield InputRecord(id=str(path), url=None, source=None, kind="url",
                          error=f"read: cannot read URL list: {e.strerror or e}")
        return
    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if _is_url(line):
            yield InputRecord(id=line, url=line, source=line, kind="url")
        else:
            yield InputRecord(id=f"{path}:{n}", url=None, source=None, kind="url",
                              error=f"read: not an http(s) URL: {line[:200]!r}")


def iter_warc(path: str | Path) -> Iterator[InputRecord]:
    """One record per ``response`` (and ``resource``) record of a WARC / WARC.gz file.

    The id is ``<path>#<byte offset of the record>``, stable across runs. The HTTP payload is
    de-chunked and content-decoded by warcio. Responses whose Content-Type is not HTML-like
    (images, scripts, PDFs) become error records rather than disappearing, and so do payloads
    over :data:`MAX_PAYLOAD_BYTES`. A corrupt or truncated WARC yields the records read so far
    and then one error record for the rest of the file.
    """
    path = Path(path)
    try:
        stream = path.open("rb")
    except OSError as e:
        yield InputRecord(id=str(path), url=None, source=None, kind="warc",
                          error=f"read: cannot open WARC: {e.strerror or e}")
        return
    with stream:
        yield from iter_warc_stream(stream, str(path))


def iter_warc_stream(stream: BinaryIO, name: str) -> Iterator[InputRecord]:
    """:func:`iter_warc` over an open binary stream; ids are ``<name>#<offset>``."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.exceptions import ArchiveLoadFailed

    it = ArchiveIterator(stream)
    offset = 0
    try:
        for record in it:
            if not record.format.startswith("warc"):  # warcio sniffs ARC on any garbage
                yield InputRecord(id=f"{name}#{offset}", url=None, source=None,
                                  kind="warc", error="read: not a WARC file")
                return
            if record.rec_type not in ("response", "resource"):
                it.read_to_end(record)
                offset = it.get_record_offset() + it.get_record_length()
                continue
            url = record.rec_headers.get_header("WARC-Target-URI")
            page = _warc_page(record, url)  # reads the payload: offsets come after
            rid = f"{name}#{it.get_record_offset()}"
            offset = it.get_record_offset() + it.get_record_length()
            yield InputRecord(id=rid, url=url, kind="warc", **page)
    except (ArchiveLoadFailed, OSError, EOFError, ValueError, zlib.error) as e:
        yield InputRecord(id=f"{name}#{offset}", url=None, source=None, kind="warc",
                          error=f"read: WARC unreadable after offset {offset}: {e}")


def _warc_page(record: Any, url: str | None) -> dict[str, Any]:
    """``source`` and ``error`` of one response/resource record (reads its payload)."""
    if record.rec_type == "response" and record.http_headers is not None:
        ctype = record.http_headers.get_header("Content-Type") or ""
    else:
        ctype = record.rec_headers.get_header("Content-Type") or ""
    mime = ctype.split(";")[0].strip().lower()
    if mime and not mime.startswith(_HTML_TYPES):
        return {"source": None, "error": f"read: not an HTML response (Content-Type {mime})",
                "skipped": True}
    payload = record.content_stream().read(MAX_PAYLOAD_BYTES + 1)
    if len(payload) > MAX_PAYLOAD_BYTES:
        return {"source": None, "error": f"read: payload larger than {MAX_PAYLOAD_BYTES} bytes"}
    if record.http_headers is not None and "charset=" in ctype.lower():
        # Keep the HTTP charset (it outranks a meta tag): webseg.decode reads a response header
        # block in front of the body. Only Content-Type is passed on, because warcio has
        # already undone the transfer and content encodings.
        head = f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\n\r\n"
        payload = head.encode("latin-1", "replace") + payload
    return {"source": payload, "error": None}


def render_inputs(records: Iterable[InputRecord], concurrency: int = 3, *,
                  renderer: Any = None, **renderer_options: Any
                  ) -> Iterator[tuple[InputRecord, Page | None, str | None]]:
    """Render a stream of records in one batch; yield ``(record, page, error)`` in order.

    Exactly one tuple per record. Records that already carry an error pass through with it;
    render failures come back as ``"<stage>: <reason>"``. ``renderer`` reuses an open
    :class:`~webseg.render.Renderer`; otherwise one is started with ``renderer_options``.
    """
    from webseg.render import Renderer, RenderJob

    order: deque[InputRecord] = deque()

    def jobs() -> Iterator[RenderJob]:
        for rec in records:
            order.append(rec)
            if rec.error is None:
                yield RenderJob(rec.source, url=rec.url if rec.kind == "warc" else None)

    def drain_errors() -> Iterator[tuple[InputRecord, None, str]]:
        while order and order[0].error is not None:
            rec = order.popleft()
            yield rec, None, rec.error or ""

    own = renderer is None
    r = Renderer(**renderer_options) if own else renderer
    try:
        if own:
            r.__enter__()
        for res in r.render_many(jobs(), concurrency):
            yield from drain_errors()
            rec = order.popleft()
            if res.page is not None:
                if rec.url and not res.page.url:
                    res.page.url = rec.url
                yield rec, res.page, None
            else:
                err = res.error
                stage = getattr(err, "stage", "render")
                yield rec, None, f"{stage}: {getattr(err, 'reason', None) or err}"
        yield from drain_errors()
    finally:
        if own:
            r.__exit__(None, None, None)
