"""The streaming collection stage: compact LSH equals datasketch's, a synthetic journal gives
the same outputs as the in-memory version, and an index builds from an output folder."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dedup.lsh import DuplicateIndex, minhash_values
from dedup.shingle import ShingleParams, shingle_hashes, sketch
from webseg.pipeline import PipelineConfig
from webseg.pipeline.collect import CompactDuplicateIndex
from webseg.pipeline.run import INTERNAL_FIELDS

PARAMS = ShingleParams(window=6, k=8, threshold=4)


def texts(seed: int, n: int) -> list[str]:
    """Pages built from a few shared stories (near duplicates) and noise."""
    rng = random.Random(seed)
    stories = [" ".join(f"s{s}w{rng.randrange(40)}" for _ in range(60)) for s in range(4)]
    out = []
    for _ in range(n):
        kind = rng.random()
        if kind < 0.6:
            st_ = stories[rng.randrange(len(stories))].split()
            cut = rng.randrange(0, 10)
            out.append(" ".join(st_[cut:] + [f"x{rng.randrange(99)}" for _ in range(3)]))
        elif kind < 0.8:
            out.append(" ".join(f"n{rng.randrange(500)}" for _ in range(rng.randrange(0, 30))))
        else:
            out.append("")
    return out


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 40))
def test_compact_lsh_finds_the_pairs_and_clusters_of_datasketch(seed: int, n: int) -> None:
    ref = DuplicateIndex(params=PARAMS, num_perm=64, lsh_threshold=0.3)
    compact = CompactDuplicateIndex(PARAMS, 64, 0.3)
    for i, t in enumerate(texts(seed, n)):
        h = shingle_hashes(t, PARAMS.window)
        sk = sketch(h, PARAMS.k)
        sig = minhash_values(h, 64) if len(h) else np.zeros(0, dtype=np.uint32)
        ref.add_signature(f"p{i}", sk, sig)
        compact.add_signature(f"p{i}", sk, sig)
    from dedup.detect import index_result

    want, got = index_result(ref), compact.result()
    assert sorted((p.a, p.b, p.shared) for p in got.pairs) == \
        sorted((p.a, p.b, p.shared) for p in want.pairs)
    assert got.clusters == want.clusters
    assert got.candidates == want.candidates
    assert got.empty == want.empty and got.short == want.short


def synthetic_journal(path: Path, n: int, seed: int = 0) -> list[str]:
    from bench.pipeline import synthetic_record

    rng = random.Random(seed)
    ids = []
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            rec = synthetic_record(i, rng)
            ids.append(rec["id"])
            f.write(json.dumps(rec) + "\n")
    return ids


def test_finalize_from_a_synthetic_journal_and_index_from_the_folder(tmp_path: Path) -> None:
    from ir import Index
    from ir.from_output import build_from_output
    from webseg.pipeline.run import finalize

    out = tmp_path / "out"
    (out / "work").mkdir(parents=True)
    ids = synthetic_journal(out / "work" / "pages.jsonl", 300)
    cfg = PipelineConfig()
    summary = finalize(ids, out, cfg)
    lines = [json.loads(x) for x in (out / "pages.jsonl").read_text().splitlines()]
    assert [r["id"] for r in lines] == ids
    assert "index_doc" not in lines[0] and "minhash" not in lines[0]
    assert summary.duplicate_clusters >= 2
    clustered = [r for r in lines if r["duplicate_cluster"]]
    assert len(clustered) == summary.pages_in_duplicate_clusters
    assert (out / "dedup" / "report.html").is_file()
    ix = Index.open(out / "index")
    with_doc = [r["id"] for r in lines if r["status"] != "skipped"]
    assert [d.id for d in ix.docs] == with_doc
    n = build_from_output(out, tmp_path / "again", shard_docs=64)
    again = Index.open(tmp_path / "again")
    assert n == len(again) == len(ix)
    for q in ("alpha", "w3 w7", "t11 t12 t13"):
        a, b = ix.search(q, k=5, prf="blocks", fb_pages=5), again.search(q, k=5, prf="blocks",
                                                                          fb_pages=5)
        assert [(h.id, h.score) for h in a.hits] == [(h.id, h.score) for h in b.hits]


def test_known_lsh_bands_are_datasketchs():
    """The (bands, rows) kept for the defaults are what datasketch's MinHashLSH computes; other
    settings are computed by it."""
    from datasketch import MinHashLSH

    from webseg.pipeline.spark import _KNOWN_BANDS, lsh_bands

    for (num_perm, threshold), got in _KNOWN_BANDS.items():
        ref = MinHashLSH(threshold=threshold, num_perm=num_perm)
        assert got == (ref.b, ref.r) == lsh_bands(num_perm, threshold)
    ref = MinHashLSH(threshold=0.5, num_perm=32)
    assert lsh_bands(32, 0.5) == (ref.b, ref.r)


def test_scan_made_while_writing_equals_the_scan_of_the_file(tmp_path: Path) -> None:
    """The page phase scans each line as it appends it; the collection stage then skips its
    first pass. Both scans, and the outputs made from them, are the same."""
    from bench.pipeline import synthetic_record
    from webseg.pipeline.collect import JournalScan, journal_line, scan_journal
    from webseg.pipeline.journal import Journal
    from webseg.pipeline.run import duplicate_index, finalize, index_builder

    rng = random.Random(3)
    recs = [synthetic_record(i, rng) for i in range(120)]
    recs[5] = {"id": "bad", "status": "error", "error": {"stage": "parse", "message": "x"}}
    recs[9] = {"id": "rv", "status": "skipped", "reason": "revisit: identical-payload-digest",
               "warc": {"type": "revisit", "refers_to_uri": "http://a/", "refers_to_date": "d"}}
    recs[11]["warc"] = {"type": "response", "target_uri": "http://a/", "date": "d",
                        "record_id": "<urn:uuid:1>"}
    cfg = PipelineConfig()
    outs = []
    for name in ("file", "live", "fed"):
        out = tmp_path / name
        live = JournalScan(dedup=duplicate_index(cfg))
        builder = index_builder(out, cfg) if name == "fed" else None
        with Journal.open(out / "work" / "pages.jsonl") as j:
            for r in recs:
                if name == "fed":  # as the page phase writes: public fields first, the
                    # index entry to the builder at once
                    data, head = journal_line(r, INTERNAL_FIELDS)
                    live.add(r, j.append(r, data), head)
                    if r.get("index_doc"):
                        builder.add(r["index_doc"])
                else:
                    live.add(r, j.append(r))
        read = scan_journal(out / "work" / "pages.jsonl", duplicate_index(cfg))
        for a in ("offsets", "failed", "by_record_id", "by_uri_date", "revisits"):
            assert getattr(live, a) == getattr(read, a)
        assert live.revisit_originals() == {"rv": recs[11]["id"]}
        assert live.dedup.keys == read.dedup.keys and live.dedup.candidates() == \
            read.dedup.candidates()
        finalize([r["id"] for r in recs], out, cfg, None if name == "file" else live, builder)
        outs.append((out / "pages.jsonl").read_bytes()
                    + _index_rows(out / "index").encode())
    assert outs[0] == outs[1] == outs[2]


def _index_rows(idx: Path) -> str:
    """Every shard row of an index, decompressed (the gzip bytes aside), and its manifest
    without the shards' checksums."""
    import gzip
    import json

    man = json.loads((idx / "index.json").read_text())
    for sh in man.get("shards", []):
        sh.pop("sha256", None)
    rows = [json.dumps(man, sort_keys=True)]
    for f in sorted(idx.glob("*.jsonl.gz")):
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            rows.append(f.name + fh.read())
    return "\n".join(rows)


def test_journal_line_head_is_the_public_fields() -> None:
    """A journal line is the whole record; its head (plus ``}``) the record without its
    internal fields, in their order: what the write pass reads of a line written this run."""
    import io

    from webseg.fastjson import loads
    from webseg.pipeline.collect import journal_line, read_at

    rec = {"id": "a", "index_doc": {"terms": {"x": 1}}, "status": "ok", "text": "é \u2028 }",
           "minhash": [1, 2], "timings": {"clean": 0.1}, "cpu_timings": {}}
    data, head = journal_line(rec, INTERNAL_FIELDS)
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    assert loads(data) == rec
    public = {k: v for k, v in rec.items() if k not in INTERNAL_FIELDS}
    assert list(read_at(io.BytesIO(b"xx" + data), 2, head).items()) == list(public.items())
    assert read_at(io.BytesIO(data), 0) == rec
    plain = {"id": "b", "status": "error"}  # no internal field: the line is the record
    data, head = journal_line(plain, INTERNAL_FIELDS)
    assert loads(data) == plain and read_at(io.BytesIO(data), 0, head) == plain
