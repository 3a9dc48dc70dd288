"""Near-duplicate detection with template stripping (Chakrabarti, Kumar & Punera 2007/2008).

* :mod:`dedup.shingle` - the papers' shingling: lowercase alphanumeric words, 6-word shingles,
  bottom-8 sketches of 64-bit hashes, duplicates share >= 4 of 8 (all parameters exposed);
* :mod:`dedup.lsh` - MinHash + MinHashLSH candidates (bulk numpy hashing), exact verification,
  clusters as connected components, optional datasketch storage backends (Redis);
* :mod:`dedup.strip` - which text is shingled: ``none``, ``largest``, ``pagelevel``,
  ``sitelevel``, ``extractor``;
* :mod:`dedup.detect`, :mod:`dedup.run`, :mod:`dedup.report` - a run over a collection and its
  JSON / CSV / HTML report; :mod:`dedup.cli` - ``webseg dedup``.

>>> from dedup import detect
>>> story = "the same story was published by two different newspapers on the same day"
>>> detect([("a", "Daily Post: " + story), ("b", story + " (c) Herald")]).clusters
[['a', 'b']]
"""

from dedup.detect import DedupResult, compare, detect
from dedup.shingle import PAPER, ShingleParams, is_duplicate, shingle_hashes, sketch, text_sketch

__all__ = ["PAPER", "DedupResult", "ShingleParams", "compare", "detect", "is_duplicate",
           "shingle_hashes", "sketch", "text_sketch"]
