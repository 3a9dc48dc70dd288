"""ir: BM25 page index with block-based pseudo-relevance feedback.

Backends ``bm25`` (embedded BM25, Lucene's IDF) and ``lucene`` (pyserini,
``pip install webseg[lucene]``) behind one :class:`Index`; feedback ``none``, ``rm3`` and
``blocks`` (:mod:`ir.feedback`).
"""

from ir.analysis import Analyzer
from ir.index import BACKENDS, EmptyQueryError, Hit, Index, SearchResult
from ir.pipeline import doc_from_page, doc_from_text, index_paths
from ir.store import Block, IndexCorruptError, IndexNotFoundError, StoredDoc

__all__ = ["BACKENDS", "Analyzer", "Block", "EmptyQueryError", "Hit", "Index",
           "IndexCorruptError", "IndexNotFoundError", "SearchResult", "StoredDoc",
           "doc_from_page", "doc_from_text", "index_paths"]
