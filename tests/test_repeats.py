"""Main-text leaves repeated across pages move to ``rest`` (ir.repeats, Index ``repeats``)."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from ir import Analyzer, Index
from ir.feedback import BlockParams
from ir.repeats import RepeatTracker, demote, leaf_key
from ir.store import Block, StoredDoc


def test_leaf_key_folds_case_and_whitespace_only():
    assert leaf_key("Über  uns\n") == leaf_key("über uns")
    assert leaf_key("Über uns") != leaf_key("Über-uns")
    assert len(leaf_key("")) == 16


def test_tracker_reports_rows_whose_leaves_cross_the_threshold():
    t = RepeatTracker(3)
    assert t.add(0, ["a", "b"]) == set()
    assert t.add(1, ["a"]) == set()
    assert not t.repeated("a")
    assert t.add(2, ["a", "a"]) == {0, 1}  # "a" now on 3 pages
    assert t.repeated("a") and not t.repeated("b")
    assert t.add(3, ["a"]) == set()  # already repeated: nobody changes
    assert t.remove(3) == set()  # still on 3 pages
    assert t.remove(1) == {0, 2}  # back to 2 pages
    assert t.count("a") == 2 and not t.repeated("a")
    with pytest.raises(ValueError):
        RepeatTracker(1)


def test_demote_moves_repeated_leaves_but_never_a_whole_duplicate():
    t = RepeatTracker(2)
    t.add(0, ["nav", "own0"])
    t.add(1, ["nav", "own1"])
    fields = {"title": {"x": 1.0}, "main": {"home": 1.0, "news": 2.0, "cell": 3.0},
              "rest": {"home": 1.0}}
    leaves = {"nav": {"home": 1.0, "news": 1.0}, "own0": {"news": 1.0, "cell": 3.0}}
    out = demote(fields, leaves, t)
    assert out["main"] == {"news": 1.0, "cell": 3.0}
    assert out["rest"] == {"home": 2.0, "news": 1.0}
    assert out["title"] == fields["title"]
    assert fields["main"]["home"] == 1.0  # input untouched
    t.add(2, ["own0"])  # now every main leaf of page 0 is repeated: a duplicate page
    assert demote(fields, leaves, t) is fields


def _page(pid: str, leaves: dict[str, list[str]], rng: random.Random,
          n: dict[str, int] | None = None) -> StoredDoc:
    """A stored page whose main text is ``leaves`` (key -> words; ``n``: key -> number of
    leaves with that text, if more than one) plus some rest words."""
    n = n or {}
    ml = {k: dict(Counter(ws)) for k, ws in leaves.items()}
    main: Counter[str] = Counter()
    for k, ws in leaves.items():
        for _ in range(n.get(k, 1)):
            main.update(ws)
    rest = Counter(rng.choice("abcdefgh") for _ in range(5))
    terms = main + rest
    return StoredDoc(id=pid, terms=dict(terms), main_leaves=ml, main_leaf_n=n,
                     fields={"title": {}, "main": {t: float(c) for t, c in main.items()},
                             "rest": {t: float(c) for t, c in rest.items()}})


def _expected(docs: dict[str, StoredDoc], min_pages: int, w_rest: float
              ) -> dict[str, dict[str, float]]:
    """Index terms of every page by brute force over the final set of pages."""
    df = Counter(k for d in docs.values() for k in d.main_leaves)
    out = {}
    for pid, d in docs.items():
        rep = [k for k in d.main_leaves if df[k] >= min_pages]
        if len(rep) == len(d.main_leaves):
            rep = []
        terms: Counter[str] = Counter()
        for k, tc in d.main_leaves.items():
            for t, c in tc.items():
                terms[t] += d.main_leaf_n.get(k, 1) * c * (w_rest if k in rep else 1.0)
        for t, c in d.fields["rest"].items():
            terms[t] += c * w_rest
        out[pid] = {t: c for t, c in terms.items() if c > 0}
    return out


@pytest.mark.parametrize("seed", range(6))
def test_incremental_adds_equal_the_final_repetition_counts(tmp_path, seed):
    rng = random.Random(seed)
    templates = [{f"t{j}-{i}": [f"nav{j}{i}", "menu"] for i in range(3)} for j in range(4)]
    docs: dict[str, StoredDoc] = {}
    adds: list[StoredDoc] = []
    for n in range(40):
        pid = f"p{rng.randrange(30)}"  # some ids come again and supersede
        own = {f"own{n}-{i}": [f"w{rng.randrange(50)}" for _ in range(4)]
               for i in range(rng.randrange(0, 3))}
        tmpl = rng.choice(templates)
        twice = {k: 2 for k in tmpl if rng.random() < 0.3}  # a leaf twice on the page
        d = _page(pid, {**tmpl, **own}, rng, twice)
        docs[pid] = d
        adds.append(d)
    fields = {"title": 0.0, "main": 1.0, "rest": 0.25}
    ix = Index.create(tmp_path / "ix", fields=fields, repeats={"min_pages": 2})
    i = 0
    while i < len(adds):
        step = rng.randrange(1, 9)
        ix.add(adds[i:i + step])
        i += step
    want = _expected(docs, 2, 0.25)
    for again in (ix, Index.open(tmp_path / "ix")):
        assert set(again.pos) == set(docs)
        for pid, terms in want.items():
            got = again.engine.doc_terms(again.pos[pid])
            assert got.keys() == terms.keys()
            assert all(abs(got[t] - c) < 1e-5 for t, c in terms.items())
    live, reopened = ix.search("menu nav00 w3", k=50), Index.open(tmp_path / "ix").search(
        "menu nav00 w3", k=50)
    assert live.ids == reopened.ids
    off = Index.open(tmp_path / "ix", repeats={})  # switched off: the stored fields as they are
    for pid, d in docs.items():
        got = off.engine.doc_terms(off.pos[pid])
        assert abs(sum(got.values()) - (sum(d.fields["main"].values())
                                         + 0.25 * sum(d.fields["rest"].values()))) < 1e-4


def test_a_template_taken_for_main_text_moves_to_rest_once_it_repeats(tmp_path, monkeypatch):
    """The main-content model keeps the footer of every page (its mistake); once the footer's
    text is on ``min_pages`` pages of the index it is scored as ``rest``, while each page's own
    paragraphs stay main text."""
    import numpy as np
    from helpers import news_page

    import ir.content
    from ir import Analyzer, doc_from_page

    an = Analyzer()
    story_and_footer = {11, 13, 15, 18, 20}

    def model(pg, name="max"):
        return np.asarray([0.9 if j in story_and_footer else 0.1
                           for j in pg.text_leaves.tolist()]), None

    monkeypatch.setattr(ir.content, "leaf_main_prob", model)
    paras = ["Engineers closed the old bridge.", "Crews replaced corroded cables.",
             "The council inspected the pillars.", "Divers checked the riverbed."]
    docs = [doc_from_page(f"p{i}", news_page(para1=p, para2=f"Report number {i}."), an,
                          ["dom"]) for i, p in enumerate(paras)]
    d0 = docs[0]
    # the main leaves are the main field, by leaf text
    merged: Counter[str] = Counter()
    for k, tc in d0.main_leaves.items():
        for _ in range(d0.main_leaf_n.get(k, 1)):
            merged.update(tc)
    assert dict(merged) == d0.fields["main"]
    assert leaf_key("Privacy") in d0.main_leaves
    ix = Index.create(tmp_path / "ix", fields={"title": 0.0, "main": 1.0, "rest": 0.1},
                      repeats={"min_pages": 3})
    ix.add(docs[:2])  # the footer is on 2 pages: not yet repeated
    assert "privaci" in ix.doc_fields(d0)["main"]
    assert ix.engine.doc_terms(ix.pos["p0"])["privaci"] == pytest.approx(1.0)
    ix.add(docs[2:])  # now on 4 pages: p0 and p1 are re-scored too
    f0 = ix.doc_fields(d0)
    assert "privaci" not in f0["main"] and f0["rest"]["privaci"] == pytest.approx(1.0)
    assert "bridg" in f0["main"] and "engin" in f0["main"]
    for pid in ("p0", "p1", "p3"):
        terms = ix.engine.doc_terms(ix.pos[pid])
        assert terms["privaci"] == pytest.approx(0.1) and terms["contact"] == pytest.approx(0.1)
    hits = ix.search("privacy cables", k=4).ids
    assert hits[0] == "p1"  # its own text decides, not the shared footer
    n_keys, n_pages = ix.repeat_stats()
    assert (n_keys, n_pages) == (3, 4)  # the h1 title, "Contact us", "Privacy"
    assert Index.open(tmp_path / "ix", repeats={}).repeat_stats() is None


def test_open_counts_from_the_keys_files_and_falls_back_to_documents(tmp_path):
    """Opening reads the small per-shard keys files; a store written without them (older
    indexes) gives the same index; a damaged keys file is reported, not read."""
    import json

    from ir.store import IndexCorruptError

    rng = random.Random(3)
    nav = {"nav": ["home", "menu"], "foot": ["contact"]}
    docs = [_page(f"p{i}", {**nav, f"own{i}": [f"w{i}", "text"]}, rng) for i in range(5)]
    fields = {"title": 0.0, "main": 1.0, "rest": 0.1}
    ix = Index.create(tmp_path / "ix", fields=fields, repeats={"min_pages": 3})
    ix.add(docs[:2])
    ix.add(docs[2:])
    keyfiles = sorted((tmp_path / "ix").glob("*.keys.jsonl.gz"))
    assert len(keyfiles) == 2
    want = {d.id: ix.engine.doc_terms(ix.pos[d.id]) for d in docs}

    def same(other: Index) -> bool:
        got = {d.id: other.engine.doc_terms(other.pos[d.id]) for d in docs}
        return all(got[i].keys() == w.keys() and all(got[i][t] == pytest.approx(c)
                                                      for t, c in w.items())
                   for i, w in want.items())

    assert same(Index.open(tmp_path / "ix"))
    assert want["p0"]["home"] == pytest.approx(0.1) and want["p0"]["w0"] == 1.0
    mf = tmp_path / "ix" / "index.json"
    manifest = json.loads(mf.read_text())
    for sh in manifest["shards"]:  # as written before keys files existed
        del sh["sha256"]["keys"]
    mf.write_text(json.dumps(manifest))
    for f in keyfiles:
        f.unlink()
    assert same(Index.open(tmp_path / "ix"))
    ix2 = Index.create(tmp_path / "ix2", fields=fields, repeats={"min_pages": 3})
    ix2.add(docs)
    kf = next((tmp_path / "ix2").glob("*.keys.jsonl.gz"))
    kf.write_bytes(kf.read_bytes()[:-5])
    with pytest.raises(IndexCorruptError, match="keys"):
        Index.open(tmp_path / "ix2")


def test_main_leaves_keep_one_leaf_per_text_and_its_multiplicity(monkeypatch):
    import numpy as np
    from helpers import news_page

    from ir import Analyzer
    from ir.content import main_leaves

    an = Analyzer()
    page = news_page(para1="Same words here.", para2="SAME  words here.")
    p = np.asarray([0.9 if j in {11, 13, 15} else 0.1 for j in page.text_leaves.tolist()])
    leaves, n = main_leaves(page, p, an)
    k = leaf_key("same words here.")
    assert n == {k: 2} and leaves[k] == {t: 1.0 for t in an.tokens("same words here")}
    assert leaf_key("Bridge repairs begin") in leaves and leaf_key("Home") not in leaves


def _blk(text: str, weight: float = 0.9) -> Block:
    return Block(text, dict(Counter(Analyzer().tokens(text))), weight=weight,
                 role="main" if weight >= 0.5 else "template")


def test_content_blocks_leave_out_blocks_repeated_across_pages(tmp_path):
    """A template's block the content model took for content (same text on two pages) is
    left out of a page's content blocks; a page whose content blocks all repeat (a duplicate)
    keeps them; adds and superseding pages update the counts without a rebuild."""
    tmpl = "Recent posts: homebrewing adventures"
    ix = Index.create(tmp_path / "i", sources=["vips"])
    ix.add([StoredDoc("a", {"x": 1}, blocks={"vips": [_blk(tmpl), _blk("steel cable one"),
                                                      _blk("menu", 0.1)]})])

    def texts(row: int, **kw: int) -> list[str]:
        return [b.text for b in ix.content_blocks(row, "vips", 0.5, **kw)]

    assert texts(0, repeat_pages=2) == [tmpl, "steel cable one"]  # on one page only
    ix.add([StoredDoc("b", {"x": 1}, blocks={"vips": [_blk(tmpl.upper()), _blk("beam two")]}),
            StoredDoc("c", {"x": 1}, blocks={"vips": [_blk("  beam   TWO ")]})])
    assert texts(0, repeat_pages=2) == ["steel cable one"]
    # every content block of "b" (and of "c") repeats: a duplicate keeps them all
    assert texts(ix.pos["b"], repeat_pages=2) == [tmpl.upper(), "beam two"]
    assert texts(ix.pos["c"], repeat_pages=2) == ["  beam   TWO "]
    assert texts(0, repeat_pages=3) == [tmpl, "steel cable one"]
    assert texts(0) == [tmpl, "steel cable one"]  # off: weight only
    # "b" superseded by a page without the template text: nothing repeats any more
    ix.add([StoredDoc("b", {"x": 1}, blocks={"vips": [_blk("girder three")]})])
    assert texts(0, repeat_pages=2) == [tmpl, "steel cable one"]
    assert texts(ix.pos["c"], repeat_pages=2) == ["  beam   TWO "]
    # an index opened afresh counts the same
    again = Index.open(tmp_path / "i")
    for did, r in ix.pos.items():
        got = [b.text for b in again.content_blocks(again.pos[did], "vips", 0.5, 2)]
        assert got == texts(r, repeat_pages=2)


def test_block_feedback_skips_repeated_template_blocks(tmp_path):
    """Block PRF with ``repeat_pages`` takes no feedback terms from a block that recurs on
    every page of a site, even when the content model scored it as content."""
    tmpl = "bridge club newsletter dinner dance raffle"
    docs = [StoredDoc(f"p{i}", {"bridg": 1, f"w{i}": 1},
                      blocks={"vips": [_blk(tmpl), _blk(f"bridge steel cable w{i}")]})
            for i in range(6)]
    docs += [StoredDoc(f"f{i}", {f"filler{i}": 3}) for i in range(30)]
    ix = Index.create(tmp_path / "i", sources=["vips"])
    ix.add(docs)
    kw = {"source": "vips", "fb_pages": 6, "fb_blocks": 12, "fb_terms": 10,
          "min_block_weight": 0.5, "min_block_terms": 1}
    keep = ix.search("bridge", prf="blocks", **kw)
    skip = ix.search("bridge", prf="blocks", repeat_pages=2, **kw)
    club = set(Analyzer().tokens(tmpl)) - set(Analyzer().tokens("bridge"))
    assert club & set(keep.expanded)
    assert not club & set(skip.expanded)
    assert all(u["text"] != tmpl for u in skip.feedback_units)
    with pytest.raises(ValueError):
        BlockParams(repeat_pages=1)


@pytest.mark.parametrize("mode", ["drop", "mask"])
def test_passages_without_repeated_blocks_follow_incremental_adds(tmp_path, mode):
    """With ``repeat_pages`` in the passage setting, a block that becomes repeated stops
    giving passage evidence to the earlier page too (``drop``: it leaves the passage engine;
    ``mask``: it stays in its statistics), and the index equals a fresh open."""
    pas = {"source": "vips", "weight": 1.0, "min_block_weight": 0.5, "min_terms": 1,
           "repeat_pages": 2, "repeated": mode}
    tmpl = "steel cable bridge club"
    fill = [StoredDoc(f"f{i}", {f"w{i}": 2}, blocks={"vips": [_blk(f"w{i} w{i}")]})
            for i in range(8)]  # blocks without the query terms: positive IDF for them
    ix = Index.create(tmp_path / "i", sources=["vips"], passages=pas)
    ix.add([StoredDoc("a", {"steel": 1, "x": 3}, blocks={"vips": [_blk(tmpl), _blk("x x x")]}),
            StoredDoc("b", {"steel": 1, "x": 3}, blocks={"vips": [_blk("steel y"),
                                                                  _blk("z x x")]}),
            *fill])
    assert ix.search("steel cable", k=2).ids == ["a", "b"]  # its block holds both terms
    ix.add([StoredDoc("c", {"q": 1}, blocks={"vips": [_blk(tmpl), _blk("q q")]})])
    after = ix.search("steel cable", k=3)
    fresh = Index.open(tmp_path / "i").search("steel cable", k=3)
    assert after.ids == fresh.ids and np.allclose(after.scores, fresh.scores)
    assert after.ids[:2] == ["b", "a"]  # "a" lost the template block's evidence


def test_masked_repeated_blocks_count_in_the_passage_statistics(tmp_path):
    """``mask`` and ``drop`` take evidence from the same blocks, but under ``mask`` the
    repeated blocks still count in the passage engine's statistics (N, avgdl), so the
    evidence of the same block differs; an unknown mode is refused."""
    tmpl = "steel cable bridge club"
    docs = [StoredDoc(f"p{i}", {"steel": 1, f"o{i}": 2},
                      blocks={"vips": [_blk(tmpl), _blk(f"steel o{i} o{i}")]})
            for i in range(4)] + [StoredDoc(f"f{i}", {f"w{i}": 2}) for i in range(8)]
    pas = {"source": "vips", "weight": 1.0, "min_block_weight": 0.5, "min_terms": 1,
           "repeat_pages": 2}
    Index.create(tmp_path / "i", sources=["vips"], passages=pas).add(docs)
    drop = Index.open(tmp_path / "i", passages={**pas, "repeated": "drop"})
    mask = Index.open(tmp_path / "i", passages={**pas, "repeated": "mask"})
    plain = Index.open(tmp_path / "i", passages={})
    d, m, p0 = (ix.search("steel", k=4) for ix in (drop, mask, plain))
    assert d.ids == m.ids == p0.ids
    assert (d.scores > p0.scores).all() and (m.scores > p0.scores).all()
    assert not np.allclose(d.scores, m.scores)  # N = 4 blocks vs 8 in the passage engine
    with pytest.raises(ValueError, match="repeated"):
        Index.open(tmp_path / "i", passages={**pas, "repeated": "skip"})
