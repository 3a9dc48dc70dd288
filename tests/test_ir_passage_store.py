"""Passage evidence read from the shards' passages files, not from the whole block store.

The compact path must rank exactly as the block-store path: same blocks, same repetition
flags, through incremental adds, superseded ids and blocks that become repeated later.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from ir import Analyzer, Index
from ir.store import Block, IndexStore, StoredDoc

PAS = {"source": "vips", "weight": 2.0, "min_block_weight": 0.5, "min_terms": 2,
       "min_blocks": 1, "repeat_pages": 2, "repeated": "mask"}
WORDS = ["steel", "cable", "bridge", "beam", "girder", "truss", "arch", "pylon", "deck",
         "anchor", "span", "load"]
TEMPLATES = ["bridge club newsletter dinner", "recent posts steel gallery",
             "about the truss society"]


def _blk(text: str, weight: float) -> Block:
    return Block(text, dict(Counter(Analyzer().tokens(text))), weight=weight,
                 role="main" if weight >= 0.5 else "template")


def _page(rng: random.Random, did: str) -> StoredDoc:
    blocks = [_blk(" ".join(rng.choices(WORDS, k=rng.randint(1, 6))), rng.random())
              for _ in range(rng.randint(0, 4))]
    blocks += [_blk(t, rng.choice([0.3, 0.8])) for t in rng.sample(TEMPLATES, rng.randint(0, 2))]
    rng.shuffle(blocks)
    terms = sum((Counter(b.terms) for b in blocks), Counter())
    src = "vips" if rng.random() < 0.9 else "dom"  # some pages fall back to windows
    return StoredDoc(did, dict(terms) or {"empty": 1},
                     blocks={src: blocks, "windows": blocks[:1]})


def _runs(ix: Index) -> list[tuple[list[str], np.ndarray]]:
    out = []
    for q in ("steel cable", "bridge club", "truss arch load", "recent posts"):
        r = ix.search(q, k=20, snippets=False)
        out.append((r.ids, r.scores))
    return out


def _same(a: list[tuple[list[str], np.ndarray]], b: list[tuple[list[str], np.ndarray]]
          ) -> None:
    for (ia, sa), (ib, sb) in zip(a, b, strict=True):
        assert ia == ib
        assert np.allclose(sa, sb)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_passages_files_rank_as_the_block_store(tmp_path, seed):
    rng = random.Random(seed)
    ix = Index.create(tmp_path / "i", sources=["vips"], passages=PAS)
    ix.add([_page(rng, f"p{i}") for i in range(25)])
    assert ix.store.has_passages("vips", 0.5)
    first = _runs(ix)
    assert ix._pas_data is not None and ix._blocks is None  # no block store read
    # more pages (some ids again: they supersede) while the compact path is live
    ix.add([_page(rng, f"p{i}") for i in rng.sample(range(25), 6)]
           + [_page(rng, f"n{i}") for i in range(10)])
    live = _runs(ix)
    fresh = Index.open(tmp_path / "i")
    _same(live, _runs(fresh))
    assert fresh._blocks is None
    from_blocks = Index.open(tmp_path / "i")
    from_blocks.blocks(0)  # block store loaded first: the passages come from it
    _same(live, _runs(from_blocks))
    assert from_blocks._pas_data is None
    assert first  # the first runs had results
    assert any(len(ids) for ids, _ in live)
    # a stricter block weight than the files hold: still the files, filtered
    strict = {**PAS, "min_block_weight": 0.7}
    compact = Index.open(tmp_path / "i", passages=strict)
    blocks = Index.open(tmp_path / "i", passages=strict)
    blocks.blocks(0)
    _same(_runs(compact), _runs(blocks))
    assert compact._pas_data is not None


def test_an_index_without_passages_files_falls_back_to_the_block_store(tmp_path):
    rng = random.Random(7)
    docs = [_page(rng, f"p{i}") for i in range(20)]
    Index.create(tmp_path / "old", sources=["vips"]).add(docs)  # no passage setting
    Index.create(tmp_path / "new", sources=["vips"], passages=PAS).add(docs)
    assert not IndexStore.open(tmp_path / "old").has_passages("vips", 0.5)
    old = Index.open(tmp_path / "old", passages=PAS)
    _same(_runs(old), _runs(Index.open(tmp_path / "new")))
    assert old._pas_data is None and old._blocks is not None
    # opened with a looser block weight than the files hold: the block store again
    looser = Index.open(tmp_path / "new", passages={**PAS, "min_block_weight": 0.2})
    _runs(looser)
    assert looser._pas_data is None and looser._blocks is not None


def test_snippets_read_only_the_shown_pages_blocks(tmp_path):
    rng = random.Random(3)
    ix = Index.create(tmp_path / "i", sources=["vips"], passages=PAS)
    ix.add([_page(rng, f"p{i}") for i in range(30)])
    ix.add([_page(rng, f"p{i}") for i in range(0, 30, 3)])  # a second shard, superseding
    ix.add([_page(rng, f"n{i}") for i in range(5)])
    for q in ("steel cable bridge", "truss arch", "recent posts"):
        few = Index.open(tmp_path / "i").search(q, k=15).hits
        full = Index.open(tmp_path / "i")
        full.blocks(0)
        want = full.search(q, k=15).hits
        assert [(h.id, h.snippet, h.snippet_seg) for h in few] == \
            [(h.id, h.snippet, h.snippet_seg) for h in want]
        assert any(h.snippet for h in few)
    long_id = "https://example.org/" + "a/" * 300  # longer than the line head read first
    ix.add([StoredDoc(long_id, {"steel": 1}, blocks={"vips": [_blk("steel girder", 0.9)]})])
    got = IndexStore.open(tmp_path / "i").blocks_of({"p3", long_id, "missing"})
    assert set(got) == {"p3", long_id} and "vips" in got["p3"]
    assert got[long_id]["vips"][0].text == "steel girder"


def test_passage_engine_parameters_and_normalised_fusion(tmp_path):
    """``k1``/``b`` in the passage setting are the passage engine's own (the page index keeps
    its); ``norm: max`` puts both evidences on [0, 1] before the weighted sum."""
    rng = random.Random(5)
    Index.create(tmp_path / "i", sources=["vips"], k1=1.5, b=0.4,
                 passages=PAS).add([_page(rng, f"p{i}") for i in range(30)])
    base = {k: v for k, v in PAS.items() if k not in ("k1", "b")}
    own = Index.open(tmp_path / "i", passages={**base, "k1": 1.2, "b": 1.0})
    same = Index.open(tmp_path / "i", passages=base)
    assert own._passage_engine()[0].b == 1.0 and same._passage_engine()[0].b == 0.4
    assert own.engine.b == same.engine.b == 0.4
    q = "steel cable bridge truss"
    assert not np.allclose(own.search(q, k=10, snippets=False).scores,
                           same.search(q, k=10, snippets=False).scores)
    normed = Index.open(tmp_path / "i", passages={**base, "norm": "max"}).search(
        q, k=30, snippets=False)
    assert normed.scores.max() <= 1.0 + base["weight"] + 1e-9
    assert normed.scores.max() >= 1.0  # the best field match scores 1 before its bonus
    with pytest.raises(ValueError, match="norm"):
        Index.open(tmp_path / "i", passages={**base, "norm": "rank"})


def test_stored_documents_come_back_with_their_blocks(tmp_path):
    rng = random.Random(11)
    docs = [_page(rng, f"p{i}") for i in range(6)]
    ix = Index.create(tmp_path / "i", sources=["vips"])
    ix.add(docs[:4])
    ix.add(docs[4:])
    got = list(ix.store.iter_docs_with_blocks())
    assert [d.id for d in got] == [d.id for d in docs]
    assert [{s: [b.text for b in bl] for s, bl in d.blocks.items()} for d in got] == \
        [{s: [b.text for b in bl] for s, bl in d.blocks.items()} for d in docs]


@pytest.mark.parametrize("row", [
    {"id": "a", "terms": {"steel": 3, "cable": 1}, "reason": None, "w": [0.1, 1e-05, 1e16]},
    {"id": "nan", "weight": float("nan"), "reason": None},  # NaN: the standard module's line
    {"id": "n2", "url": None, "title": "null", "f": {"main": {"x": float("nan")}}},
    {"id": "n3", "reason": None, "f": [None, float("-inf")], "g": None},
    {"id": "inf", "box": [float("inf"), -0.0]},
    {1: "int key"},  # orjson refuses it; the standard module writes "1"
    {"id": "big", "n": 2 ** 70},
    {"id": "np", "w": np.float64(0.25), "t": ("a", "b")},
])
def test_shard_line_reads_back_as_the_standard_modules(row):
    """A shard line (orjson when installed) parses to what the standard module's line
    parses to, for every value either module may meet, NaN and infinities included."""
    import json

    from webseg.fastjson import dumps

    got = json.loads(dumps(row, exact_nan=True))
    want = json.loads(json.dumps(row, ensure_ascii=False, separators=(",", ":")))
    # dumped again to compare: NaN != NaN, but "NaN" == "NaN" (and "NaN" != "null")
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)
