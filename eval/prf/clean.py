"""The clean (plain-text) collections: BM25 and RM3 on the embedded and Lucene backends.

Indexes are built from ``docs.jsonl`` (title + text) with the shared analyzer. Systems:

* ``bm25`` / ``rm3`` / ``blocks(windows)`` on the embedded backend (Porter stemming, NLTK stop
  words) - ``blocks(windows)`` is block PRF with 50-word windows as blocks, the only block
  source plain text has;
* ``bm25-nostem``: the same without stemming, the setting of the shared README's sanity check;
* with pyserini installed, the Lucene backend on the same analysed terms: ``lucene-bm25``,
  ``lucene-rm3`` (our RM3 over Lucene retrieval) and ``anserini-rm3`` (Anserini's RM3).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from eval.prf.collection import Collection
from eval.prf.run import System, score_systems

__all__ = ["build_text_index", "clean_systems"]


def build_text_index(coll: Collection, path: Path, backend: str = "bm25",
                     stemmer: str = "porter", log: Callable[[str], None] = print) -> Any:
    """(Re)build a text index of ``coll`` at ``path`` unless an index of it is there already."""
    from ir import Analyzer, Index, doc_from_text
    from ir.store import IndexCorruptError, IndexNotFoundError

    try:
        ix = Index.open(path)
        if len(ix) == len(coll.docs) and ix.analyzer.stemmer == stemmer \
                and ix.backend_name == backend:
            return ix
    except (IndexNotFoundError, IndexCorruptError):
        pass
    ix = Index.create(path, backend=backend, analyzer=Analyzer(stemmer=stemmer),
                      sources=["windows"], overwrite=True)
    ix.add(doc_from_text(str(d["id"]), d.get("text", ""), ix.analyzer,
                         title=d.get("title") or "") for d in coll.docs)
    log(f"  indexed {len(ix)} docs ({backend}, stemmer {stemmer}) at {path}")
    return ix


def clean_systems(coll: Collection, work: Path, lucene: bool,
                  log: Callable[[str], None] = print) -> dict[str, Any]:
    ix = build_text_index(coll, work / f"{coll.name}-bm25", log=log)
    ix_ns = build_text_index(coll, work / f"{coll.name}-bm25-nostem", stemmer="none", log=log)
    systems = [System("bm25", ix), System("bm25-nostem", ix_ns), System("rm3", ix, "rm3"),
               System("blocks(windows)", ix, "blocks", {"source": "windows"})]
    if lucene:
        lx = build_text_index(coll, work / f"{coll.name}-lucene", backend="lucene", log=log)
        systems += [System("lucene-bm25", lx), System("lucene-rm3", lx, "rm3"),
                    System("anserini-rm3", lx, "anserini-rm3")]
    return score_systems(systems, coll, baseline="bm25", log=log)
