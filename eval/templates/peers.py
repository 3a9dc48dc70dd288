"""Main-content extractors we compare against, each run on the same decoded HTML string.

Every peer gets the text that :func:`webseg.decode.decode_html` made of the page bytes (the
decoding our renderer applies too), with its library defaults, and returns plain text. They
are imported lazily (the ``eval`` extra installs them: ``pip install -e .[eval]``).

* ``trafilatura`` - ``trafilatura.extract(html)`` (defaults: comments and tables included).
* ``justext`` - paragraphs not classified as boilerplate. jusText needs a stop-word list; the
  page language is not given by the datasets, so we take the jusText stoplist that contains
  the most of the page's (rendered) words - the usual "try every stoplist" recipe, but
  computed once per page instead of running jusText once per language.
* ``boilerpy3`` - ``ArticleExtractor`` (boilerpipe's article extractor).
* ``readability`` - readability-lxml ``Document(html).summary()``, converted to text with lxml.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Sequence
from importlib import metadata

__all__ = ["PEERS", "peer_version", "run_peer"]

#: peer name -> distribution name (for the version recorded with every result)
PEERS: dict[str, str] = {
    "trafilatura": "trafilatura",
    "justext": "jusText",
    "boilerpy3": "boilerpy3",
    "readability": "readability-lxml",
}


def peer_version(name: str) -> str:
    try:
        return metadata.version(PEERS[name])
    except metadata.PackageNotFoundError:
        return "missing"


@functools.cache
def _stoplists() -> dict[str, frozenset[str]]:
    import justext

    return {lang: frozenset(w.lower() for w in justext.get_stoplist(lang))
            for lang in sorted(justext.get_stoplists())}


def pick_stoplist(page_words: Sequence[str]) -> str:
    """The jusText language whose stoplist covers most of ``page_words`` (English on ties)."""
    best, best_hits = "English", -1
    counts = Counter(page_words)
    for lang, stop in _stoplists().items():
        hits = sum(c for w, c in counts.items() if w in stop)
        if hits > best_hits or (hits == best_hits and lang == "English"):
            best, best_hits = lang, hits
    return best


def _trafilatura(html: str, page_words: Sequence[str]) -> str:
    import trafilatura

    return trafilatura.extract(html) or ""


def _justext(html: str, page_words: Sequence[str]) -> str:
    import justext

    stop = justext.get_stoplist(pick_stoplist(page_words))
    return "\n".join(p.text for p in justext.justext(html, stop) if not p.is_boilerplate)


def _boilerpy3(html: str, page_words: Sequence[str]) -> str:
    from boilerpy3 import extractors

    return extractors.ArticleExtractor(raise_on_failure=False).get_content(html) or ""


def _readability(html: str, page_words: Sequence[str]) -> str:
    import lxml.html
    from readability import Document

    summary = Document(html).summary()
    if not summary.strip():
        return ""
    return lxml.html.fromstring(summary).text_content()


_RUN: dict[str, Callable[[str, Sequence[str]], str]] = {
    "trafilatura": _trafilatura, "justext": _justext, "boilerpy3": _boilerpy3,
    "readability": _readability,
}


def run_peer(name: str, html: str, page_words: Sequence[str] = ()) -> str:
    """Main text extracted by peer ``name`` from ``html`` (exceptions propagate)."""
    if name not in _RUN:
        raise ValueError(f"unknown peer {name!r}; known: {', '.join(_RUN)}")
    return _RUN[name](html, page_words)
