"""Tests for webseg.decode: browser-compatible (WHATWG) decoding of raw page bytes."""

from __future__ import annotations

import codecs
import gzip
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webseg.decode import Decoded, DecodeError, decode_html, maybe_gunzip

HTML_UTF8 = "<html><head><title>Café</title></head><body><p>Ünïcödé – “quotes” €</p></body></html>"
JAPANESE = "日本語のウェブページを正しく表示するためには、文字コードの判定がとても重要です。"


def page(body: str, head: str = "") -> str:
    return f"<!DOCTYPE html><html><head>{head}<title>t</title></head><body>{body}</body></html>"


# --------------------------------------------------------------------------- UTF-8 / BOM


def test_utf8_plain() -> None:
    d = decode_html(HTML_UTF8.encode("utf-8"))
    assert isinstance(d, Decoded)
    assert d.text == HTML_UTF8
    assert (d.encoding, d.source) == ("utf-8", "detected")
    assert d.http_headers == {}
    assert d.was_gzip is False


def test_pure_ascii_is_utf8() -> None:
    d = decode_html(b"<html><body>hello</body></html>")
    assert d.text == "<html><body>hello</body></html>"
    assert d.encoding == "utf-8"


def test_utf8_bom_removed_and_wins_over_meta() -> None:
    html = page("<p>Café – ok</p>", head='<meta charset="windows-1252">')
    d = decode_html(codecs.BOM_UTF8 + html.encode("utf-8"))
    assert d.text == html
    assert not d.text.startswith("\ufeff")
    assert (d.encoding, d.source) == ("utf-8", "bom")


def test_bom_wins_over_given_encoding_and_http_header() -> None:
    raw = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=shift_jis\r\n\r\n"
    raw += codecs.BOM_UTF8 + "<p>é</p>".encode()
    d = decode_html(raw, "cp1252")
    assert (d.text, d.source) == ("<p>é</p>", "bom")


def test_utf16le_with_bom() -> None:
    html = page(f"<p>{JAPANESE} Café</p>")
    d = decode_html(codecs.BOM_UTF16_LE + html.encode("utf-16-le"))
    assert d.text == html
    assert (d.encoding, d.source) == ("utf-16-le", "bom")


def test_utf16be_with_bom() -> None:
    html = page("<p>Привет</p>")
    d = decode_html(codecs.BOM_UTF16_BE + html.encode("utf-16-be"))
    assert (d.text, d.encoding, d.source) == (html, "utf-16-be", "bom")


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom_detected(codec: str) -> None:
    html = page("<p>Hello, Grüße, Привет мир, " + JAPANESE + "</p>")
    d = decode_html(html.encode(codec))
    assert d.text == html
    assert (d.encoding, d.source) == (codec, "detected")


def test_utf16_without_bom_beats_wrong_meta() -> None:
    html = page("<p>Hello world, this is UTF-16 text.</p>", head='<meta charset="utf-8">')
    d = decode_html(html.encode("utf-16-le"))
    assert (d.text, d.encoding) == (html, "utf-16-le")


# --------------------------------------------------------------------------- <meta>


def test_meta_charset_windows_1252() -> None:
    html = page("<p>Café crème brûlée € “quoted”</p>", head="<meta charset=windows-1252>")
    raw = html.encode("cp1252")
    assert b"\xe9" in raw
    d = decode_html(raw)
    assert d.text == html
    assert "Café crème brûlée € “quoted”" in d.text
    assert (d.encoding, d.source) == ("cp1252", "meta")


def test_meta_us_ascii_means_windows_1252() -> None:
    # Browsers treat us-ascii (and iso-8859-1, latin1) as windows-1252: 0x93 is a left quote.
    raw = b'<html><head><meta charset="us-ascii"></head><body>\x93hi\x94</body></html>'
    d = decode_html(raw)
    assert "\u201chi\u201d" in d.text
    assert (d.encoding, d.source) == ("cp1252", "meta")


@pytest.mark.parametrize("label", ["iso-8859-1", "latin1", "ISO_8859-1", "x-user-defined"])
def test_latin1_labels_are_windows_1252(label: str) -> None:
    d = decode_html(f"<meta charset='{label}'><p>\x93x</p>".encode("latin-1"))
    assert (d.encoding, d.source) == ("cp1252", "meta")
    assert "\u201cx" in d.text


def test_http_equiv_content_type_meta() -> None:
    head = '<META CONTENT="text/html; charset=ISO-8859-2" http-equiv=Content-Type>'
    html = page("<p>Zażółć gęślą jaźń</p>", head=head)
    d = decode_html(html.encode("iso8859-2"))
    assert d.text == html
    assert (d.encoding, d.source) == ("iso8859-2", "meta")


def test_content_charset_without_http_equiv_is_ignored() -> None:
    raw = page("<p>Café</p>", head='<meta name="x" content="text/html; charset=koi8-r">')
    d = decode_html(raw.encode("utf-8"))
    assert (d.encoding, d.source) == ("utf-8", "detected")


def test_meta_utf16_means_utf8() -> None:
    html = page("<p>Café</p>", head='<meta charset="utf-16">')
    d = decode_html(html.encode("utf-8"))
    assert d.text == html
    assert (d.encoding, d.source) == ("utf-8", "meta")


def test_unknown_meta_label_ignored() -> None:
    html = page("<p>Café</p>", head='<meta charset="no-such-charset">')
    d = decode_html(html.encode("utf-8"))
    assert d.text == html
    assert (d.encoding, d.source) == ("utf-8", "detected")


def test_unknown_meta_label_falls_through_to_next_meta() -> None:
    head = (
        '<meta charset="bogus"><meta http-equiv="content-type" content="text/html;charset=koi8-r">'
    )
    html = page("<p>Привет</p>", head=head)
    d = decode_html(html.encode("koi8-r"))
    assert (d.text, d.encoding, d.source) == (html, "koi8-r", "meta")


def test_meta_in_comment_ignored() -> None:
    html = page("<p>Café</p>", head="<!-- <meta charset=koi8-r> -->")
    d = decode_html(html.encode("utf-8"))
    assert (d.text, d.source) == (html, "detected")


def test_meta_beyond_prescan_window_ignored() -> None:
    html = "<html><head>" + "<!-- pad -->" * 400 + "<meta charset=koi8-r></head><p>é</p>"
    d = decode_html(html.encode("utf-8"))
    assert (d.encoding, d.source) == ("utf-8", "detected")


# --------------------------------------------------------------------------- given


def test_given_encoding() -> None:
    html = page("<p>Привет</p>", head="<meta charset=utf-8>")
    d = decode_html(html.encode("cp1251"), "windows-1251")
    assert (d.text, d.encoding, d.source) == (html, "cp1251", "given")


def test_given_python_codec_name() -> None:
    d = decode_html(page("<p>é</p>").encode("latin-1"), "latin_1")
    assert (d.encoding, d.source) == ("cp1252", "given")


def test_given_unknown_label_ignored() -> None:
    d = decode_html(page("<p>é</p>", head="<meta charset=latin1>").encode("latin-1"), "nope")
    assert (d.encoding, d.source) == ("cp1252", "meta")


# --------------------------------------------------------------------------- HTTP header


HTTP_LATIN1 = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=iso-8859-1\r\nServer: x\r\n\r\n"


def test_http_header_block_removed_and_charset_used() -> None:
    html = page("<p>Caf\xe9</p>")
    d = decode_html(HTTP_LATIN1 + html.encode("latin-1"))
    assert d.text == html
    assert (d.encoding, d.source) == ("cp1252", "http-header")
    assert d.http_headers == {"content-type": "text/html; charset=iso-8859-1", "server": "x"}


def test_http_header_overrides_meta() -> None:
    html = page("<p>Café “q”</p>", head='<meta charset="utf-8">')
    d = decode_html(HTTP_LATIN1 + html.encode("cp1252"))
    assert d.text == html
    assert d.source == "http-header"


def test_http_header_bare_lf_http2_and_leading_whitespace() -> None:
    raw = b'\r\n  HTTP/2 200\nCONTENT-TYPE: text/html;Charset="KOI8-R"\nX-A: 1\n\n'
    html = page("<p>Привет</p>")
    d = decode_html(raw + html.encode("koi8-r"))
    assert (d.text, d.encoding, d.source) == (html, "koi8-r", "http-header")
    assert d.http_headers["x-a"] == "1"


def test_http_header_without_charset_falls_through_to_meta() -> None:
    raw = b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n"
    d = decode_html(raw + page("<p>\xe9</p>", head="<meta charset=latin1>").encode("latin-1"))
    assert (d.encoding, d.source) == ("cp1252", "meta")
    assert d.http_headers == {"content-type": "text/html"}


def test_http_unknown_charset_ignored() -> None:
    raw = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=wat\r\n\r\n"
    d = decode_html(raw + "<p>é</p>".encode())
    assert (d.text, d.source) == ("<p>é</p>", "detected")


def test_http_100_continue_then_response() -> None:
    raw = b"HTTP/1.1 100 Continue\r\n\r\n" + HTTP_LATIN1 + b"<p>\xe9</p>"
    d = decode_html(raw)
    assert (d.text, d.source) == ("<p>é</p>", "http-header")
    assert "server" in d.http_headers


def test_http_chunked_body() -> None:
    raw = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    raw += b"5\r\n<p>ab\r\n6;x=y\r\ncd</p>\r\n0\r\n\r\n"
    assert decode_html(raw).text == "<p>abcd</p>"


def test_http_gzip_body() -> None:
    html = page("<p>Café</p>")
    raw = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n"
    raw += b"Content-Type: text/html; charset=utf-8\r\n\r\n"
    d = decode_html(raw + gzip.compress(html.encode("utf-8")))
    assert (d.text, d.was_gzip, d.source) == (html, True, "http-header")
    assert d.http_headers["content-encoding"] == "gzip"


def test_http_header_with_empty_body() -> None:
    with pytest.raises(DecodeError, match="empty"):
        decode_html(b"HTTP/1.1 204 No Content\r\nServer: x\r\n\r\n")


def test_text_id_wrapper_left_alone() -> None:
    raw = b'<text id="cleaneval-1">\n<html><body>x</body></html>'
    assert decode_html(raw).text == raw.decode()


# --------------------------------------------------------------------------- gzip


def test_gzip_input() -> None:
    html = page(f"<p>{JAPANESE}</p>")
    d = decode_html(gzip.compress(html.encode("utf-8")))
    assert (d.text, d.encoding, d.was_gzip) == (html, "utf-8", True)


def test_gzip_then_http_header() -> None:
    d = decode_html(gzip.compress(HTTP_LATIN1 + b"<p>\xe9</p>"))
    assert (d.text, d.source, d.was_gzip) == ("<p>é</p>", "http-header", True)


def test_gzip_concatenated_members() -> None:
    raw = gzip.compress(b"<html><body>") + gzip.compress(b"<p>two</p></body></html>")
    assert maybe_gunzip(raw) == (b"<html><body><p>two</p></body></html>", True)


def test_maybe_gunzip_passthrough() -> None:
    assert maybe_gunzip(b"<html>") == (b"<html>", False)


def test_gzip_within_max_bytes() -> None:
    data = b"<p>" + b"a" * 1000
    assert maybe_gunzip(gzip.compress(data), max_bytes=len(data)) == (data, True)


def test_gzip_bomb_rejected() -> None:
    bomb = gzip.compress(b"<html>" + b"\0" * 20_000_000, compresslevel=9)
    assert len(bomb) < 100_000
    with pytest.raises(DecodeError, match="exceeds 1000000 bytes"):
        decode_html(bomb, max_bytes=1_000_000)
    with pytest.raises(DecodeError, match="exceeds"):
        maybe_gunzip(bomb, max_bytes=1_000_000)


@pytest.mark.parametrize(
    "raw",
    [
        b"\x1f\x8b",
        b"\x1f\x8b\x08\x00garbage-garbage-garbage",
        gzip.compress(b"<html><body>hello</body></html>" * 50)[:40],  # truncated
    ],
)
def test_corrupt_gzip(raw: bytes) -> None:
    with pytest.raises(DecodeError, match="gzip"):
        decode_html(raw)


# --------------------------------------------------------------------------- detection


def test_shift_jis_detected_without_declaration() -> None:
    html = "<html><body>" + f"<p>{JAPANESE}</p>\n" * 5 + "</body></html>"
    d = decode_html(html.encode("shift_jis"))
    assert JAPANESE in d.text
    assert d.text == html
    assert d.source == "detected"
    assert d.encoding in {"cp932", "shift_jis"}


def test_undeclared_invalid_utf8_never_raises() -> None:
    d = decode_html(b"<p>\xff\xfe\xfd text \xe9</p>" * 3)
    assert d.source in {"detected", "fallback"}
    assert "text" in d.text


def test_invalid_utf8_in_declared_utf8_page_is_replaced() -> None:
    raw = page("<p>ok \xff bad</p>", head='<meta charset="utf-8">').encode("latin-1")
    d = decode_html(raw)
    assert (d.encoding, d.source) == ("utf-8", "meta")
    assert "ok \ufffd bad" in d.text


def test_cp1252_undefined_bytes_map_to_c1_like_browsers() -> None:
    d = decode_html(b"<meta charset=windows-1252><p>\x81\x8d\x80</p>")
    assert "\x81\x8d\u20ac" in d.text


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("raw", [b"", b"   ", b" \r\n\t\n ", codecs.BOM_UTF8 + b"  \n"])
def test_empty_input(raw: bytes) -> None:
    with pytest.raises(DecodeError, match="empty"):
        decode_html(raw)


def test_empty_gzip() -> None:
    with pytest.raises(DecodeError, match="empty"):
        decode_html(gzip.compress(b""))


def test_png_is_binary() -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4
    with pytest.raises(DecodeError, match="binary"):
        decode_html(png)


@pytest.mark.parametrize(
    "raw", [b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", b"\x7fELF\x02\x01\x01", b"GIF89a\x01\x00"]
)
def test_magic_is_binary(raw: bytes) -> None:
    with pytest.raises(DecodeError, match="binary"):
        decode_html(raw)


def test_random_bytes_are_binary() -> None:
    raw = random.Random(0).randbytes(16_384)
    with pytest.raises(DecodeError, match="binary"):
        decode_html(raw)


def test_nul_heavy_text_is_binary() -> None:
    raw = (b"<html><body>" + b"abc\x00\x00\x00\x00defgh" * 200)[:4000]
    with pytest.raises(DecodeError, match="binary"):
        decode_html(raw)


def test_str_input_is_type_error() -> None:
    with pytest.raises(TypeError):
        decode_html("<html>")  # type: ignore[arg-type]


def test_decode_error_is_value_error() -> None:
    assert issubclass(DecodeError, ValueError)


# --------------------------------------------------------------------------- property


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs"))))
def test_utf8_round_trip(s: str) -> None:
    html = "<html><body>" + s
    d = decode_html(html.encode("utf-8"))
    assert d.text == html
    assert d.encoding == "utf-8"
