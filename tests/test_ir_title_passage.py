"""The page title as a passage (``passages.title``): a title query finds the page whose title
it is above a long article on the same story; a title on several pages counts for each of
them; adds give the same ranking as a fresh open."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from ir import Analyzer, Index
from ir.store import Block, StoredDoc

AN = Analyzer()


def _blk(text: str, weight: float = 0.9) -> Block:
    return Block(text, dict(Counter(AN.tokens(text))), weight=weight,
                 role="main" if weight >= 0.5 else "template")


def _page(pid: str, title: str, *blocks: str) -> StoredDoc:
    text = " ".join(blocks)
    terms = dict(Counter(AN.tokens(f"{title} {text}")))
    fields = {"title": {t: float(c) for t, c in Counter(AN.tokens(title)).items()},
              "main": {t: float(c) for t, c in Counter(AN.tokens(text)).items()}}
    return StoredDoc(pid, terms, title=title, fields=fields,
                     blocks={"vips": [_blk(b) for b in blocks]})


PAS = {"source": "vips", "weight": 2.0, "min_block_weight": 0.5, "min_terms": 3,
       "min_blocks": 1, "repeat_pages": 2, "repeated": "mask", "k1": 1.2, "b": 0.75}
FIELDS = {"title": 1.0, "main": 1.0, "rest": 0.03}
FILL = [_page(f"f{i}", f"filler page {i}", f"garden hose watering can number {i} " * 3)
        for i in range(12)]


def _index(tmp_path, docs, title: bool) -> Index:
    ix = Index.create(tmp_path / f"i{title}", sources=["vips"], fields=FIELDS, k1=1.5, b=0.4,
                      passages={**PAS, "title": title})
    ix.add(docs)
    return ix


def test_a_title_query_finds_its_page_above_a_longer_story(tmp_path):
    """Page "a" is titled with the query; "b" tells the same story in one long block. The
    page scores alone put "a" first, by a hair; the block evidence without title passages
    puts "b" first; with the title as a passage "a" is first again."""
    q = "bushmeat smuggled into city could spread disease"
    a = _page("a", q, "officials said the meat is sold in markets", "other news today")
    b = _page("b", "wildlife trade warning",
              "the study said bushmeat smuggled into the city by travellers could carry and "
              "spread a disease to people and animals")
    off = _index(tmp_path, [a, b, *FILL], title=False)
    on = _index(tmp_path, [a, b, *FILL], title=True)
    assert off.search(q, k=2, snippets=False).ids == ["b", "a"]
    assert on.search(q, k=2, snippets=False).ids == ["a", "b"]
    # the title passage adds evidence; the page scores themselves are the same
    r_off, r_on = (ix.search(q, k=2, snippets=False) for ix in (off, on))
    s_off = dict(zip(r_off.ids, r_off.scores, strict=True))
    s_on = dict(zip(r_on.ids, r_on.scores, strict=True))
    assert s_on["a"] > s_off["a"] and s_on["b"] == pytest.approx(s_off["b"], rel=0.2)
    plain = Index.open(tmp_path / "iTrue", passages={})
    assert plain.search(q, k=2, snippets=False).ids == ["a", "b"]


def test_a_title_shared_by_pages_counts_for_each_of_them(tmp_path):
    """A title on several pages (a site naming every page alike, two captures of one page)
    is each page's own name, not template text: every page holding it gets its evidence (no
    mask), so they come before a page that only mentions the words in a long block."""
    site = "daily news network online"
    docs = [_page("s1", site, "river flood warning issued"),
            _page("s2", site, "election results announced today"),
            _page("x", "weather report", "the daily network of weather stations sent news "
                                         "online to every town and the network grew"),
            *FILL]
    ix = _index(tmp_path, docs, title=True)
    _, _, masked = ix._passage_engine()
    assert masked is None or not masked.any()
    assert set(ix.search(site, k=2, snippets=False).ids) == {"s1", "s2"}
    off = _index(tmp_path, docs, title=False)
    assert off.search(site, k=1, snippets=False).ids == ["x"]


@pytest.mark.parametrize("mode", ["mask", "drop"])
def test_title_passages_follow_incremental_adds(tmp_path, mode):
    """Pages added later (a new title, a superseded page) give the same ranking and scores
    as a fresh open of the same store."""
    q = "steel cable suspension bridge"
    docs = [_page("a", q, "engineers inspected the span", "other news today"),
            _page("b", "bridge inspection report",
                  "the steel of every cable on the suspension bridge was tested by the city "
                  "and the bridge reopened"),
            *FILL]
    ix = Index.create(tmp_path / "i", sources=["vips"], fields=FIELDS, k1=1.5, b=0.4,
                      passages={**PAS, "repeated": mode, "title": True})
    ix.add(docs)
    assert ix.search(q, k=3, snippets=False).ids[0] == "a"
    ix.add([_page("c", "suspension bridge cable news", "a different article about ferries"),
            _page("a", "ferry timetable changes", "engineers inspected the span")])
    after = ix.search(q, k=3, snippets=False)
    fresh = Index.open(tmp_path / "i").search(q, k=3, snippets=False)
    assert after.ids == fresh.ids and np.allclose(after.scores, fresh.scores)
    assert after.ids[0] != "a"  # its new title no longer names the query


def test_default_passages_have_title_and_old_settings_do_not():
    """New indexes get title passages; an index stored without the key ranks as before."""
    from ir.index import DEFAULT_PASSAGES

    assert DEFAULT_PASSAGES["title"] is True
    assert "title" not in PAS


def test_a_short_title_is_a_passage_too(tmp_path):
    """``min_terms`` keeps tiny blocks out, not titles: a one-word title finds its page."""
    docs = [_page("a", "Glossary", "terms used on this site and what they mean"),
            _page("b", "reference pages", "the glossary lists the words used in the reports"),
            *FILL]
    assert _index(tmp_path, docs, title=True).search("glossary", k=1, snippets=False).ids \
        == ["a"]
    assert _index(tmp_path, docs, title=False).search("glossary", k=1,
                                                      snippets=False).ids == ["b"]
