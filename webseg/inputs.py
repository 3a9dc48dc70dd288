"""Input records for the batch commands: pages on disk, WARC files, URL lists and URLs.

The application layers (index, dedup, classify, pipeline) all start from "whatever the user
pointed at". :func:`iter_inputs` turns command-line arguments into a stream of
:class:`InputRecord` objects, one per page, in a deterministic order, and
:func:`render_inputs` renders that stream in a batch. Two rules hold throughout:

* **Nothing is dropped silently.** An input that cannot be read (missing file, corrupt or
  truncated WARC, a malformed URL line) becomes a record with ``error`` set, and so does one
  that is not a page (a WARC response that is not HTML, wget's metadata records, a WARC of
  requests only: ``skipped``), so a caller writes one result per record and can say why.
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
WARC_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz")
URL_LIST_SUFFIXES = (".txt", ".urls")
#: URI schemes of WARC records that are web pages; others (wget's ``metadata://`` log and
#: arguments, ``dns:`` lookups, ``urn:`` records) are not pages and are skipped.
PAGE_SCHEMES = ("http", "https", "file")
#: Largest WARC payload read into memory; bigger records become error records.
MAX_PAYLOAD_BYTES = 32 * 1024 * 1024
_HTML_TYPES = ("text/html", "application/xhtml+xml", "application/xml", "text/xml", "text/plain")

Kind = Literal["file", "warc", "url", "page"]


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
    """One record per ``response`` (and ``resource``) record of a WARC / WARC.gz / ARC file.

    The id is ``<path>#<byte offset of the record>``, stable across runs. The HTTP payload is
    de-chunked and content-decoded by warcio. Records that are not pages are ``skipped`` with
    the reason (a Content-Type that is not HTML-like: images, scripts, PDFs; a target URI that
    is not http(s) or file, such as wget's ``metadata://`` log records), and a WARC without any
    page record yields one skipped record saying what it holds. Payloads over
    :data:`MAX_PAYLOAD_BYTES` are errors. A corrupt or truncated WARC yields the records read
    so far and then one error record naming the offset where reading stopped.
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
    """:func:`iter_warc` over an open binary stream; ids are ``<name>#<offset>``.

    A WARC with no page records at all (only ``request`` records, say) yields one skipped
    record that says what it holds, so it never passes in silence. A gzip WARC written as one
    gzip stream instead of one member per record (which warcio refuses) is read through a
    decompressor when the stream can seek; offsets are then positions in the uncompressed
    WARC (the first record, at 0, has the same id both ways).
    """
    seen: dict[str, int] = {}
    pages = 0
    yielded: set[str] = set()
    try:
        for rec in _warc_records(stream, name, seen):
            yielded.add(rec.id)
            pages += 1
            yield rec
    except _NotChunked as e:
        if not _rewind(stream):
            yield InputRecord(id=f"{name}#{e.offset}", url=None, source=None, kind="warc",
                              error=f"read: {_NOT_CHUNKED}")
            return
        with gzip.GzipFile(fileobj=stream) as plain:
            try:
                for rec in _warc_records(plain, name, seen):  # type: ignore[arg-type]
                    if rec.id not in yielded:
                        pages += 1
                        yield rec
            except _NotChunked:  # cannot happen on a plain stream; kept for the type checker
                return
    if not pages:
        held = ", ".join(f"{n} {t}" for t, n in sorted(seen.items())) or "no records"
        yield InputRecord(id=name, url=None, source=None, kind="warc", skipped=True,
                          error=f"read: WARC holds no pages (no response or resource records; "
                                f"it has {held})")


_NOT_CHUNKED = ("gzip WARC is one gzip stream, not one gzip member per record (fix it with "
                "`warcio recompress IN OUT`)")


class _NotChunked(Exception):
    def __init__(self, offset: int) -> None:
        self.offset = offset


def _rewind(stream: BinaryIO) -> bool:
    try:
        stream.seek(0)
        return True
    except (OSError, AttributeError, ValueError):
        return False


def _warc_records(stream: BinaryIO, name: str, seen: dict[str, int]) -> Iterator[InputRecord]:
    """Page records of one WARC/ARC stream; ``seen`` counts every record type met."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.exceptions import ArchiveLoadFailed

    arc = name.lower().endswith((".arc", ".arc.gz"))  # ARC only by name: warcio takes any
    it = ArchiveIterator(stream, arc2warc=arc)            # garbage for an ARC header
    offset = 0  # where the next record starts: the last good position for error messages

    def advance() -> None:
        nonlocal offset
        end = it.get_record_offset() + it.get_record_length()
        offset = max(offset, end)  # warcio reports negative lengths on some broken files

    try:
        for record in it:
            if not record.format.startswith(("warc", "arc") if arc else "warc"):
                seen[record.format] = seen.get(record.format, 0) + 1
                yield InputRecord(id=f"{name}#{offset}", url=None, source=None,
                                  kind="warc", error="read: not a WARC file")
                return
            seen[record.rec_type] = seen.get(record.rec_type, 0) + 1
            if record.rec_type not in ("response", "resource"):
                it.read_to_end(record)
                if _missing(record):
                    yield _truncated(name, it, record)
                    return
                advance()
                continue
            url = record.rec_headers.get_header("WARC-Target-URI")
            rid = None
            scheme = url.split(":", 1)[0].lower() if url and ":" in url else None
            if scheme is not None and scheme not in PAGE_SCHEMES:
                it.read_to_end(record)
                page: dict[str, Any] = {
                    "source": None, "skipped": True,
                    "error": f"read: not a web page (WARC-Target-URI scheme {scheme}:)"}
            else:
                page = _warc_page(record, url)  # reads the payload: offsets come after
            it.read_to_end(record)
            if _missing(record):
                yield _truncated(name, it, record)
                return
            rid = f"{name}#{max(it.get_record_offset(), 0)}"
            advance()
            yield InputRecord(id=rid, url=url, kind="warc", **page)
    except ArchiveLoadFailed as e:
        if "non-chunked gzip" in str(e):
            raise _NotChunked(offset) from None
        yield _unreadable(name, offset, e)
    except (OSError, EOFError, ValueError, zlib.error) as e:
        yield _unreadable(name, offset, e)


def _missing(record: Any) -> int:
    """Bytes of the record's block that the file did not hold (a truncated last record)."""
    return max(int(getattr(record.raw_stream, "limit", 0) or 0), 0)


def _truncated(name: str, it: Any, record: Any) -> InputRecord:
    off = max(it.get_record_offset(), 0)
    return InputRecord(id=f"{name}#{off}", url=record.rec_headers.get_header("WARC-Target-URI"),
                       source=None, kind="warc",
                       error=f"read: WARC truncated: the {record.rec_type} record at offset "
                             f"{off} lacks its last {_missing(record)} bytes")


def _unreadable(name: str, offset: int, e: Exception) -> InputRecord:
    msg = " ".join(str(e).split()) or type(e).__name__
    return InputRecord(id=f"{name}#{offset}", url=None, source=None, kind="warc",
                       error=f"read: WARC unreadable after offset {offset}: {msg}")


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
    records of kind ``page`` (a ``*.page.json[.gz]`` path as ``source``) are loaded, in order;
    render failures come back as ``"<stage>: <reason>"``. ``renderer`` reuses an open
    :class:`~webseg.render.Renderer`; otherwise one is started with ``renderer_options``.
    """
    from webseg.render import Renderer, RenderJob

    order: deque[InputRecord] = deque()

    def jobs() -> Iterator[RenderJob]:
        for rec in records:
            order.append(rec)
            if rec.error is None and rec.kind != "page":
                yield RenderJob(rec.source, url=rec.url if rec.kind == "warc" else None)

    def drain_errors() -> Iterator[tuple[InputRecord, Page | None, str | None]]:
        while order and (order[0].error is not None or order[0].kind == "page"):
            rec = order.popleft()
            if rec.error is None:  # an already rendered page (Page JSON): load it in order
                try:
                    yield rec, Page.load(rec.source), None  # type: ignore[arg-type]
                except (OSError, ValueError) as e:
                    yield rec, None, f"read: {e}"
                continue
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
