"""The run around the pipeline's page stages, made cheaper, gives what it gave: WARC records
inflated by ISA-L are warcio's own records, model files inflated by ISA-L are the same bytes,
and index entries handed over as made are stored as the rows :func:`ir.store.block_row`
would have rebuilt."""

from __future__ import annotations

import gzip
import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import webseg.inputs as wi
from ir import Analyzer
from ir.from_output import IndexBuilder
from ir.store import Block, StoredDoc, block_row
from tests.warc_fixture import write_crawl_warc
from webseg import fastjson

pytest.importorskip("isal")


def _records(data: bytes, isal: bool, monkeypatch) -> list[tuple]:
    monkeypatch.setattr(wi, "_ISAL_ZLIB", None if isal else False)
    monkeypatch.setattr(wi, "_ISAL_READER", None)
    out: list[tuple] = []
    try:
        for r in wi.iter_warc_stream(io.BytesIO(data), "crawl.warc.gz"):
            out.append((r.id, r.url, r.error, r.skipped, r.source, repr(r.warc)))
    except Exception as e:  # noqa: BLE001 - warcio's own failures on garbage: the same too
        out.append((type(e).__name__,))
    return out


def test_isal_reader_reads_warcios_records(tmp_path, monkeypatch):
    data = write_crawl_warc(tmp_path / "c.warc.gz", gz=True, truncate=False).read_bytes()
    cases = {"whole": data, "plain": gzip.decompress(data), "empty": b"",
             "flipped": data[:len(data) // 2] + bytes([data[len(data) // 2] ^ 0x55])
             + data[len(data) // 2 + 1:]}
    for cut in (3, 11, 200, len(data) // 3, len(data) - 9, len(data) - 1):
        cases[f"cut at {cut}"] = data[:cut]
    for name, d in cases.items():
        zlib_recs = _records(d, False, monkeypatch)
        assert _records(d, True, monkeypatch) == zlib_recs, name
    assert len(_records(data, True, monkeypatch)) >= 8  # one per page record and revisit


def test_isal_reader_is_used_and_has_a_fallback(tmp_path, monkeypatch):
    data = write_crawl_warc(tmp_path / "c.warc.gz", gz=True, truncate=False).read_bytes()
    monkeypatch.setattr(wi, "_ISAL_READER", None)
    monkeypatch.setattr(wi, "_ISAL_ZLIB", None)
    assert type(wi._isal_reader(io.BytesIO(data)).decompressor).__module__.startswith(
        ("isal", "igzip"))
    monkeypatch.setattr(wi, "_ISAL_ZLIB", False)  # ISA-L missing: warcio's own reader
    assert wi._isal_reader(io.BytesIO(data)) is None


def _outcome(fn, data):
    try:
        return fn(data)
    except Exception as e:  # noqa: BLE001 - the error's type is compared
        return type(e)


def test_gunzip_is_gzips_bytes_and_errors():
    one = gzip.compress("ünïcode ✓ ".encode() * 5000)
    cases = [one, one + gzip.compress(b"second member"), gzip.compress(b""), b"not gzip",
             b"not gzip at all", b"", b"\x1f", b"\x1f\x8b", one[:5], one[:40], one[:-2]]
    for data in cases:
        assert _outcome(fastjson.gunzip, data) == _outcome(gzip.decompress, data), data[:12]


_NUM = st.integers(-5, 2000) | st.floats(-1e5, 1e5, allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None)
@given(st.lists(_NUM, min_size=4, max_size=4) | st.none(),
       st.sampled_from([1.0, 0.5, 0.0, 0.49999, 1]) | st.floats(0, 1),
       st.sampled_from(["", "main", "template"]), st.integers(0, 99), st.integers(0, 99))
def test_a_made_row_is_its_own_block_row(box, weight, role, seg, rank):
    """What ``rows_made`` relies on: block_row of a Block.to_dict row is that row, values,
    types and key order alike."""
    kw = {} if box is None else {"box": tuple(box)}
    row = Block(text="Tx t", terms={"tx": 1}, seg=seg, rank=rank, weight=weight, role=role,
                **kw).to_dict()
    again = block_row(row)
    assert json.dumps(again) == json.dumps(row)
    assert [type(v) for v in again["box"]] == [type(v) for v in row["box"]]


def _shards(path) -> dict[str, bytes]:
    return {f.name: gzip.decompress(f.read_bytes()) for f in sorted(path.glob("*.jsonl.gz"))}


def test_entries_added_as_made_store_the_same_shards(tmp_path):
    an = Analyzer()
    docs = []
    for i in range(7):
        blocks = [Block(f"steel cable {i} {j}", {"steel": 1, "cabl": 1}, seg=j, rank=j,
                        box=(1.25, 2.0 / 3, 3.0, 4.04 + j), weight=[1.0, 0.8, 0.2][j % 3],
                        role=["", "main", "template"][j % 3]) for j in range(i % 4)]
        docs.append(StoredDoc(f"d{i}", {"steel": 2, "x": i + 1}, title=f"t{i}",
                              blocks={"blockfusion": blocks, "windows": blocks[:1]},
                              main_leaves={"k": {"steel": 1.0}} if i % 3 == 1 else {}))
    for made in (False, True):
        b = IndexBuilder(tmp_path / str(made), analyzer=an, sources=("blockfusion",),
                         passage_source="blockfusion", shard_docs=3)
        for d in docs:
            b.add(d.to_dict(), rows_made=made)
        assert b.close() == 7
    old, new = _shards(tmp_path / "False"), _shards(tmp_path / "True")
    assert old == new and len(old) == 11


def _word_ids_by_insertion(rep) -> tuple:
    """``_Vec._build_word_ids`` as first written (setdefault per entry): the reference."""
    import numpy as np

    word_id: dict[str, int] = {}
    for t in rep._index:
        word_id.setdefault(t, len(word_id))
    pairs = list(rep._pairs[0].items())
    for key, _ in pairs:
        for w in key:
            word_id.setdefault(w, len(word_id))
    uni_col = np.full(len(word_id), -1, dtype=np.int64)
    for t, i in rep._index.items():
        uni_col[word_id[t]] = i
    n = max(1, len(word_id))
    codes = np.array([word_id[k[0]] * n + word_id[k[1]] for k, _ in pairs], dtype=np.int64)
    cols = np.array([i for _, i in pairs], dtype=np.int64)
    order = np.argsort(codes, kind="stable")
    return word_id, uni_col, codes[order], cols[order], n


_WORD = st.sampled_from(["a", "b", "cc", "dé", "街", "x1", "yy", "z"])


@settings(max_examples=150, deadline=None)
@given(st.lists(_WORD | st.tuples(_WORD, _WORD).map(" ".join), unique=True, max_size=25))
def test_word_ids_are_built_as_by_insertion(vocab):
    import numpy as np

    from classify.stacked import _Vec

    rep = _Vec({"tokens": "words", "ngram_range": (1, 2)}, vocab, np.ones(len(vocab)))
    rep.rows(["a b"])  # sets up the look-up tables
    assert list(rep._index.items()) == [(t, i) for i, t in enumerate(vocab)]
    got, want = rep._build_word_ids(), _word_ids_by_insertion(rep)
    assert list(got[0].items()) == list(want[0].items()) and got[4] == want[4]
    for g, w in zip(got[1:4], want[1:4], strict=True):
        assert g.dtype == w.dtype and np.array_equal(g, w)


def _journal_lines(tmp_path) -> list[dict]:
    """Real journal lines: the crawl fixture through the parsed pipeline."""
    from webseg.pipeline.process import PipelineConfig
    from webseg.pipeline.run import run_pipeline

    warc = write_crawl_warc(tmp_path / "c.warc.gz", gz=True, truncate=False)
    run_pipeline([warc], tmp_path / "out", PipelineConfig.parsed(), progress=False)
    return [fastjson.loads(x) for x in (tmp_path / "out/work/pages.jsonl").open("rb")]


def _old_journal_line(line, internal):
    """The journal line encoded whole (the encoding journal_line_parts splices)."""
    tail = {k: line[k] for k in internal if k in line}
    public = {k: v for k, v in line.items() if k not in tail} if tail else line
    head = fastjson.dumps(public)
    if not tail:
        return head + b"\n", len(head) - 1
    return head[:-1] + b"," + fastjson.dumps(tail)[1:] + b"\n", len(head) - 1


def test_spliced_journal_lines_are_the_whole_encoding(tmp_path):
    from webseg.pipeline.collect import journal_line, journal_line_parts
    from webseg.pipeline.run import INTERNAL_FIELDS

    lines = _journal_lines(tmp_path)
    assert sum(1 for x in lines if x.get("index_doc")) >= 2
    odd = dict(lines[0], index_doc={**lines[0]["index_doc"],
                                    "blocks": {"w": [{"t": 2 ** 70}]}})
    nan = dict(lines[0], minhash=[float("nan")], index_doc={"id": "x", "blocks": {}})
    first = dict(lines[0], index_doc={"blocks": {}, "id": "x"})  # blocks not last
    for line in [*lines, odd, nan, first, {"id": "only"}]:
        data, head, parts = journal_line_parts(line, INTERNAL_FIELDS)
        assert (data, head) == _old_journal_line(line, INTERNAL_FIELDS)
        assert (data, head) == journal_line(line, INTERNAL_FIELDS)
        doc = line.get("index_doc")
        if parts is not None:
            assert parts == (fastjson.dumps({k: v for k, v in doc.items() if k != "blocks"}),
                             fastjson.dumps(doc["blocks"]))
    assert journal_line_parts(odd, INTERNAL_FIELDS)[2] is None  # a huge integer: stdlib
    assert journal_line_parts(first, INTERNAL_FIELDS)[2] is None


def test_shards_joined_from_the_journal_text_are_the_encoded_ones(tmp_path):
    from ir.from_output import _encoded_lines
    from webseg.pipeline.collect import journal_line_parts
    from webseg.pipeline.run import INTERNAL_FIELDS

    an = Analyzer()
    docs = []
    for i in range(6):
        blocks = [Block(f"null pointer {i} {j}" if i == 3 else f"steel {i} {j}", {"steel": 1},
                        seg=j, rank=j, box=(1.25, 2.0 / 3, 3.0, 4.0), weight=[1.0, 0.3][j % 2],
                        role=["", "main"][j % 2]) for j in range(i % 3 + 1)]
        docs.append(StoredDoc(f"d{i}", {"steel": 2, "x": i + 1}, title=f"t{i}",
                              url=None if i % 2 else f"http://example.org/{i}",
                              reason=None if i != 4 else "text-only",
                              blocks={"blockfusion": blocks, "windows": blocks[:1]},
                              main_leaves={"k": {"steel": 1.0}} if i % 3 == 1 else {}))
    used = 0
    for way in ("plain", "encoded"):
        b = IndexBuilder(tmp_path / way, analyzer=an, sources=("blockfusion",),
                         passage_source="blockfusion", shard_docs=4)
        for d in docs:
            entry = d.to_dict()
            parts = journal_line_parts({"id": d.id, "index_doc": entry}, INTERNAL_FIELDS)[2]
            b.add(entry, rows_made=True, encoded=parts if way == "encoded" else None)
            if way == "encoded":
                used += _encoded_lines(StoredDoc.from_dict({**entry, "blocks": {}}), entry,
                                       parts) is not None
        assert b.close() == 6
    assert used >= 3  # the encoded lines were taken (not for the page with "null" in a text)
    assert _shards(tmp_path / "plain") == _shards(tmp_path / "encoded")
