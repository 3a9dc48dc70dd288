"""Browser-compatible decoding of raw page bytes into text.

Segmenters work on text, but crawled pages arrive as bytes: in any encoding, sometimes
gzip-compressed, sometimes with the raw HTTP response header block still in front. If we
decode a page differently from the browser that rendered it (for the visual segmenters the
DOM *is* what Chromium built), block texts, offsets and hashes stop matching. So this
module follows the WHATWG HTML / Encoding standards rather than "whatever Python guesses":

1. gzip is undone first (bounded, so a decompression bomb cannot exhaust memory);
2. an HTTP header block is parsed and removed; its ``charset`` becomes a candidate;
3. a byte order mark wins over every declaration (WHATWG "BOM sniffing");
4. then the caller's explicit encoding, the HTTP ``charset``, a ``<meta>`` prescan, and
   finally detection (valid UTF-8, then charset_normalizer, then windows-1252);
5. every label goes through the WHATWG label table (``webencodings``), so ``iso-8859-1``
   and ``us-ascii`` mean windows-1252, exactly as in browsers;
6. decoding never fails on a few bad bytes (errors are replaced, as browsers do), but
   input that is empty or plainly not text raises :class:`DecodeError`.
"""

from __future__ import annotations

import codecs
import logging
import re
import zlib
from dataclasses import dataclass, field

import webencodings

__all__ = ["Decoded", "DecodeError", "decode_html", "maybe_gunzip"]

log = logging.getLogger(__name__)

GZIP_MAGIC = b"\x1f\x8b"
#: How much of the body the ``<meta>`` prescan looks at (WHATWG says 1024; pages in the
#: wild put long ``<head>`` preambles before the meta, so we are more generous).
META_PRESCAN_BYTES = 4096
#: How much of the body the binary / UTF-16 sniffing looks at.
SNIFF_BYTES = 8192
#: Above this share of NUL bytes (and not UTF-16 text) the input is treated as binary.
MAX_NUL_RATE = 0.01
#: Above this share of C0 control bytes other than the ones text uses (TAB, LF, FF, CR,
#: ESC/SO/SI for ISO-2022, SUB for DOS end-of-file) the input is treated as binary. Random
#: bytes have about 9%; real HTML in any ASCII-compatible or CJK encoding has ~0%.
MAX_CONTROL_RATE = 0.05

_GZIP_CHUNK = 64 * 1024

# Byte order marks, longest first: the UTF-32LE BOM starts with the UTF-16LE one.
# (WHATWG only knows UTF-8/UTF-16 BOMs; a UTF-32 page would decode to garbage in a browser
# anyway, so recognising its BOM only turns garbage into text.)
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# Signatures of common non-HTML payloads that crawls pick up by mistake.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"%PDF-", "PDF document"),
    (b"PK\x03\x04", "ZIP archive"),
    (b"PK\x05\x06", "ZIP archive"),
    (b"\x7fELF", "ELF executable"),
)

# Bytes that never occur in text: C0 controls except \t \n \f \r, SO/SI (0x0e/0x0f) and
# ESC (0x1b) used by ISO-2022, and SUB (0x1a), the DOS end-of-file marker.
_CONTROL_BYTES = bytes(
    b for b in range(0x20) if b not in (0x09, 0x0A, 0x0C, 0x0D, 0x0E, 0x0F, 0x1A, 0x1B)
)
_PRINTABLE_ASCII = frozenset(range(0x20, 0x7F)) | {0x09, 0x0A, 0x0C, 0x0D}

_STATUS_LINE_RE = re.compile(
    rb"\A[ \t\r\n]*HTTP/(?:1\.\d|2(?:\.0)?|3(?:\.0)?)[ \t]+(\d{3})(?=[ \t\r\n]|\Z)"
)
_BLANK_LINE_RE = re.compile(rb"\r?\n\r?\n")
_HEX_RE = re.compile(rb"[0-9A-Fa-f]+")

_COMMENT_RE = re.compile(rb"<!--.*?(?:-->|\Z)", re.DOTALL)
# A <meta ...> start tag; quoted attribute values may contain '>'.
_META_RE = re.compile(rb"<meta(?=[\s/>])((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>", re.IGNORECASE)
_ATTR_RE = re.compile(rb"([^\s/>\"'=]+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]*)))?")
# WHATWG "extract a character encoding from a meta element" (also fine for Content-Type).
_CHARSET_PARAM_RE = re.compile(
    rb"charset\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s;\"']+))", re.IGNORECASE
)

# Error handler for windows-1252: the WHATWG decoder maps the five bytes Python's cp1252
# leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) to the C1 controls of the same value.
_C1_ERRORS = "webseg.decode.c1"


def _c1_passthrough(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    bad = exc.object[exc.start : exc.end]
    return "".join(map(chr, bad)), exc.end


codecs.register_error(_C1_ERRORS, _c1_passthrough)


class DecodeError(ValueError):
    """Raised when the bytes cannot be a web page: empty, binary, or corrupt/oversized gzip."""


@dataclass(frozen=True)
class Decoded:
    """The decoded page and how its encoding was chosen.

    ``source`` is one of ``"bom"``, ``"given"``, ``"http-header"``, ``"meta"``,
    ``"detected"`` or ``"fallback"``; ``encoding`` is a Python codec name (e.g. ``"cp1252"``
    for a page labelled ``iso-8859-1``, ``"cp932"`` for Shift_JIS, as browsers decode them).
    """

    text: str = field(repr=False)
    encoding: str
    source: str
    http_headers: dict[str, str]
    was_gzip: bool


# --------------------------------------------------------------------------- gzip


def maybe_gunzip(data: bytes, max_bytes: int | None = None) -> tuple[bytes, bool]:
    """Gunzip ``data`` if it starts with the gzip magic; return ``(bytes, was_gzip)``.

    Crawlers often store the body exactly as served, i.e. still gzip-encoded. All
    concatenated members are decompressed (as ``gzip -d`` does); trailing non-gzip bytes are
    ignored, as browsers ignore them. Decompression is incremental and stops as soon as the
    output would exceed ``max_bytes``, so a small "gzip bomb" cannot exhaust memory.

    Raises :class:`DecodeError` for corrupt or truncated gzip data and for output larger
    than ``max_bytes``.
    """
    if not data.startswith(GZIP_MAGIC):
        return data, False
    out = bytearray()
    rest = memoryview(data)
    try:
        while True:
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            buf: bytes | memoryview = rest
            while not d.eof:
                if max_bytes is None:
                    limit = _GZIP_CHUNK
                else:
                    limit = max(1, min(_GZIP_CHUNK, max_bytes - len(out) + 1))
                before = len(buf)
                chunk = d.decompress(buf, limit)
                buf = d.unconsumed_tail
                if chunk:
                    out += chunk
                    if max_bytes is not None and len(out) > max_bytes:
                        raise DecodeError(f"decompressed page exceeds {max_bytes} bytes")
                elif not d.eof and (not buf or len(buf) == before):
                    raise DecodeError("corrupt gzip data: truncated stream")
            rest = memoryview(d.unused_data)
            if bytes(rest[:2]) != GZIP_MAGIC:
                break
    except zlib.error as exc:
        raise DecodeError(f"corrupt gzip data: {exc}") from exc
    return bytes(out), True


# --------------------------------------------------------------------------- HTTP


def _parse_header_block(block: bytes) -> dict[str, str]:
    """Parse header lines (status line excluded); repeated names are joined with ", "."""
    headers: dict[str, str] = {}
    last: str | None = None
    for raw in block.split(b"\n"):
        line = raw.rstrip(b"\r").decode("latin-1")  # HTTP header bytes are ISO-8859-1
        if not line.strip():
            continue
        if line[0] in " \t" and last is not None:  # obsolete line folding
            headers[last] = f"{headers[last]} {line.strip()}".strip()
            continue
        name, sep, value = line.partition(":")
        name = name.strip().lower()
        if not sep or not name:
            continue
        value = value.strip()
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
        last = name
    return headers


def _dechunk(body: bytes) -> bytes | None:
    """Undo ``Transfer-Encoding: chunked``; ``None`` if ``body`` is not validly chunked.

    A capture cut off mid-chunk keeps what it has (a browser would render that too).
    """
    out = bytearray()
    pos = 0
    while True:
        eol = body.find(b"\n", pos)
        if eol < 0:
            return bytes(out) if out else None
        size_field = body[pos:eol].split(b";", 1)[0].strip()
        if not _HEX_RE.fullmatch(size_field):
            return None
        size = int(size_field, 16)
        pos = eol + 1
        if size == 0:
            return bytes(out)
        out += body[pos : pos + size]
        pos += size
        if pos >= len(body):
            return bytes(out)
        if body.startswith(b"\r\n", pos):
            pos += 2
        elif body.startswith(b"\n", pos):
            pos += 1
        else:
            return None


def _split_http(data: bytes) -> tuple[bytes, dict[str, str]] | None:
    """Split off one HTTP response header block; ``None`` if ``data`` has none."""
    if not _STATUS_LINE_RE.match(data):
        return None
    m = _BLANK_LINE_RE.search(data)
    head, body = (data[: m.start()], data[m.end() :]) if m else (data, b"")
    head = head.lstrip()
    _status, _, fields = head.partition(b"\n")
    return body, _parse_header_block(fields)


def _strip_http(data: bytes, max_bytes: int | None) -> tuple[bytes, dict[str, str], bool]:
    """Remove a leading HTTP response header block (and any ``1xx`` interim responses).

    Returns ``(body, headers, was_gzip)``. The body is de-chunked when the headers say
    ``Transfer-Encoding: chunked`` and gunzipped when it is gzip data (whatever
    ``Content-Encoding`` says: crawlers often store decoded bodies with original headers).
    """
    headers: dict[str, str] = {}
    body = data
    for _ in range(8):  # 100 Continue / 103 Early Hints precede the real response
        status = _STATUS_LINE_RE.match(body)
        split = _split_http(body)
        if status is None or split is None:
            break
        body, headers = split
        if not status.group(1).startswith(b"1"):
            break
    if not headers and body is data:
        return data, {}, False
    if "chunked" in headers.get("transfer-encoding", "").lower():
        dechunked = _dechunk(body)
        if dechunked is not None:
            body = dechunked
    body, was_gzip = maybe_gunzip(body, max_bytes)
    return body, headers, was_gzip


def _http_charset(headers: dict[str, str]) -> str | None:
    """The last ``charset=`` parameter of Content-Type (WHATWG: the last value wins)."""
    ctype = headers.get("content-type")
    if not ctype:
        return None
    found = _CHARSET_PARAM_RE.findall(ctype.encode("latin-1", "replace"))
    if not found:
        return None
    quoted2, quoted1, bare = found[-1]
    return (quoted2 or quoted1 or bare).decode("latin-1")


# --------------------------------------------------------------------------- labels


def _whatwg_codec(label: str, *, from_meta: bool = False) -> str | None:
    """Resolve ``label`` through the WHATWG label table to a Python codec name.

    ``x-user-defined`` becomes windows-1252 (what WHATWG prescribes for ``<meta>``; we use
    it everywhere because Python has no codec of that name). A ``<meta>`` claiming UTF-16
    means UTF-8 (WHATWG: the prescan could only read it because the page is ASCII-based).
    The ``replacement`` encoding (labels like ``iso-2022-kr``) would turn the whole page into
    a single U+FFFD, useless for segmentation, so it is treated as an unknown label.
    """
    enc = webencodings.lookup(label)
    if enc is None or enc.name == "replacement":
        return None
    if enc.name == "x-user-defined":
        return "cp1252"
    if from_meta and enc.name in ("utf-16le", "utf-16be"):
        return "utf-8"
    return enc.codec_info.name


def _any_codec(label: str) -> str | None:
    """WHATWG label first; otherwise any Python *text* codec (for callers and detectors)."""
    codec = _whatwg_codec(label)
    if codec is not None:
        return codec
    try:
        info = codecs.lookup(label.strip())
        b"".decode(info.name)  # rejects bytes-to-bytes codecs such as base64 / zlib
    except (LookupError, ValueError):
        return None
    # Python spellings ("latin_1" -> "iso8859-1") may still be WHATWG labels.
    return _whatwg_codec(info.name) or info.name


def _is_wide(codec: str) -> bool:
    return codec.replace("_", "-").startswith(("utf-16", "utf-32"))


# --------------------------------------------------------------------------- sniffing


def _sniff_bom(data: bytes) -> tuple[str, int] | None:
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return codec, len(bom)
    return None


def _meta_charset(data: bytes) -> str | None:
    """Prescan the start of the page for a ``<meta>`` charset declaration (WHATWG-like).

    Comments are skipped; each ``<meta>`` is considered in document order and the first one
    whose label is known wins; unknown labels are ignored, as in browsers.
    """
    sample = _COMMENT_RE.sub(b"", data[:META_PRESCAN_BYTES])
    for tag in _META_RE.finditer(sample):
        attrs: dict[bytes, bytes] = {}
        for am in _ATTR_RE.finditer(tag.group(1)):
            name = am.group(1).lower()
            if name not in attrs:  # first occurrence wins
                attrs[name] = am.group(2) or am.group(3) or am.group(4) or b""
        labels: list[bytes] = []
        if b"charset" in attrs:
            labels.append(attrs[b"charset"])
        if attrs.get(b"http-equiv", b"").strip().lower() == b"content-type":
            cm = _CHARSET_PARAM_RE.search(attrs.get(b"content", b""))
            if cm:
                labels.append(cm.group(1) or cm.group(2) or cm.group(3) or b"")
        for label in labels:
            codec = _whatwg_codec(label.decode("latin-1"), from_meta=True)
            if codec is not None:
                return codec
            log.debug("ignoring unknown <meta> charset %r", label)
    return None


def _sniff_utf16(sample: bytes) -> str | None:
    """Recognise BOM-less UTF-16 HTML: a NUL in every other byte next to ASCII markup."""
    pairs = len(sample) // 2
    if pairs == 0:
        return None
    even, odd = sample[0 : 2 * pairs : 2], sample[1 : 2 * pairs : 2]
    for text_bytes, zero_bytes, codec in ((even, odd, "utf-16-le"), (odd, even, "utf-16-be")):
        ascii_pairs = sum(
            1
            for t, z in zip(text_bytes, zero_bytes, strict=True)
            if z == 0 and t in _PRINTABLE_ASCII
        )
        wrong_side = text_bytes.count(0)
        # Markup alone makes a good share of an HTML page ASCII; the NULs must be on one side.
        if ascii_pairs >= 0.2 * pairs and wrong_side <= 0.05 * pairs:
            return codec
    return None


def _check_binary(data: bytes, *, statistics: bool) -> str | None:
    """Raise :class:`DecodeError` for non-text input; return a UTF-16 codec if sniffed.

    ``statistics=False`` (a UTF-16/32 encoding was declared) skips the NUL/control-byte
    rates, which are normal for those encodings.
    """
    for magic, what in _MAGIC:
        if data.startswith(magic):
            raise DecodeError(f"input looks binary ({what}), not HTML")
    if not statistics:
        return None
    sample = data[:SNIFF_BYTES]
    nul_rate = sample.count(0) / len(sample)
    control_rate = (len(sample) - len(sample.translate(None, _CONTROL_BYTES))) / len(sample)
    if nul_rate <= MAX_NUL_RATE and control_rate <= MAX_CONTROL_RATE:
        return None
    utf16 = _sniff_utf16(sample)
    if utf16 is not None:
        return utf16
    if nul_rate > MAX_NUL_RATE:
        why = f"{nul_rate:.1%} NUL bytes"
    else:
        why = f"{control_rate:.1%} control bytes"
    raise DecodeError(f"input looks binary ({why} in the first {len(sample)} bytes), not HTML")


def _detect(data: bytes) -> tuple[str, str]:
    """Guess an encoding for an undeclared page: UTF-8 if valid, else charset_normalizer."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return "utf-8", "detected"
    from charset_normalizer import from_bytes  # imported lazily: only undeclared pages

    matches = from_bytes(data)
    best = matches.best()
    if best is not None and best.encoding:
        codec = _any_codec(best.encoding)
        if codec is not None and not _is_wide(codec):
            if codec != "cp1252" and _prefer_cp1252(data, codec, best, matches):
                return "cp1252", "detected"
            return codec, "detected"
    return "cp1252", "fallback"


#: How much worse (charset_normalizer's chaos / coherence) windows-1252 may score than the
#: best guess and still be chosen.
CP1252_MARGIN = 0.05


def _prefer_cp1252(data: bytes, codec: str, best: object, matches: object) -> bool:
    """Prefer windows-1252 among near-ties, as browsers do for undeclared Western pages.

    On short text charset_normalizer cannot tell the single-byte code pages apart and picks,
    e.g., cp1250 or cp1257 for French ("naïve" becomes "naďve") while Chromium's detector says
    windows-1252. So when windows-1252 scores about as well as the best guess, or decodes the
    bytes to exactly the same text, it wins; a real Cyrillic or Greek page scores clearly
    better in its own code page and keeps it.
    """
    if _decode(data, "cp1252") == data.decode(codec, "replace"):
        return True
    for m in matches:  # type: ignore[attr-defined]
        if _any_codec(m.encoding) == "cp1252":
            return (m.chaos <= best.chaos + CP1252_MARGIN  # type: ignore[attr-defined]
                    and m.coherence >= best.coherence - CP1252_MARGIN)  # type: ignore[attr-defined]
    return False


def _decode(data: bytes, codec: str) -> str:
    errors = _C1_ERRORS if codec == "cp1252" else "replace"
    return data.decode(codec, errors)


# --------------------------------------------------------------------------- API


def decode_html(
    data: bytes, encoding: str | None = None, *, max_bytes: int | None = None
) -> Decoded:
    """Decode raw page bytes to text the way a browser would.

    Precedence (WHATWG): BOM > ``encoding`` argument > HTTP ``charset`` > ``<meta>``
    prescan > detection (valid UTF-8, then charset_normalizer) > windows-1252. Labels are
    resolved with the WHATWG table; unknown labels are skipped, never an error. A leading
    gzip layer and HTTP header block are removed first; ``max_bytes`` bounds the size of
    any gzip-decompressed data.

    Two deliberate deviations from a browser, both to avoid NUL-riddled garbage: BOM-less
    UTF-16 is recognised by its NUL pattern (and then wins over a non-UTF-16 declaration,
    which cannot be right for such bytes), and an HTTP ``charset=utf-16`` is ignored when
    the body has no NUL bytes at all (a common server misconfiguration).

    Raises :class:`DecodeError` for empty/whitespace-only input, binary input and corrupt
    or oversized gzip data.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"decode_html() needs bytes, not {type(data).__name__}")
    data = bytes(data)
    if not data:
        raise DecodeError("empty input: no bytes")
    body, was_gzip = maybe_gunzip(data, max_bytes)
    body, headers, gz_body = _strip_http(body, max_bytes)
    was_gzip = was_gzip or gz_body
    if not body.strip():
        where = "after the HTTP header block" if headers else "whitespace only"
        raise DecodeError(f"empty input: no content ({where})")

    codec: str | None = None
    source = ""
    bom = _sniff_bom(body)
    if bom is not None:
        codec, skip = bom
        body, source = body[skip:], "bom"
    else:
        if encoding is not None:
            codec = _any_codec(encoding)
            source = "given"
            if codec is None:
                log.debug("ignoring unknown encoding argument %r", encoding)
        if codec is None and (label := _http_charset(headers)) is not None:
            codec = _whatwg_codec(label)
            source = "http-header"
            if codec is not None and _is_wide(codec) and 0 not in body[:SNIFF_BYTES]:
                codec = None
        sniffed = _check_binary(body, statistics=codec is None or not _is_wide(codec))
        if sniffed is not None:
            codec, source = sniffed, "detected"
        if codec is None and (codec := _meta_charset(body)) is not None:
            source = "meta"
        if codec is None:
            codec, source = _detect(body)

    text = _decode(body, codec)
    if not text.strip():
        raise DecodeError(f"empty input: only whitespace after decoding as {codec}")
    return Decoded(
        text=text, encoding=codec, source=source, http_headers=headers, was_gzip=was_gzip
    )
