"""Indexing rendered pages: blocks stored per source, failures indexed text-only (browser)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ir import Index, index_paths

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
    assert rep.added == 4 and len(ix) == 4  # nothing dropped
    by_id = {Path(d.id).name: d for d in ix.docs}
    news = by_id["news.html"]
    assert news.status == "ok" and news.terms
    bl = ix.blocks(ix.pos[news.id])
    assert bl["vips"] and bl["dom"] and bl["windows"]
    assert [b.rank for b in bl["vips"]] == list(range(len(bl["vips"])))
    for name in ("binary.html", "empty.html", "missing.html"):
        d = by_id[name]
        assert d.status in ("text-only", "empty") and d.reason, (name, d)
    assert len(logged) == 3 and len(rep.failures) == 3

    word = max(news.terms, key=news.terms.get)
    res = ix.search(word, k=3, prf="blocks", fb_pages=5)
    assert res.hits[0].id == news.id
    assert res.hits[0].snippet_source == "vips" and res.hits[0].snippet
    assert res.feedback_units and all(u["doc"] == news.id for u in res.feedback_units)
