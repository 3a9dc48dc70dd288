"""The parsed pipeline hands the stages the HTML its parse decoded: for WARC records that is
exactly what decoding the record's bytes again gives."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from webseg.inputs import iter_inputs, parse_inputs, parse_inputs_html
from webseg.pipeline.process import PipelineConfig, record_html

PAGES = [
    ("text/html; charset=windows-1252", "<html><head><title>Caf\xe9</title></head><body>"
     "<p>Cr\xe8me br\xfbl\xe9e for two.</p></body></html>".encode("cp1252")),
    ("text/html", '<html><head><meta charset="utf-8"><title>北京</title></head><body>'
     "<p>北京欢迎你。天气很好。</p></body></html>".encode()),
    ("text/html", b"<html><body><p>plain ascii page</p></body></html>"),
    ("text/html", b"   "),  # no page: an empty body is skipped
]


def _warc(path: Path) -> None:
    with path.open("wb") as f:
        w = WARCWriter(f, gzip=True)
        for i, (ctype, body) in enumerate(PAGES):
            headers = StatusAndHeaders("200 OK", [("Content-Type", ctype)],
                                       protocol="HTTP/1.1")
            w.write_record(w.create_warc_record(f"http://example.org/{i}", "response",
                                                payload=io.BytesIO(body),
                                                http_headers=headers))


def test_decoded_html_of_the_parse_is_the_records_html(tmp_path: Path) -> None:
    _warc(tmp_path / "c.warc.gz")
    recs = list(iter_inputs([tmp_path / "c.warc.gz"]))
    got = list(parse_inputs_html(recs))
    assert [(r.id, p is None, e) for r, p, e, _ in got] == \
        [(r.id, p is None, e) for r, p, e in parse_inputs(recs)]
    cfg = PipelineConfig.parsed()
    with_html = [(r, h) for r, p, _, h in got if p is not None]
    assert len(with_html) == 3
    for rec, html in with_html:
        assert isinstance(rec.source, bytes)
        assert html == record_html(rec, cfg)
    assert "Crème brûlée" in with_html[0][1] and "北京欢迎你" in with_html[1][1]
    assert all(h is None for _, p, _, h in got if p is None)


def test_index_entry_language_takes_the_declared_hints_as_webseg_index_does(
        tmp_path: Path) -> None:
    """The pipeline's index entry is ``webseg index``'s, its language included: the
    languages a record declares are hints there too (a list of names, times and room
    numbers alone reads as no language or another one)."""
    from ir.analysis import Analyzer
    from ir.pipeline import declared_hints, doc_from_page
    from webseg.pipeline.process import PageProcessor

    body = ("<html lang='en'><head><title>Series</title></head><body><h1>Series</h1>"
            + "".join(f"<p>September {d} 12pm- 1pm SAAC 217 Carrie Menke, Ph.D</p>"
                      for d in range(1, 25)) + "</body></html>").encode()
    with (tmp_path / "c.warc.gz").open("wb") as f:
        w = WARCWriter(f, gzip=True)
        headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html")],
                                   protocol="HTTP/1.1")
        w.write_record(w.create_warc_record("http://example.org/s", "response",
                                            payload=io.BytesIO(body), http_headers=headers))
    ((rec, page, err, html),) = list(parse_inputs_html(iter_inputs([tmp_path / "c.warc.gz"])))
    assert err is None and declared_hints(rec) == ["en"]
    cfg = PipelineConfig.parsed()
    out = PageProcessor(cfg).process(rec.id, rec.url, page, html=html, record=rec)
    assert out["status"] == "ok", out["error"]
    expected = doc_from_page(rec.id, page, Analyzer(), [cfg.segmenter], url=rec.url,
                             lang_hints=["en"])
    assert out["index_doc"]["lang"] == expected.lang == "en"
    assert out["index_doc"]["terms"] == expected.to_dict()["terms"]


class _Collect:
    """An index that keeps the documents it is given (what ``index_paths`` stores)."""

    def __init__(self) -> None:
        from ir.analysis import Analyzer

        self.analyzer = Analyzer()
        self.docs: list = []

    def add(self, docs: list) -> int:
        self.docs += docs
        return len(docs)


def test_webseg_index_stores_the_pipelines_documents_with_the_results_language(
        tmp_path: Path) -> None:
    """A page's language is identified once: its clean result's is what the pipeline's index
    entry and ``webseg index --no-render`` store, and the two store the same documents."""
    from ir.pipeline import index_paths
    from webseg.pipeline.process import PageProcessor
    from webseg.pipeline.run import record_line

    _warc(tmp_path / "c.warc.gz")
    cfg = PipelineConfig.parsed()
    ix = _Collect()
    rep = index_paths(ix, [str(tmp_path / "c.warc.gz")], [cfg.segmenter], render=False)
    assert rep.added == 3 and rep.skipped == 1
    stored = {d.id: d.to_dict() for d in ix.docs}
    proc = PageProcessor(cfg)
    langs = []
    for rec, page, err, html in parse_inputs_html(iter_inputs([tmp_path / "c.warc.gz"])):
        if page is None:
            continue
        line = record_line(rec, page, err, proc, html)
        assert line["index_doc"] == stored[rec.id]
        assert line["index_doc"].get("lang") == line["language"]["code"]
        langs.append(line["language"]["code"])
    assert "zh" in langs


def test_webseg_index_keeps_a_page_whose_clean_result_fails(tmp_path: Path,
                                                             monkeypatch: Any) -> None:
    """The clean result failing (a bug, odd markup) does not drop the page from ``webseg
    index``: its document identifies its own text, as before the result was shared."""
    import ir.pipeline as irp

    def broken(*_: Any) -> Any:
        raise RuntimeError("no result")

    _warc(tmp_path / "c.warc.gz")
    monkeypatch.setattr(irp, "page_result", broken)
    ix = _Collect()
    rep = irp.index_paths(ix, [str(tmp_path / "c.warc.gz")], ["blockfusion"], render=False)
    assert rep.added == 3 and rep.failed == 0
    assert {d.lang for d in ix.docs} >= {"zh"}
