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

WARC records are read the way crawlers write them (cc-pyspark and warcio conventions):

* ``response``, ``resource`` and ``revisit`` records each become one record carrying their
  WARC facts (:class:`WarcFacts`: WARC-Record-ID, WARC-Date, target URI, HTTP status, content
  type, and for revisits the refers-to URI, date and record id; for redirects the Location).
* ``request``, ``warcinfo``, ``metadata`` (and ``conversion``, ``continuation``) records are
  not pages and become no record; pass a ``counts`` dict to :func:`iter_inputs` to have every
  record type counted for a run summary.
* A response whose HTTP status is not a page (3xx redirects, 4xx, 5xx, and 204, 206, 304) is
  ``skipped`` with the status as the reason (``http: 301 Moved Permanently -> <Location>``),
  never read, rendered or indexed; a ``revisit`` is skipped with what it refers to, so a
  caller can mark it as an exact duplicate of its original when that is in the input.
"""

from __future__ import annotations

import gzip
import sys
import zlib
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal

from webseg.page import Page

__all__ = ["HTML_SUFFIXES", "WARC_SUFFIXES", "URL_LIST_SUFFIXES", "InputRecord", "WarcFacts",
           "iter_inputs", "iter_warc", "iter_warc_stream", "output_name", "parse_inputs",
           "record_inputs", "render_inputs"]

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
#: WARC record types that are pages (or stand for one: a revisit); the others are counted only.
LINE_TYPES = ("response", "resource", "revisit")
#: HTTP statuses of a 2xx response that still carry no whole page.
NOT_PAGE_2XX = (204, 206)


@dataclass(frozen=True)
class WarcFacts:
    """What a WARC record says about itself, kept on its :class:`InputRecord`.

    ``http_status`` is None for ``resource`` records (no HTTP) and unreadable status lines;
    ``content_type`` is the HTTP Content-Type of a response (the WARC one of a resource), as
    written. ``refers_to_*`` are a revisit's WARC-Refers-To-Target-URI, -Date and
    WARC-Refers-To (record id); ``location`` is a redirect's Location header.
    """

    record_id: str | None
    date: str | None
    target_uri: str | None
    type: str
    http_status: int | None = None
    content_type: str | None = None
    refers_to_uri: str | None = None
    refers_to_date: str | None = None
    refers_to_record_id: str | None = None
    location: str | None = None
    profile: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The facts of an output line: the five always, the others when set."""
        d: dict[str, Any] = {"record_id": self.record_id, "date": self.date,
                             "target_uri": self.target_uri, "http_status": self.http_status,
                             "content_type": self.content_type, "type": self.type}
        for k in ("refers_to_uri", "refers_to_date", "refers_to_record_id", "location",
                  "profile"):
            v = getattr(self, k)
            if v is not None:
                d[k] = v
        return d


@dataclass(frozen=True)
class InputRecord:
    """One page to process.

    ``source`` is what to render: a :class:`~pathlib.Path` for a file on disk (read lazily by
    the renderer, with its size limit), ``bytes`` for a WARC payload, a ``str`` URL for URL
    input; ``None`` when ``error`` is set. ``url`` is the page's address where known.
    ``skipped`` marks records that are not pages at all (a WARC response carrying an image,
    script or PDF; a redirect, a 404, a revisit): they have an ``error`` saying why
    (``"<stage>: <reason>"``), and batch jobs count them apart from failures and never index
    them. ``warc`` holds the record's WARC facts (None for other inputs).
    """

    id: str
    url: str | None
    source: bytes | str | Path | None
    kind: Kind
    error: str | None = None
    skipped: bool = False
    warc: WarcFacts | None = None

    @property
    def reason(self) -> str | None:
        """Why the record has no page (the ``error`` text), None for a page."""
        return self.error

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

    def source_html(self) -> str | None:
        """The decoded HTML source of a local or WARC record (what a page's metadata, the
        classifier's structured-metadata view and the declared languages are read from: the
        Page model drops ``<meta>``, JSON-LD and ``<html lang>``); None for URL input,
        unreadable or undecodable bytes (the callers then read what the Page has)."""
        from webseg.decode import decode_html

        try:
            return decode_html(self.read_bytes()).text
        except Exception:  # noqa: BLE001 - no source: the callers fall back to the Page
            return None


def _is_url(s: str) -> bool:
    return s.startswith(("http://", "https://"))


def iter_inputs(paths: Sequence[str | Path], counts: dict[str, int] | None = None
                ) -> Iterator[InputRecord]:
    """Expand command-line inputs into page records, in a deterministic order.

    * a directory: every HTML page (``*.html``, ``*.htm``, ``*.xhtml``, optionally ``.gz``) and
      every WARC file (``*.warc``, ``*.warc.gz``) under it, recursively, sorted by path;
    * a WARC file: one record per HTTP response (or resource) record in it;
    * a ``.txt`` / ``.urls`` file: one http(s) URL per line (blank lines and ``#`` comments
      skipped; any other line becomes an error record);
    * an http(s) URL;
    * any other existing file is taken as one HTML page.

    A path that does not exist becomes an error record, and so does a directory holding no
    page or WARC file (it would otherwise give an empty, successful run). ``counts``, when
    given, receives the number of WARC records of each type read (``warcinfo``, ``request``,
    ``response``...).
    """
    for arg in paths:
        s = str(arg)
        if _is_url(s):
            yield InputRecord(id=s, url=s, source=s, kind="url")
            continue
        p = Path(s)
        if p.is_dir():
            found, others = False, 0
            for f in sorted(q for q in p.rglob("*") if q.is_file()):
                name = f.name.lower()
                if name.endswith(WARC_SUFFIXES):
                    found = True
                    yield from iter_warc(f, counts)
                elif name.endswith(HTML_SUFFIXES):
                    found = True
                    yield InputRecord(id=str(f), url=None, source=f, kind="file")
                else:
                    others += 1
            if not found:  # said, not passed over: an empty result must say why
                yield InputRecord(id=s, url=None, source=None, kind="file",
                                  error=_no_pages_in_dir(others))
        elif p.is_file():
            name = p.name.lower()
            if name.endswith(WARC_SUFFIXES):
                yield from iter_warc(p, counts)
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


def _no_pages_in_dir(others: int) -> str:
    what = f"{others} other file{'s' if others != 1 else ''}" if others else "no files at all"
    return (f"read: no pages in this directory: no {', '.join(HTML_SUFFIXES)} or "
            f"{', '.join(WARC_SUFFIXES)} file under it ({what})")


def iter_warc(path: str | Path, counts: dict[str, int] | None = None
              ) -> Iterator[InputRecord]:
    """One record per ``response``, ``resource`` and ``revisit`` record of a WARC / ARC file.

    The id is ``<path>#<byte offset of the record>``, stable across runs. The HTTP payload is
    de-chunked and content-decoded by warcio. Records that are not pages are ``skipped`` with
    the reason (a Content-Type that is not HTML-like: images, scripts, PDFs; a target URI that
    is not http(s) or file, such as wget's ``metadata://`` log records), and a WARC without any
    page record yields one skipped record saying what it holds. Payloads over
    :data:`MAX_PAYLOAD_BYTES` are errors. A corrupt or truncated WARC yields the records read
    so far and then one error record naming the offset where reading stopped. HTTP statuses
    and revisits are handled as the module doc says; ``counts`` adds the record types read.
    """
    path = Path(path)
    try:
        stream = path.open("rb")
    except OSError as e:
        yield InputRecord(id=str(path), url=None, source=None, kind="warc",
                          error=f"read: cannot open WARC: {e.strerror or e}")
        return
    with stream:
        yield from iter_warc_stream(stream, str(path), counts)


def iter_warc_stream(stream: BinaryIO, name: str, counts: dict[str, int] | None = None
                     ) -> Iterator[InputRecord]:
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
    if counts is not None:
        for t, n in seen.items():
            counts[t] = counts.get(t, 0) + n
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


def _import_warcio() -> None:
    """Import warcio's reader without fsspec, unless something imported either already.

    warcio's utilities import fsspec, when installed, only to open paths and URLs in its own
    command-line tools; webseg hands it open streams. That import was 40 ms of CPU, half of
    warcio's, in every run and every Spark worker: a twentieth of a one-page run. With
    fsspec marked as missing while warcio's modules load, they fall back to the built-in
    ``open``; the mark is removed at once, so later imports of fsspec work as ever."""
    if "warcio.utils" in sys.modules or "fsspec" in sys.modules:
        return
    sys.modules["fsspec"] = None  # type: ignore[assignment]  # import fsspec -> ImportError
    try:
        import warcio.archiveiterator  # noqa: F401
    finally:
        if sys.modules.get("fsspec", 0) is None:
            del sys.modules["fsspec"]


def _isal_zlib() -> Any:
    """:mod:`isal.isal_zlib`, or None when ISA-L is not installed (looked up once)."""
    global _ISAL_ZLIB
    if _ISAL_ZLIB is None:
        try:
            from isal import isal_zlib
        except ImportError:  # pragma: no cover - isal is a dependency; zlib then
            _ISAL_ZLIB = False
        else:
            _ISAL_ZLIB = isal_zlib
    return _ISAL_ZLIB or None


_ISAL_ZLIB: Any = None  # the isal_zlib module once looked up, False when missing
_ISAL_READER: Any = None  # the reader class made by _isal_reader


def _isal_reader(fh: Any) -> Any:
    """warcio's reader of a WARC's records (``DecompressingBufferedReader``, gzip), with
    ISA-L's inflate (:mod:`isal.isal_zlib`, a dependency already: the index shards are
    written with it) in place of zlib's; None without ISA-L (warcio's own reader stays).

    Why: inflating the gzip members was most of the reading's CPU (0.25 s of 400 pages,
    ~0.6 ms a page); ISA-L's inflate does the same in less than half of it. It gives the same
    bytes and the same ``unused_data`` / ``eof`` at each member's end (a WARC record is one
    gzip member; warcio starts a new decompressor on the rest, and reads a truncated member
    as far as it goes either way), and raises on a stream that is not gzip as zlib does, so
    an uncompressed WARC is still read as such. Only this reader's table changes: warcio's
    class table, and with it the HTTP ``Content-Encoding`` decoding of payloads and every
    other warcio user, keeps zlib."""
    global _ISAL_READER
    iz = _isal_zlib()
    if iz is None:
        return None
    if _ISAL_READER is None:
        from warcio.bufferedreaders import BufferedReader, DecompressingBufferedReader

        def gunzip() -> Any:  # as warcio's gzip_decompressor: a gzip wrapper, 32 KB window
            return iz.decompressobj(16 + zlib.MAX_WBITS)

        class IsalReader(DecompressingBufferedReader):
            DECOMPRESSORS = {**BufferedReader.DECOMPRESSORS, "gzip": gunzip}

        _ISAL_READER = IsalReader
    return _ISAL_READER(fh)


def _read_errors() -> tuple[type[BaseException], ...]:
    """What a broken WARC raises while it is read: I/O and format errors, zlib's and (when
    it inflates) ISA-L's."""
    iz = _isal_zlib()
    return (OSError, EOFError, ValueError, zlib.error) + ((iz.error,) if iz else ())


def _warc_records(stream: BinaryIO, name: str, seen: dict[str, int]) -> Iterator[InputRecord]:
    """Page records of one WARC/ARC stream; ``seen`` counts every record type met."""
    _import_warcio()
    from warcio.archiveiterator import ArchiveIterator
    from warcio.exceptions import ArchiveLoadFailed

    arc = name.lower().endswith((".arc", ".arc.gz"))  # ARC only by name: warcio takes any
    it = ArchiveIterator(stream, arc2warc=arc)            # garbage for an ARC header
    fast = _isal_reader(it.fh)
    if fast is not None:
        it.reader = fast
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
            if record.rec_type not in LINE_TYPES:
                it.read_to_end(record)
                if _missing(record):
                    yield _truncated(name, it, record, None)
                    return
                advance()
                continue
            url = record.rec_headers.get_header("WARC-Target-URI")
            facts = warc_facts(record)
            scheme = url.split(":", 1)[0].lower() if url and ":" in url else None
            skip = _skip_reason(facts)
            page: dict[str, Any]
            if scheme is not None and scheme not in PAGE_SCHEMES:
                page = {"source": None, "skipped": True,
                        "error": f"read: not a web page (WARC-Target-URI scheme {scheme}:)"}
            elif skip is not None:
                page = {"source": None, "skipped": True, "error": skip}
            else:
                page = _warc_page(record, url)  # reads the payload: offsets come after
            it.read_to_end(record)
            if _missing(record):
                yield _truncated(name, it, record, facts)
                return
            rid = f"{name}#{max(it.get_record_offset(), 0)}"
            advance()
            yield InputRecord(id=rid, url=url, kind="warc", warc=facts, **page)
        tail = _unread_tail(stream, offset)
        if tail:
            yield InputRecord(id=f"{name}#{offset}", url=None, source=None, kind="warc",
                              error=f"read: WARC truncated: the {tail} bytes after offset "
                                    f"{offset} hold no complete record")
    except ArchiveLoadFailed as e:
        if "non-chunked gzip" in str(e):
            raise _NotChunked(offset) from None
        yield _unreadable(name, offset, e)
    except _read_errors() as e:
        yield _unreadable(name, offset, e)


def _unread_tail(stream: BinaryIO, offset: int) -> int:
    """Bytes of a seekable file after the last record read that are not blank padding.

    A gzip WARC cut inside a member's first bytes decompresses to nothing, so warcio ends
    its iteration as if the file were whole: only comparing the file's size with where the
    last record ended shows the lost records. Streams that cannot seek (stdin, a gzip
    stream read through a decompressor) report 0: their size is unknown.
    """
    try:
        end = stream.seek(0, 2)
        if end <= offset:
            return 0
        stream.seek(offset)
        head = stream.read(4096)
    except (OSError, AttributeError, ValueError):
        return 0
    return 0 if not head.strip(b"\r\n\t \x00") and end - offset <= len(head) else end - offset


def _missing(record: Any) -> int:
    """Bytes of the record's block that the file did not hold (a truncated last record)."""
    return max(int(getattr(record.raw_stream, "limit", 0) or 0), 0)


def _truncated(name: str, it: Any, record: Any, facts: WarcFacts | None) -> InputRecord:
    off = max(it.get_record_offset(), 0)
    url = record.rec_headers.get_header("WARC-Target-URI")
    of = f" of {url}" if url else ""
    return InputRecord(id=f"{name}#{off}", url=url, source=None, kind="warc", warc=facts,
                       error=f"read: WARC truncated: the {record.rec_type} record{of} at "
                             f"offset {off} lacks its last {_missing(record)} bytes")


def warc_facts(record: Any) -> WarcFacts:
    """The :class:`WarcFacts` of a warcio record (headers only; the payload is not read)."""
    h = record.rec_headers
    status: int | None = None
    ctype = location = None
    http = getattr(record, "http_headers", None)
    if http is not None and record.rec_type in ("response", "revisit"):
        try:
            status = int(http.get_statuscode())
        except (TypeError, ValueError):
            status = None
        ctype = http.get_header("Content-Type")
        location = http.get_header("Location")
    if ctype is None and record.rec_type == "resource":
        ctype = h.get_header("Content-Type")
    revisit = record.rec_type == "revisit"
    return WarcFacts(
        record_id=h.get_header("WARC-Record-ID"), date=h.get_header("WARC-Date"),
        target_uri=h.get_header("WARC-Target-URI"), type=record.rec_type,
        http_status=status, content_type=ctype,
        refers_to_uri=h.get_header("WARC-Refers-To-Target-URI") if revisit else None,
        refers_to_date=h.get_header("WARC-Refers-To-Date") if revisit else None,
        refers_to_record_id=h.get_header("WARC-Refers-To") if revisit else None,
        location=location if status is not None and 300 <= status < 400 else None,
        profile=h.get_header("WARC-Profile") if revisit else None)


def _skip_reason(facts: WarcFacts) -> str | None:
    """Why a response/revisit is not a page to process (None: it is one), as ``stage: reason``.

    Revisits point at their original; HTTP statuses other than a 2xx with a whole body
    (redirects, client and server errors, 204 No Content, 206 partial content, 304 Not
    Modified) are the crawl's record of a fetch, not a page.
    """
    if facts.type == "revisit":
        what = facts.refers_to_uri or facts.target_uri or "an earlier record"
        when = f" at {facts.refers_to_date}" if facts.refers_to_date else ""
        kind = (facts.profile or "").rstrip("/").rsplit("/", 1)[-1] or "revisit"
        return f"revisit: {kind} of {what}{when}"
    s = facts.http_status
    if s is None or (200 <= s < 300 and s not in NOT_PAGE_2XX):
        return None
    from http import HTTPStatus

    try:
        reason = f"http: {s} {HTTPStatus(s).phrase}"
    except ValueError:
        reason = f"http: {s}"
    if facts.location:
        reason += f" -> {facts.location}"
    return reason


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
    if not payload.strip():  # a 200 with nothing in it: the crawl's record, not a page
        return {"source": None, "error": "read: empty body", "skipped": True}
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


def parse_inputs(records: Iterable[InputRecord], max_nodes: int = 200_000
                 ) -> Iterator[tuple[InputRecord, Page | None, str | None]]:
    """:func:`render_inputs` without a browser: each record's HTML parsed by
    :mod:`webseg.parse` (no layout: ``page.has_layout`` is False).

    Same contract: one ``(record, page, error)`` per record, in order; records with an error
    pass through; Page JSON records are loaded; URL records are errors (``--no-render`` reads
    local files and WARC records only); parse failures come back as ``"<stage>: <reason>"``
    (``read``, ``decode``, ``parse`` - the node limit is the parse's).
    """
    for rec, page, err, _ in parse_inputs_html(records, max_nodes):
        yield rec, page, err


def parse_inputs_html(records: Iterable[InputRecord], max_nodes: int = 200_000
                      ) -> Iterator[tuple[InputRecord, Page | None, str | None, str | None]]:
    """:func:`parse_inputs` with each parsed page's decoded HTML as a fourth item (None for
    Page JSON records and failures), for stages that read the source as well (metadata):
    decoding it again cost as much as a fifth of the parse."""
    for rec in records:
        if rec.error is not None:
            yield rec, None, rec.error, None
            continue
        if rec.kind == "page":
            try:
                yield rec, Page.load(rec.source), None, None  # type: ignore[arg-type]
            except (OSError, ValueError, EOFError) as e:
                yield rec, None, f"read: not a readable page JSON: {e}", None
            continue
        try:
            page, html = parse_record_html(rec, max_nodes)
        except ValueError as e:
            yield rec, None, str(e), None
        else:
            yield rec, page, None, html


#: Largest page read without a browser (the renderer's own limit).
MAX_PARSE_BYTES = 50 * 1024 * 1024


def parse_record(rec: InputRecord, max_nodes: int = 200_000) -> Page:
    """The record's page parsed without a browser; raises ValueError("<stage>: reason")."""
    return parse_record_html(rec, max_nodes)[0]


def parse_record_html(rec: InputRecord, max_nodes: int = 200_000) -> tuple[Page, str]:
    """(page parsed without a browser, its decoded HTML, which the metadata reads); raises
    ValueError("<stage>: reason") like :func:`parse_record`."""
    from webseg.decode import DecodeError, decode_html
    from webseg.parse import parse

    if rec.kind == "url":
        raise ValueError("read: without a browser (--no-render) only local files and WARC "
                         "records are read; URLs need rendering")
    if isinstance(rec.source, Path):
        try:
            size = rec.source.stat().st_size
        except OSError as e:
            raise ValueError(f"read: {e.strerror or e}") from None
        if size > MAX_PARSE_BYTES:
            raise ValueError(f"read: file is {size} bytes, limit is {MAX_PARSE_BYTES}")
    try:  # raw bytes: decode_html undoes gzip itself, with a bound on the output
        data = rec.source.read_bytes() if isinstance(rec.source, Path) else rec.source
    except OSError as e:
        raise ValueError(f"read: {e.strerror or e}") from None
    if not isinstance(data, bytes):
        raise ValueError("read: no page bytes")
    if len(data) > MAX_PARSE_BYTES:
        raise ValueError(f"read: input is {len(data)} bytes, limit is {MAX_PARSE_BYTES}")
    try:
        dec = decode_html(data, max_bytes=MAX_PARSE_BYTES)
    except DecodeError as e:
        raise ValueError(f"decode: {e}") from None
    try:
        return (parse(dec.text, url=rec.url, encoding=dec.encoding, max_nodes=max_nodes),
                dec.text)
    except ValueError as e:
        raise ValueError(f"parse: {e}") from None


def record_inputs(records: Iterable[InputRecord], concurrency: int = 3, *, render: bool = True,
                  renderer: Any = None, **renderer_options: Any
                  ) -> Iterator[tuple[InputRecord, Page | None, str | None]]:
    """:func:`render_inputs` (``render``, the default) or :func:`parse_inputs` (no browser is
    started or needed); the one switch behind every command's ``--no-render``."""
    if render:
        return render_inputs(records, concurrency, renderer=renderer, **renderer_options)
    return parse_inputs(records, int(renderer_options.get("max_nodes", 200_000)))


def output_name(rec: InputRecord, taken: dict[str, int], max_len: int = 120) -> str:
    """A stable, file-system-safe name (no suffix) for a record's output file.

    Named from the page's URL where there is one (host and path: ``example.org_news_a``;
    a query, or a URL too long for ``max_len``, adds 8 hex digits of its SHA-1 so distinct
    URLs stay distinct), else from the file's stem. ``taken`` counts the names already given
    in this output directory: the second record with the same name gets ``-2``, and so on
    (two WARC records of one URL, in input order, so reruns name them the same).
    """
    import hashlib
    import re

    if rec.url and "://" in rec.url:
        rest = rec.url.split("://", 1)[1].split("#", 1)[0]
        base, _, query = rest.partition("?")
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", base).strip("._-")
        if query or len(name) > max_len:
            digest = hashlib.sha1(rest.encode("utf-8", "replace")).hexdigest()[:8]
            name = f"{name[:max_len - 9]}-{digest}"
    else:
        name = _file_stem(rec.id)
        name = re.sub(r"[^\w.-]+", "_", name).strip("._-")[:max_len]
    name = name or "page"
    k = taken.get(name, 0) + 1
    taken[name] = k
    return name if k == 1 else f"{name}-{k}"


def _file_stem(rec_id: str) -> str:
    name = Path(rec_id.split("#", 1)[0]).name
    for suf in (".page.json.gz", ".page.json", ".html.gz", ".htm.gz", ".xhtml.gz", ".html",
                ".htm", ".xhtml", ".warc.gz", ".warc", ".arc.gz", ".arc"):
        if name.endswith(suf):
            name = name[: -len(suf)]
            break
    if name == "page" and Path(rec_id).parent.name:  # kreuzer-style pages/<site>/.../page.html
        name = Path(rec_id).parent.name
    return name


class OutputNames:
    """Names output files per record and writes the mapping ``DIR/records.jsonl`` (one line per
    file: ``file``, ``id``, ``url``, WARC-Record-ID) so a file can be traced to its record."""

    MAPPING = "records.jsonl"

    def __init__(self, directory: str | Path) -> None:
        self.dir = Path(directory)
        self.taken: dict[str, int] = {}
        self._f: Any = None

    def path(self, rec: InputRecord, suffix: str, url: str | None = None) -> Path:
        """The output path of ``rec`` (``suffix`` such as ``.md``), recorded in the mapping.

        ``url``: the page's address once known (a local file's canonical URL), so the mapping
        says what the page's JSON line says; else the input record's URL.
        """
        import json

        name = output_name(rec, self.taken) + suffix
        if self._f is None:
            self.dir.mkdir(parents=True, exist_ok=True)
            self._f = (self.dir / self.MAPPING).open("w", encoding="utf-8")
        row = {"file": name, "id": rec.id, "url": url or rec.url,
               "warc_record_id": rec.warc.record_id if rec.warc else None}
        self._f.write(json.dumps(row, ensure_ascii=False) + "\n")
        self._f.flush()
        return self.dir / name

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None
