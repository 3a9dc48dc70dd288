"""Blocks stored from their JSON rows (the collection stage's path) give the shards that
blocks stored as objects give: the same row per block, the same passages record, the same
shard lines."""

from __future__ import annotations

import gzip
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from ir import Analyzer
from ir.from_output import IndexBuilder
from ir.store import Block, StoredDoc, block_row, passage_record, passage_rows

_NUM = st.integers(-5, 2000) | st.floats(-1e4, 1e4, allow_nan=False)
_BLOCK = st.fixed_dictionaries(
    {"text": st.text(max_size=30), "terms": st.dictionaries(st.text(min_size=1, max_size=5),
                                                             st.integers(1, 4), max_size=4)},
    optional={"seg": st.integers(0, 50), "rank": st.integers(0, 50),
              "box": st.lists(_NUM, min_size=4, max_size=4),
              "weight": st.sampled_from([0.0, 0.25, 0.5, 0.49999, 1.0, 1]) | st.floats(0, 1),
              "role": st.sampled_from(["", "main", "template"])})


@settings(max_examples=300, deadline=None)
@given(st.lists(_BLOCK, max_size=6), st.sampled_from(["vips", "blockfusion", "dom"]),
       st.sampled_from([0.0, 0.5, 1.0]))
def test_rows_are_the_objects_rows(blocks, source, min_weight):
    rows = [block_row(b) for b in blocks]
    objs = [Block.from_dict(b) for b in blocks]
    assert rows == [b.to_dict() for b in objs]
    assert json.dumps(rows) == json.dumps([b.to_dict() for b in objs])  # key order too
    for by_obj, by_row in (({source: objs, "windows": objs[:1]},
                            {source: rows, "windows": rows[:1]}),
                           ({"windows": objs}, {"windows": rows}), ({}, {})):
        assert passage_rows(by_row, "blockfusion", min_weight) == \
            passage_record(by_obj, "blockfusion", min_weight)


def _shards(path) -> dict[str, list[dict]]:
    return {f.name: [json.loads(x) for x in gzip.open(f, "rt", encoding="utf-8")]
            for f in sorted(path.glob("*.jsonl.gz"))}


def test_documents_added_as_json_store_what_objects_store(tmp_path):
    an = Analyzer()
    docs = []
    for i in range(7):
        blocks = [Block(f"steel cable {i} {j}", {"steel": 1, "cabl": 1}, seg=j, rank=j,
                        box=(1.25, 2.0, 3.0, 4.04), weight=[1.0, 0.8, 0.2][j % 3],
                        role=["", "main", "template"][j % 3]) for j in range(i % 4)]
        docs.append(StoredDoc(f"d{i}", {"steel": 2, "x": i + 1}, url=None if i % 2 else
                              f"http://example.org/{i}", title=f"t{i}",
                              reason=None if i % 3 else "text-only",
                              blocks={"blockfusion": blocks, "windows": blocks[:1]},
                              fields={"main": {"steel": 1.5}} if i % 2 else {},
                              main_leaves={"k": {"steel": 1.0}} if i % 3 == 1 else {}))
    for name, items in (("objects", docs), ("json", [json.loads(json.dumps(d.to_dict()))
                                                      for d in docs])):
        b = IndexBuilder(tmp_path / name, analyzer=an, sources=("blockfusion",),
                         passage_source="blockfusion", shard_docs=3)
        for d in items:
            b.add(d)
        assert b.close() == 7
    a, j = _shards(tmp_path / "objects"), _shards(tmp_path / "json")
    # docs, blocks and passages of three shards; keys of the two with main leaves
    assert a == j and len(a) == 11


@settings(max_examples=200, deadline=None)
@given(st.lists(_NUM, min_size=4, max_size=4) | st.just(None),
       st.sampled_from([1.0, 0.5, 0.0]), st.sampled_from(["", "main"]))
def test_a_blocks_row_is_block_row_of_its_fields(box, weight, role):
    """Block.to_dict reads its attributes directly (and does not round a default box): the
    row block_row makes of the same fields, key order and float signs included."""
    blocks = [Block(text="t", terms={"a": 1}, seg=3, rank=1, weight=weight, role=role)]
    if box is not None:
        blocks.append(Block(text="t", terms={}, box=tuple(box), weight=weight, role=role))
    blocks.append(Block(text="", terms={}, box=(-0.0, 0.0, -0.04, 0.05)))
    for b in blocks:
        assert json.dumps(b.to_dict()) == json.dumps(block_row(vars(b)))


def _old_main_text_hash(main):
    """The hash as first written: every float rounded, the (term, value) pairs sorted."""
    import hashlib
    items = sorted((t, float(c) if type(c) is int else round(float(c), 3))
                   for t, c in main.items() if c > 0)
    if not items:
        return None
    return hashlib.sha1(json.dumps(items, ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=6),
                       st.integers(-2, 10**6) | st.floats(allow_nan=True)
                       | st.sampled_from([0.0, -0.0, 1.0, 3.0, 1e16, 1e300, 0.0005, 2.4995]),
                       max_size=12))
def test_main_text_hash_is_the_first_formula(main):
    from ir.store import main_text_hash

    doc = StoredDoc(id="d", terms={"x": 1}, fields={"main": main})
    assert main_text_hash(doc) == _old_main_text_hash(main)
