"""Input expansion (directories, WARC, URL lists) and batch rendering of input records."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest

from webseg.inputs import InputRecord, iter_inputs, iter_warc, render_inputs


def write_warc(path: Path, records: list[tuple[str, str, bytes]], gz: bool = True) -> None:
    """A WARC with one warcinfo record and one response per (url, content-type, body)."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with path.open("wb") as f:
        w = WARCWriter(f, gzip=gz)
        w.write_record(w.create_warcinfo_record(path.name, {"software": "webseg-tests"}))
        for url, ctype, body in records:
            headers = StatusAndHeaders("200 OK", [("Content-Type", ctype)], protocol="HTTP/1.1")
            w.write_record(w.create_warc_record(url, "response", payload=io.BytesIO(body),
                                                http_headers=headers))


def test_directory_expansion_is_sorted_and_recursive(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "z.html").write_bytes(b"<p>z</p>")
    (tmp_path / "a.htm").write_bytes(b"<p>a</p>")
    (tmp_path / "c.html.gz").write_bytes(gzip.compress(b"<p>c</p>"))
    (tmp_path / "notes.md").write_text("ignored: not a page")
    recs = list(iter_inputs([tmp_path]))
    assert [Path(r.id).relative_to(tmp_path).as_posix() for r in recs] == \
        ["a.htm", "b/z.html", "c.html.gz"]
    assert all(r.kind == "file" and r.error is None for r in recs)
    assert recs[2].read_bytes() == b"<p>c</p>"


def test_missing_path_and_bad_url_lines_become_error_records(tmp_path: Path) -> None:
    urls = tmp_path / "list.txt"
    urls.write_text("# crawl seeds\nhttps://example.org/a\n\nftp://nope\nhttp://example.org/b\n")
    recs = list(iter_inputs([tmp_path / "missing.html", urls, "https://example.net/"]))
    assert recs[0].error and "no such file" in recs[0].error
    assert [r.url for r in recs[1:]] == ["https://example.org/a", None,
                                         "http://example.org/b", "https://example.net/"]
    assert recs[2].error and "not an http(s) URL" in recs[2].error
    assert recs[2].id.endswith(":4")


@pytest.mark.parametrize("gz", [True, False])
def test_warc_responses_become_records_with_stable_ids(tmp_path: Path, gz: bool) -> None:
    warc = tmp_path / ("crawl.warc.gz" if gz else "crawl.warc")
    write_warc(warc, [("http://example.org/1", "text/html; charset=utf-8", b"<p>one \xc3\xa9</p>"),
                      ("http://example.org/logo.png", "image/png", b"\x89PNG..."),
                      ("http://example.org/2", "text/html", b"<p>two</p>")], gz=gz)
    recs = list(iter_warc(warc))
    assert len(recs) == 3  # the warcinfo record is not a page; the PNG is an error record
    assert [r.url for r in recs] == ["http://example.org/1", "http://example.org/logo.png",
                                     "http://example.org/2"]
    assert recs[1].error and "image/png" in recs[1].error and recs[1].skipped
    assert not recs[0].skipped
    assert recs[0].read_bytes().endswith(b"<p>one \xc3\xa9</p>")
    assert b"charset=utf-8" in recs[0].read_bytes()  # HTTP charset kept for the decoder
    assert recs[2].read_bytes() == b"<p>two</p>"
    assert [r.id for r in iter_warc(warc)] == [r.id for r in recs]
    assert len({r.id for r in recs}) == 3


def test_truncated_warc_keeps_what_it_read(tmp_path: Path) -> None:
    warc = tmp_path / "crawl.warc"
    write_warc(warc, [(f"http://example.org/{i}", "text/html", b"<p>x</p>" * 50)
                      for i in range(3)], gz=False)
    data = warc.read_bytes()
    cut = tmp_path / "cut.warc"
    cut.write_bytes(data[: len(data) - 300] + b"garbage")
    recs = list(iter_warc(cut))
    good = [r for r in recs if r.error is None]
    assert len(good) >= 2, "records before the damage must be kept"
    assert recs[:len(good)] == good  # errors, if any, only after the good records


def test_not_a_warc_is_an_error_record(tmp_path: Path) -> None:
    bad = tmp_path / "bad.warc.gz"
    bad.write_bytes(b"\x00\x01 this is not a WARC file at all" * 10)
    recs = list(iter_warc(bad))
    assert len(recs) == 1 and recs[0].error and "WARC" in recs[0].error


@pytest.mark.browser
def test_render_inputs_keeps_order_and_one_result_per_record(renderer, tmp_path: Path) -> None:
    warc = tmp_path / "crawl.warc.gz"
    write_warc(warc, [("http://example.org/p", "text/html", b"<h1>from warc</h1><a href=x>x</a>"),
                      ("http://example.org/i.png", "image/png", b"\x89PNG")])
    page = tmp_path / "local.html"
    page.write_bytes(b"<p>local page</p>")
    recs = [*iter_inputs([warc]), InputRecord("missing", None, None, "file", "read: gone"),
            *iter_inputs([page])]
    out = list(render_inputs(recs, concurrency=2, renderer=renderer))
    assert [r.id for r, _, _ in out] == [r.id for r in recs]
    (r0, p0, e0), (r1, p1, e1), (r2, p2, e2), (r3, p3, e3) = out
    assert e0 is None and p0 is not None and p0.url == "http://example.org/p"
    assert "from warc" in "".join(p0.text)
    assert p1 is None and "image/png" in (e1 or "")
    assert p2 is None and e2 == "read: gone"
    assert e3 is None and "local page" in "".join(p3.text)


WARCIO = Path(__file__).parent / "fixtures" / "warcio"  # warcio's own test WARCs (Apache-2.0)


def test_wget_metadata_records_are_skipped_not_rendered() -> None:
    recs = list(iter_inputs([WARCIO / "example-wget-bad-target-uri.warc.gz"]))
    pages = [r for r in recs if r.error is None]
    assert [r.url for r in pages] == ["http://example.com/"]
    meta = [r for r in recs if r.url and r.url.startswith("metadata://")]
    assert len(meta) == 2
    assert all(r.skipped and "metadata:" in (r.error or "") for r in meta)


def test_warc_of_requests_only_says_so_in_one_record() -> None:
    recs = list(iter_inputs([WARCIO / "example-digest.warc"]))
    assert len(recs) == 1
    assert recs[0].skipped and "no pages" in (recs[0].error or "")
    assert "4 request" in (recs[0].error or "")


def test_truncated_gzip_warc_reports_a_real_offset(tmp_path: Path) -> None:
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes((WARCIO / "example.warc.gz").read_bytes()[:1400])
    recs = list(iter_inputs([cut]))
    assert len(recs) == 1 and recs[0].error
    assert "truncated" in recs[0].error and "offset 784" in recs[0].error
    assert recs[0].id == f"{cut}#784"


def test_single_stream_gzip_warc_is_read_with_non_negative_offsets() -> None:
    recs = list(iter_inputs([WARCIO / "example-bad-non-chunked.warc.gz"]))
    assert [(r.url, r.error) for r in recs if not r.skipped] == [("http://example.com/", None)]
    assert [r.warc.type for r in recs if r.skipped] == ["revisit"]  # a line, not a page
    assert all(int(r.id.rsplit("#", 1)[1]) >= 0 for r in recs)
    assert b"Example Domain" in recs[0].read_bytes()


def test_arc_files_are_read_and_ids_are_stable() -> None:
    recs = list(iter_inputs([WARCIO / "example.arc.gz"]))
    assert [r.url for r in recs if r.error is None] == ["http://example.com/"]
    assert [r.id for r in iter_inputs([WARCIO / "example.arc.gz"])] == [r.id for r in recs]


@pytest.mark.parametrize("name", sorted(p.name for p in WARCIO.glob("*.*arc*")))
def test_every_warcio_fixture_gives_records_and_no_negative_offset(name: str) -> None:
    recs = list(iter_inputs([WARCIO / name]))
    assert recs, "an archive must never pass in silence"
    for r in recs:
        if "#" in r.id:
            assert int(r.id.rsplit("#", 1)[1]) >= 0
        assert "offset -" not in (r.error or "")


@pytest.mark.browser
def test_segment_command_reads_warc_records(tmp_path: Path) -> None:
    """`webseg segment` takes a WARC like every batch command: one output per page record,
    named from its URL (with the mapping file); non-pages are noted as skipped, not
    failures."""
    from click.testing import CliRunner

    from webseg.cli import main

    warc = tmp_path / "crawl.warc.gz"
    write_warc(warc, [("http://example.org/a", "text/html", b"<h1>A page</h1><p>one</p>"),
                      ("http://example.org/i.png", "image/png", b"\x89PNG"),
                      ("http://example.org/b", "text/html", b"<h1>B page</h1><p>two</p>")])
    ids = [r.id for r in iter_inputs([warc])]
    out = tmp_path / "segs"
    r = CliRunner().invoke(main, ["segment", str(warc), "--algo", "single", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in out.iterdir()) == [
        "example.org_a.seg.json", "example.org_b.seg.json", "records.jsonl"]
    mapping = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    assert [(m["file"], m["id"]) for m in mapping] == [("example.org_a.seg.json", ids[0]),
                                                        ("example.org_b.seg.json", ids[2])]
    assert f"skipped: {ids[1]}" in r.output
    one = CliRunner().invoke(main, ["segment", ids[2], "--algo", "single"])
    assert one.exit_code == 0 and '"algorithm": "single"' in one.output
    r = CliRunner().invoke(main, ["segment", str(WARCIO / "example-digest.warc")])
    assert r.exit_code == 0 and "holds no pages" in r.output


def test_gzip_warc_cut_inside_a_member_header_is_not_silently_short(tmp_path: Path) -> None:
    """A cut a few bytes into the next gzip member decompresses to nothing: warcio stops as
    if the file were whole, so the lost records must still be reported."""
    whole = Path(__file__).parents[1] / "examples" / "crawl.warc.gz"
    good = [r for r in iter_inputs([whole]) if r.error is None]
    data = whole.read_bytes()
    start = int(good[4].id.rsplit("#", 1)[1])  # where the fifth record's member begins
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(data[: start + 55])
    recs = list(iter_inputs([cut]))
    assert [r.id.rsplit("#", 1)[1] for r in recs[:4]] == [r.id.rsplit("#", 1)[1]
                                                          for r in good[:4]]
    assert len(recs) == 5 and recs[4].error and not recs[4].skipped
    assert "truncated" in recs[4].error and f"offset {start}" in recs[4].error


def test_blank_padding_after_the_last_record_is_not_truncation(tmp_path: Path) -> None:
    whole = Path(__file__).parents[1] / "examples" / "crawl.warc.gz"
    plain = tmp_path / "crawl.warc"
    plain.write_bytes(gzip.decompress(whole.read_bytes()) + b"\r\n\r\n")
    recs = list(iter_inputs([plain]))
    assert recs and all(r.error is None for r in recs)


def test_a_directory_without_pages_is_an_error_record_not_an_empty_run(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a page", encoding="utf-8")
    (recs,) = [list(iter_inputs([tmp_path]))]
    assert len(recs) == 1 and recs[0].id == str(tmp_path) and not recs[0].skipped
    assert "no pages in this directory" in (recs[0].error or "")
    assert "1 other file" in (recs[0].error or "")
    (tmp_path / "a.html").write_bytes(b"<p>a page</p>")
    assert [r.error for r in iter_inputs([tmp_path])] == [None]


def test_clean_of_a_directory_without_pages_says_so_and_exits_1(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from webseg.cli import main

    r = CliRunner().invoke(main, ["clean", str(tmp_path), "--no-render"])
    assert r.exit_code == 1, r.output
    assert "no pages in this directory" in r.output and "no files at all" in r.output
