"""Text analysis: the one place that turns text into index terms.

Both backends index the *output* of :class:`Analyzer` (the Lucene backend stores pre-tokenised
text and queries with a whitespace analyzer), so tokenisation, stop words and stemming are
identical across backends by construction; only the ranking formula differs.

Defaults follow the shared data's BM25 sanity check (``../shared/data/ir/README.md``): lower
case, ``[a-z0-9]+`` tokens, NLTK's English stop words; stemming is ``porter`` (Porter 1980,
the algorithm Lucene's ``PorterStemFilter`` implements) through PyStemmer when it is installed,
or ``none``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

__all__ = ["NLTK_ENGLISH", "LUCENE_ENGLISH", "Analyzer", "stemmer_available"]


def _words(s: str) -> list[str]:
    return s.split()


#: NLTK's English stop-word list (nltk.corpus.stopwords.words("english"), 179 words), the list
#: the shared data's BM25 sanity numbers were computed with. Embedded so NLTK is not needed.
NLTK_ENGLISH = frozenset(_words("""
i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself
yourselves he him his himself she she's her hers herself it it's its itself they them their
theirs themselves what which who whom this that that'll these those am is are was were be been
being have has had having do does did doing a an the and but if or because as until while of at
by for with about against between into through during before after above below to from up down
in out on off over under again further then once here there when where why how all any both each
few more most other some such no nor not only own same so than too very s t can will just don
don't should should've now d ll m o re ve y ain aren aren't couldn couldn't didn didn't doesn
doesn't hadn hadn't hasn hasn't haven haven't isn isn't ma mightn mightn't mustn mustn't needn
needn't shan shan't shouldn shouldn't wasn wasn't weren weren't won won't wouldn wouldn't
"""))

#: Lucene's EnglishAnalyzer default stop set (33 words), for comparison runs.
LUCENE_ENGLISH = frozenset(_words("""
a an and are as at be but by for if in into is it no not of on or such that the their then there
these they this to was will with
"""))

_STOPSETS = {"nltk": NLTK_ENGLISH, "lucene": LUCENE_ENGLISH, "none": frozenset()}
_TOKEN = re.compile(r"[a-z0-9]+")


def stemmer_available(name: str) -> bool:
    """Whether the stemmer ``name`` can be built here (``none`` always can)."""
    try:
        _stemmer(name)
    except (ImportError, ValueError):
        return False
    return True


@lru_cache(maxsize=4)
def _stemmer(name: str) -> Callable[[str], str] | None:
    if name == "none":
        return None
    if name not in ("porter", "english"):
        raise ValueError(f"unknown stemmer {name!r}: use none, porter or english")
    import Stemmer  # PyStemmer (Snowball C implementation); 'english' is Porter2

    st = Stemmer.Stemmer(name)
    cache: dict[str, str] = {}

    def stem(w: str) -> str:
        s = cache.get(w)
        if s is None:
            s = cache[w] = st.stemWord(w)
        return s

    return stem


@dataclass(frozen=True)
class Analyzer:
    """Lower-case, ASCII-fold, ``[a-z0-9]+`` tokens, stop words removed, then stemmed.

    ``stopwords``: ``nltk`` (default), ``lucene`` or ``none``. ``stemmer``: ``porter``
    (default), ``english`` (Porter2/Snowball) or ``none``. ``max_token_len`` drops longer
    tokens (base64 blobs, URLs glued together) that would only bloat the vocabulary.
    """

    stopwords: str = "nltk"
    stemmer: str = "porter"
    max_token_len: int = 64

    def __post_init__(self) -> None:
        if self.stopwords not in _STOPSETS:
            raise ValueError(f"unknown stop-word list {self.stopwords!r}: "
                             f"use one of {sorted(_STOPSETS)}")
        _stemmer(self.stemmer)  # fail now, not at the first document

    def tokens(self, text: str) -> list[str]:
        """Index terms of ``text`` in order (repeats kept)."""
        if not text:
            return []
        low = text.lower()
        if not low.isascii():  # fold accents: café -> cafe, as Lucene's ASCIIFolding would
            low = unicodedata.normalize("NFKD", low).encode("ascii", "ignore").decode("ascii")
        stop = _STOPSETS[self.stopwords]
        stem = _stemmer(self.stemmer)
        out = []
        for t in _TOKEN.findall(low):
            if t in stop or len(t) > self.max_token_len:
                continue
            out.append(stem(t) if stem else t)
        return out

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Analyzer:
        return cls(**{k: d[k] for k in ("stopwords", "stemmer", "max_token_len") if k in d})
