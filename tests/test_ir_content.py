"""Content-aware indexing: fields, block weights, field-weighted scoring, lazy hits."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import news_page

from ir import Analyzer, Index, StoredDoc, doc_from_page, doc_from_text
from ir.feedback import BlockParams, block_units
from ir.store import Block

AN = Analyzer()
PARA1 = "Engineers closed the old bridge while crews replaced corroded steel cables."
PARA2 = "The bridge reopens in spring, the council said after the inspection."


def test_doc_from_page_splits_main_text_from_boilerplate(monkeypatch):
    import ir.content

    page = news_page(para1=PARA1, para2=PARA2)
    story = {11, 13, 15}  # text leaves of the story div (nav and footer are boilerplate)

    def model(pg, name="pagelevel"):
        return np.asarray([0.9 if j in story else 0.1 for j in pg.text_leaves.tolist()]), None

    monkeypatch.setattr(ir.content, "leaf_main_prob", model)
    d = doc_from_page("n1", page, AN, ["pagelevel", "dom"])
    assert d.reason is None, d.reason
    assert set(d.fields) == {"title", "main", "rest"}
    assert d.fields["title"] == {t: 1.0 for t in AN.tokens("Bridge repairs begin")}
    main, rest = d.fields["main"], d.fields["rest"]
    assert main.get("cabl", 0) > 0 and "cabl" not in rest  # story text is main content
    assert "privaci" in rest and "privaci" not in main      # footer link is not
    # every visible term is in exactly main + rest, with its whole count
    for t, c in d.terms.items():
        body = main.get(t, 0) + rest.get(t, 0)
        assert body == pytest.approx(c - d.fields["title"].get(t, 0), abs=1e-6)
    bl = d.blocks["dom"]
    assert bl and all(0.0 <= b.weight <= 1.0 and b.role in ("main", "template") for b in bl)
    assert {b.role for b in bl if "cable" in b.text} == {"main"}
    win = d.blocks["windows"]
    assert win and all(b.role in ("main", "template") for b in win)
    # the stored form round-trips (the pipeline journals documents as JSON)
    back = StoredDoc.from_dict(d.to_dict())
    assert back.fields == d.fields and back.blocks["dom"][0].weight == bl[0].weight


@pytest.mark.parametrize("model", ["blocks", "pagelevel"])
def test_doc_from_page_with_the_real_models_keeps_every_term(model):
    page = news_page(para1=PARA1, para2=PARA2)
    d = doc_from_page("n1", page, AN, ["pagelevel"], content_model=model)
    assert d.reason is None and set(d.fields) == {"title", "main", "rest"}
    for t, c in d.terms.items():
        body = d.fields["main"].get(t, 0) + d.fields["rest"].get(t, 0)
        assert body == pytest.approx(c - d.fields["title"].get(t, 0), abs=1e-6)
    with pytest.raises(ValueError, match="main-content model"):
        from ir.content import leaf_main_prob

        leaf_main_prob(page, "klingon")


def test_doc_from_text_has_fields_and_empty_status():
    d = doc_from_text("t", "steel cables", AN, title="Bridge")
    assert d.fields == {"title": {"bridg": 1.0}, "main": {"steel": 1.0, "cabl": 1.0}}
    assert doc_from_text("e", "the of and", AN).status == "empty"


def _fielded(tmp_path, fields):
    ix = Index.create(tmp_path / "i", sources=["windows"], fields=fields, overwrite=True)
    a = StoredDoc("a", {"cabl": 1, "menu": 5}, fields={"main": {"cabl": 1.0},
                                                         "rest": {"menu": 5.0}})
    b = StoredDoc("b", {"cabl": 1, "menu": 1}, fields={"main": {"menu": 1.0},
                                                         "rest": {"cabl": 1.0}})
    c = StoredDoc("c", {"other": 3}, fields={"main": {"other": 3.0}})
    fill = [StoredDoc(f"f{i}", {f"w{i}": 2}, fields={"main": {f"w{i}": 2.0}}) for i in range(4)]
    ix.add([a, b, c, *fill])  # enough documents for positive IDFs
    return ix


def test_field_weights_decide_what_a_page_is_about(tmp_path):
    ix = _fielded(tmp_path, {"main": 1.0, "rest": 0.1})
    assert ix.search("cables", k=3).ids[0] == "a"   # cables is a's main text, b's boilerplate
    assert ix.search("menu", k=3).ids[0] == "b"     # and the other way round
    # full-page override: the same stored documents scored by whole-page counts
    page = Index.open(tmp_path / "i", fields={})
    assert page.fields is None and set(page.search("menu", k=3).ids) == {"a", "b"}
    assert page.search("menu", k=3).ids[0] == "a"   # 5 menu links beat 1 in whole pages


def test_field_weighted_scores_are_bm25_of_weighted_counts(tmp_path):
    """BM25F (weighted term frequency form) equals BM25 over the weighted counts."""
    from ir.bm25 import EmbeddedBM25

    ix = _fielded(tmp_path, {"main": 1.0, "rest": 0.25})
    ref = EmbeddedBM25([{"cabl": 1.0, "menu": 1.25}, {"menu": 1.0, "cabl": 0.25},
                        {"other": 3.0}] + [{f"w{i}": 2.0} for i in range(4)])
    res = ix.search("cables menu", k=3)
    want = ref.scores({"cabl": 1.0, "menu": 1.0})
    got = dict(zip(res.ids, res.scores.tolist(), strict=True))
    for i, did in enumerate("ab"):
        assert got[did] == pytest.approx(want[i], rel=1e-5)


def test_search_result_builds_hits_lazily_and_consistently(tmp_path):
    ix = _fielded(tmp_path, None)
    res = ix.search("cables", k=5)
    assert res._hits is None and len(res) == 2
    assert [h.id for h in res.hits] == res.ids and [h.rank for h in res.hits] == [1, 2]
    assert res.to_dict()["hits"][0]["id"] == res.ids[0]


def test_readding_an_id_supersedes_without_rebuilding(tmp_path):
    ix = _fielded(tmp_path, None)
    ix.add([StoredDoc("a", {"zebra": 2})])
    assert len(ix) == 7 and ix.search("cables", k=5).ids == ["b"]
    assert Index.open(tmp_path / "i").search("zebra").ids == ["a"]


def test_block_feedback_uses_content_blocks_only():
    content = Block("steel cable bridge", {"steel": 1, "cabl": 1, "bridg": 1}, seg=1,
                    weight=0.9, role="main")
    boiler = Block("bridge club menu", {"bridg": 1, "club": 1, "menu": 1}, seg=2,
                   weight=0.1, role="template")
    blocks = {0: [boiler, content]}
    idf = {"bridg": 1.0}.get

    def units(**kw):
        p = BlockParams(source="x", min_block_terms=1, **kw)
        return [b.seg for b, _, _ in block_units(["bridg"], [(0, 1.0)], blocks.get,
                                                 lambda t: idf(t) or 0.0, 1.2, 0.75, p)]

    assert set(units()) == {1, 2}
    assert units(min_block_weight=0.5) == [2 - 1]
    assert units(weight_power=1.0)[0] == 1  # same BM25 score: the content block ranks first
    with pytest.raises(ValueError):
        BlockParams(min_block_weight=2.0)


def test_engine_handles_many_batches_compactly():
    from ir.bm25 import EmbeddedBM25

    rng = np.random.default_rng(0)
    e = EmbeddedBM25()
    docs = [{f"t{j}": int(c) for j, c in zip(rng.integers(0, 50, 8), rng.integers(1, 4, 8),
                                             strict=True)} for _ in range(300)]
    for i in range(0, 300, 7):
        e.add(docs[i: i + 7])
    one = EmbeddedBM25(docs)
    q = {"t1": 1.0, "t7": 2.0}
    r1, s1 = e.top(q, 20)
    r2, s2 = one.top(q, 20)
    assert r1.tolist() == r2.tolist() and np.allclose(s1, s2)
    assert e.doc_terms(5) == {t: float(c) for t, c in docs[5].items()}


def test_passage_evidence_ranks_pages_by_their_best_content_block(tmp_path):
    """Two pages with the same page-level counts: the one whose query terms sit together in
    one content block wins; boilerplate blocks (weight < 0.5) give no passage evidence."""

    def blk(text, weight):
        return Block(text, {t: 1 for t in text.split()}, weight=weight,
                     role="main" if weight >= 0.5 else "template")

    together = StoredDoc("together", {"steel": 1, "cabl": 1, "x": 1, "y": 1},
                         blocks={"vips": [blk("steel cabl", 0.9), blk("x y", 0.9)]})
    apart = StoredDoc("apart", {"steel": 1, "cabl": 1, "x": 1, "y": 1},
                      blocks={"vips": [blk("steel x", 0.9), blk("cabl y", 0.9)]})
    boiler = StoredDoc("boiler", {"steel": 1, "cabl": 1, "x": 1, "y": 1},
                       blocks={"vips": [blk("steel cabl", 0.1), blk("x y", 0.9)]})
    fill = [StoredDoc(f"f{i}", {f"w{i}": 2}) for i in range(5)]
    pas = {"source": "vips", "weight": 1.0, "min_block_weight": 0.5, "min_terms": 1}
    ix = Index.create(tmp_path / "i", sources=["vips"], passages=pas)
    ix.add([apart, boiler, together, *fill])
    res = ix.search("steel cables", k=3)
    assert res.ids[0] == "together" and res.ids[-1] == "boiler"
    plain = Index.open(tmp_path / "i", passages={})
    assert plain.search("steel cables", k=3).ids == ["apart", "boiler", "together"]  # ties
    # re-adding a page replaces its passages too
    ix.add([StoredDoc("together", {"zebra": 1}, blocks={"vips": [blk("zebra", 0.9)]})])
    assert "together" not in ix.search("steel cables", k=3).ids
    assert Index.open(tmp_path / "i").search("steel cables", k=3).ids[0] == "apart"


def test_weights_computed_in_slices_equal_one_pass(monkeypatch):
    """The weight refresh works in slices of postings (bounded memory): same scores."""
    import ir.bm25
    from ir.bm25 import EmbeddedBM25

    rng = np.random.default_rng(1)
    docs = [{f"t{j}": int(c) for j, c in zip(rng.integers(0, 30, 6), rng.integers(1, 4, 6),
                                             strict=True)} for _ in range(200)]
    q = {"t1": 1.0, "t2": 1.0, "t9": 0.5}
    whole = EmbeddedBM25(docs)
    whole.remove(3)
    ref = whole.scores(q)
    monkeypatch.setattr(ir.bm25, "_SLICE", 7)
    sliced = EmbeddedBM25(docs)
    sliced.remove(3)
    np.testing.assert_allclose(sliced.scores(q), ref, rtol=1e-6)
    assert sliced.df("t1") == whole.df("t1") and sliced.avgdl == pytest.approx(whole.avgdl)


def test_default_main_content_model_is_the_measured_best():
    """The default follows eval/results/prf/content (PageLevel beat the block model on dev)."""
    import inspect

    from ir.content import DEFAULT_MODEL, MODELS

    assert DEFAULT_MODEL in MODELS
    sig = inspect.signature(doc_from_page)
    assert sig.parameters["content_model"].default == DEFAULT_MODEL


@pytest.mark.parametrize("model", ["max", "mean"])
def test_combined_content_models_combine_both_per_leaf(model):
    from ir.content import leaf_main_prob

    page = news_page(para1=PARA1, para2=PARA2)
    p_pl, _ = leaf_main_prob(page, "pagelevel")
    p_bl, _ = leaf_main_prob(page, "blocks")
    got, seg = leaf_main_prob(page, model)
    want = np.maximum(p_pl, p_bl) if model == "max" else (p_pl + p_bl) / 2
    np.testing.assert_allclose(got, want)
    assert seg is not None  # the PageLevel segmentation is reused as the pagelevel source
    d = doc_from_page("n1", page, AN, ["pagelevel"], content_model=model)
    assert d.reason is None and set(d.fields) == {"title", "main", "rest"}


def test_passage_evidence_can_skip_pages_with_one_content_region(tmp_path):
    """``min_blocks`` 2: a page whose only content block is the page itself gets no bonus
    (its page score already is that block's score); pages with several do."""

    def blk(text):
        return Block(text, {t: 1 for t in text.split()}, weight=0.9, role="main")

    single = StoredDoc("single", {"steel": 1, "cabl": 1}, blocks={"vips": [blk("steel cabl")]})
    multi = StoredDoc("multi", {"steel": 1, "cabl": 1, "x": 1, "y": 1},
                      blocks={"vips": [blk("steel cabl"), blk("x y")]})
    fill = [StoredDoc(f"f{i}", {f"w{i}": 2}, blocks={"vips": [blk(f"w{i}"), blk(f"v{i}")]})
            for i in range(8)]
    ix = Index.create(tmp_path / "i", sources=["vips"])
    ix.add([single, multi, *fill])
    base = {"source": "vips", "weight": 1.0, "min_block_weight": 0.5, "min_terms": 1}

    def scores(**kw):
        res = Index.open(tmp_path / "i", passages={**base, **kw}).search("steel cables", k=2)
        return dict(zip(res.ids, res.scores.tolist(), strict=True))

    plain = Index.open(tmp_path / "i", passages={}).search("steel cables", k=2)
    flat = dict(zip(plain.ids, plain.scores.tolist(), strict=True))
    one, two = scores(), scores(min_blocks=2)
    assert one["single"] > flat["single"] and one["multi"] > flat["multi"]
    assert two["single"] == pytest.approx(flat["single"]) and two["multi"] > flat["multi"]


def test_idf_term_selection_prefers_discriminative_feedback_terms():
    from ir.feedback import relevance_model

    units = [({"common": 5, "rare": 3}, 1.0)]
    idf = {"common": 0.1, "rare": 3.0}.get
    plain = relevance_model(units, 1, lambda t: 1, 100, 0.5)
    assert list(plain) == ["common"]
    assert list(relevance_model(units, 1, lambda t: 1, 100, 0.5, idf, 1.0)) == ["rare"]
    both = relevance_model(units, 2, lambda t: 1, 100, 0.5, idf, 1.0)
    assert sum(both.values()) == pytest.approx(1.0) and both["rare"] > both["common"]


def test_block_score_power_sharpens_block_weights():
    a = Block("alpha beta", {"alpha": 2, "beta": 1}, seg=1)
    b = Block("alpha gamma", {"alpha": 1, "gamma": 1}, seg=2)
    blocks = {0: [a, b]}

    def weights(**kw):
        p = BlockParams(source="x", min_block_terms=1, **kw)
        got = block_units(["alpha"], [(0, 1.0)], blocks.get, lambda t: 1.0, 1.2, 0.75, p)
        return {blk.seg: s for blk, s, _ in got}

    w1, w2 = weights(), weights(score_power=2.0)
    assert w1[1] > w1[2] > 0
    assert w2[1] / w2[2] == pytest.approx((w1[1] / w1[2]) ** 2)
    with pytest.raises(ValueError, match="idf_power"):
        BlockParams(idf_power=-1.0)


def test_library_defaults_are_the_configuration_chosen_on_dev():
    """``webseg index`` / ``webseg search --prf blocks`` defaults = ``chosen.json`` (the best
    measured on the dev collections, eval/results/prf/content/README.md)."""
    import json
    from pathlib import Path

    from ir.content import DEFAULT_MODEL
    from ir.feedback import BEST_BLOCKS, BEST_RM3
    from ir.index import DEFAULT_B, DEFAULT_FIELDS, DEFAULT_K1, DEFAULT_PASSAGES
    from ir.repeats import DEFAULT_REPEATS

    f = Path(__file__).resolve().parents[1] / "eval/results/prf/content/chosen.json"
    chosen = json.loads(f.read_text())
    assert (chosen["k1"], chosen["b"]) == (DEFAULT_K1, DEFAULT_B)
    assert chosen["fields"] == DEFAULT_FIELDS and chosen["passages"] == DEFAULT_PASSAGES
    assert chosen["repeats"] == DEFAULT_REPEATS
    assert chosen["model"] == DEFAULT_MODEL
    assert chosen["blocks"] == BEST_BLOCKS
    assert chosen["rm3"] == BEST_RM3


def test_passages_can_use_the_page_index_idf(tmp_path):
    """``idf: pages`` scores passages with the page engine's IDF: the passage part of a
    page's score is then ``weight`` x BM25 of its best block with the pages' IDF."""
    from ir.bm25 import bm25_term_scores

    def blk(text):
        return Block(text, {t: 1 for t in text.split()}, weight=0.9, role="main")

    docs = [StoredDoc("a", {"steel": 1, "x": 2}, blocks={"vips": [blk("steel x x")]}),
            *[StoredDoc(f"f{i}", {f"w{i}": 2, "x": 1},
                        blocks={"vips": [blk(f"w{i} w{i} x"), blk(f"v{i} v{i} x")]})
              for i in range(6)]]  # 13 blocks on 7 pages: the two IDFs differ
    pas = {"source": "vips", "weight": 2.0, "min_block_weight": 0.5, "min_terms": 1,
           "idf": "pages"}
    Index.create(tmp_path / "i", sources=["vips"], passages=pas, k1=1.2, b=0.75).add(docs)
    ix, plain = Index.open(tmp_path / "i"), Index.open(tmp_path / "i", passages={})
    got = ix.search("steel", k=1).scores[0] - plain.search("steel", k=1).scores[0]
    dl = np.asarray([3.0] * 13)
    want = 2.0 * bm25_term_scores(np.asarray([1.0]), dl[:1], float(dl.mean()),
                                  plain.engine.idf("steel"), 1.2, 0.75)[0]
    assert got == pytest.approx(want, rel=1e-5)
    blocks_idf = Index.open(tmp_path / "i", passages={**pas, "idf": "blocks"})
    assert blocks_idf.search("steel", k=1).scores[0] != pytest.approx(
        ix.search("steel", k=1).scores[0])
    with pytest.raises(ValueError, match="idf"):
        Index.open(tmp_path / "i", passages={**pas, "idf": "page"})
