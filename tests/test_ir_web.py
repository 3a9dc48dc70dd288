"""Indexing rendered pages: blocks stored per source, failed records reported (browser)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ir import Index, index_paths
from ir.index import DEFAULT_FIELDS, DEFAULT_REPEATS

FIXTURE = Path(__file__).parent / "fixtures" / "news.html"


@pytest.mark.browser
def test_index_pages_with_blocks_and_failures(tmp_path, renderer):
    pages = tmp_path / "pages"
    pages.mkdir()
    shutil.copy(FIXTURE, pages / "news.html")
    (pages / "binary.html").write_bytes(b"\x00\x01\x02\xff" * 100)
    (pages / "empty.html").write_bytes(b"")
    ix = Index.create(tmp_path / "idx", sources=["vips", "dom"])
    logged: list[str] = []
    rep = index_paths(ix, [str(pages), str(tmp_path / "missing.html")], ix.sources,
                      renderer=renderer, log=logged.append)
    ix = Index.open(tmp_path / "idx")
    # binary, empty and missing files have no text: reported, never indexed
    assert rep.failed == 3 and rep.added == len(ix) == 1
    by_id = {Path(d.id).name: d for d in ix.docs}
    assert set(by_id) == {"news.html"}
    news = by_id["news.html"]
    assert news.status == "ok" and news.terms
    bl = ix.blocks(ix.pos[news.id])
    assert bl["vips"] and bl["dom"] and bl["windows"]
    assert [b.rank for b in bl["vips"]] == list(range(len(bl["vips"])))
    assert len(logged) == 3 and len(rep.failures) == 3
    assert sum("looks binary" in m for m in logged) == 1

    word = max(news.terms, key=news.terms.get)
    res = ix.search(word, k=3, prf="blocks", fb_pages=5)
    assert res.hits[0].id == news.id
    assert res.hits[0].snippet_source == "vips" and res.hits[0].snippet
    assert res.feedback_units and all(u["doc"] == news.id for u in res.feedback_units)


@pytest.mark.browser
def test_webseg_index_defaults_to_the_repetition_rule(tmp_path):
    """``webseg index`` (defaults) stores the main leaves and counts repeated ones; an index
    without them judges every page alone."""
    import json

    from click.testing import CliRunner

    from webseg.cli import main

    pages = tmp_path / "pages"
    pages.mkdir()
    story = ("The river rose overnight and the council met at dawn to plan the repairs of the "
             "old stone bridge, which had stood for two hundred years. ")
    shared = ("Our newsroom is independent and funded by readers. Support local journalism "
              "with a monthly donation and keep these stories free for everyone. ")
    for i in range(3):
        (pages / f"p{i}.html").write_text(
            f"<html><head><title>Story {i}</title></head><body><article><h1>Story {i}</h1>"
            f"<p>{story * 3} Part {i} of the series.</p><p>{shared * 2}</p></article>"
            "</body></html>", encoding="utf-8")
    idx = tmp_path / "idx"
    r = CliRunner().invoke(main, ["index", str(pages), "-o", str(idx), "--concurrency", "1"])
    assert r.exit_code == 0, r.output
    assert "count as template" in r.output
    settings = json.loads((idx / "index.json").read_text())
    assert settings["repeats"] == DEFAULT_REPEATS and settings["fields"] == DEFAULT_FIELDS
    ix = Index.open(idx)
    n_keys, n_pages = ix.repeat_stats()
    docs = list(ix.store.iter_docs())
    assert all(d.main_leaves for d in docs)
    # the models keep the appeal inside <article> as main text; repeated on 3 pages, it is
    # rest now, while each page's own story stays main text
    assert (n_keys, n_pages) == (1, 3)
    assert all("donat" in d.fields["main"] for d in docs)
    assert all("donat" not in ix.doc_fields(d)["main"] and "bridg" in ix.doc_fields(d)["main"]
               for d in docs)
