"""Snippets: the passage of a block's text that shows most of the query, with the query terms
marked by character offsets.

Words are white-space separated runs, each analysed by the index's own :class:`Analyzer`, so
a word is marked when one of its index terms is a query term - the same stemming, folding and
stop words as the search itself (``cats`` marks ``Cats,``). Inside a word the analyser's own
script runs are marked, not the whole word (``Based`` in ``School-Based``), and in a script
without spaces between words (Chinese, Japanese, Thai) the characters of the matching
bigrams: ``红月亮`` in a sentence-long run, not the sentence. When the analysis changes a run's
length (NFKC, a traditional-to-simplified phrase), that run is marked whole.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from ir.analysis import Analyzer, _runs

__all__ = ["SNIPPET_CHARS", "mark_terms", "snippet"]

#: Longest snippet, in characters (before the ellipses).
SNIPPET_CHARS = 300
_WORD = re.compile(r"\S+")
_SPACE = re.compile(r"\s+")
#: Context kept before the first marked word of a window.
_LEAD = 40


def mark_terms(text: str, terms: Collection[str], an: Analyzer
               ) -> list[tuple[int, int, frozenset[str]]]:
    """(start, end, query terms) of every word of ``text`` holding a query term."""
    want = set(terms)
    if not want:
        return []
    seen: dict[str, frozenset[str]] = {}
    out = []
    for m in _WORD.finditer(text):
        w = m.group()
        hit = seen.get(w)
        if hit is None:
            hit = seen[w] = frozenset(t for t in an.tokens(w) if t in want)
        if not hit:
            continue
        parts = _parts(w, want, an) if an.scheme == "unicode" else []
        if parts:
            out.extend((m.start() + a, m.start() + b, t) for a, b, t in parts)
            continue
        a, b = m.start(), m.end()  # the word without its punctuation
        while a < b and not text[a].isalnum():
            a += 1
        while b > a and not text[b - 1].isalnum():
            b -= 1
        out.append((a, b, hit))
    return out


def _parts(word: str, want: set[str], an: Analyzer) -> list[tuple[int, int, frozenset[str]]]:
    """The marked parts of one word: each script run whose terms hit, and in an unspaced
    run the characters of its matching bigrams (merged where they overlap). Empty when no
    part alone hits (the caller then marks the whole word)."""
    out: list[tuple[int, int, frozenset[str]]] = []
    for r in _runs().finditer(word):
        run = r.group()
        toks = an.tokens(run)
        hit = frozenset(t for t in toks if t in want)
        if not hit:
            continue
        if r.lastgroup in ("cjk", "sea") and len(run) > 1 and len(toks) == len(run) - 1:
            spans: list[list[int]] = []
            for i, t in enumerate(toks):  # bigram i covers characters i and i + 1
                if t not in want:
                    continue
                if spans and spans[-1][1] >= i:
                    spans[-1][1] = i + 2
                else:
                    spans.append([i, i + 2])
            out.extend((r.start() + a, r.start() + b, hit) for a, b in spans)
        else:
            out.append((r.start(), r.end(), hit))
    return out


def snippet(text: str, terms: Collection[str], an: Analyzer, width: int = SNIPPET_CHARS
            ) -> tuple[str, list[tuple[int, int]]]:
    """The ``width``-character passage of ``text`` with the most distinct query terms (then
    the most marked words, then the earliest), and the offsets of its marked words in it."""
    marks = mark_terms(text, terms, an)
    if len(text) <= width:
        return text, [(a, b) for a, b, _ in marks]
    start = 0
    if marks:
        best = (-1, -1)
        for a, _, _ in marks[:200]:
            s = max(0, a - _LEAD)
            inside = [m for m in marks if m[0] >= s and m[1] <= s + width]
            key = (len(frozenset().union(*(m[2] for m in inside))), len(inside))
            if key > best:
                best, start = key, s
    if start and not text[start - 1].isspace():  # begin at a word, not inside one
        gap = _SPACE.search(text, start)
        if gap is not None and gap.end() < start + _LEAD:
            start = gap.end()
    end = min(len(text), start + width)
    if end < len(text):  # end at a word
        cut = text.rfind(" ", start, end)
        if cut > start + width // 2:
            end = cut
    body = text[start:end].strip()
    lead = text[start:end].find(body) + start if body else start
    pre = "..." if start > 0 else ""
    post = "..." if end < len(text) else ""
    shift = len(pre) - lead
    spans = [(a + shift, b + shift) for a, b, _ in marks if a >= lead and b <= lead + len(body)]
    return pre + body + post, spans
