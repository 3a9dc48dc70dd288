"""Main text that repeats across pages: a template's text the main-content models kept.

The main-content models (:mod:`ir.content`) judge one page at a time, and on a page whose own
content is short a site's template can look like content: on the CACM web version with one
abstract per page (median 13 terms) about two thirds of the ``main`` field of the relevant
pages is template text (``eval/results/prf/content/mask_recall.md``). An index sees many pages
of a site at once, and a template gives itself away there: its text leaves recur verbatim on
every page it frames, while a page's own text does not (the site-level signal of Bar-Yossef
and Rajagopalan 2002 and of Chakrabarti et al. 2007's SiteLevel labels, used here at
indexing time rather than for training).

So every page stores its main-text leaves by :func:`leaf_key` (:func:`ir.content.main_leaves`)
and the index counts, per key, the live pages that have it in their main text
(:class:`RepeatTracker`). A main leaf whose key is on at least ``min_pages`` pages is
*repeated* and :func:`demote` moves its terms from ``main`` to ``rest`` - unless every main
leaf of the page is repeated: a page whose whole main text recurs elsewhere is a duplicate,
not a template, and keeps its main text. Keys are hashes of the normalised leaf text (case-
and whitespace-folded), so the rule needs no language knowledge.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from webseg.page import text_key

__all__ = ["DEFAULT_REPEATS", "RepeatTracker", "demote", "demoted_keys", "leaf_key"]

#: Repetition setting of ``webseg index`` (chosen with the rest-field weight on the three dev
#: versions, cranfield k=3, k=1 and titles-only k=1,
#: ``eval/results/prf/content/repeats_cranfield-k3-s0+cranfield-k1-s0+cranfield-titles-k1-s0.md``):
#: a main leaf on at least this many pages is template text.
DEFAULT_REPEATS: dict[str, int] = {"min_pages": 2}


#: A 64-bit hex key of a leaf's text, equal for texts that differ only in case or whitespace.
leaf_key = text_key


class RepeatTracker:
    """Which live rows have which main-leaf keys, and which keys are repeated.

    Rows are the index's rows. :meth:`add` and :meth:`remove` return the *other* rows whose
    demotion may have changed (a key reached ``min_pages``, or fell below it), which the index
    re-scores. Memory: one entry per distinct main-leaf key and per (row, key) pair.
    """

    def __init__(self, min_pages: int) -> None:
        if min_pages < 2:
            raise ValueError("min_pages must be >= 2 (a leaf on one page is not repeated)")
        self.min_pages = int(min_pages)
        self._rows_of: dict[str, set[int]] = {}
        self._keys_of: dict[int, tuple[str, ...]] = {}

    def repeated(self, key: str) -> bool:
        return len(self._rows_of.get(key, ())) >= self.min_pages

    def keys_of(self, row: int) -> tuple[str, ...]:
        """The main-leaf keys recorded for ``row``."""
        return self._keys_of.get(row, ())

    def count(self, key: str) -> int:
        """Live rows with ``key`` in their main text."""
        return len(self._rows_of.get(key, ()))

    def add(self, row: int, keys: Iterable[str]) -> set[int]:
        """Record ``row``'s main-leaf keys; returns the earlier rows to re-score."""
        ks = tuple(dict.fromkeys(keys))
        if not ks:
            return set()
        self._keys_of[row] = ks
        changed: set[int] = set()
        m = self.min_pages
        for k in ks:
            rows = self._rows_of.setdefault(k, set())
            rows.add(row)
            if len(rows) == m:  # the key just became repeated: its other rows change
                changed.update(rows)
        changed.discard(row)
        return changed

    def stats(self) -> tuple[int, int]:
        """(repeated keys, rows holding at least one of them)."""
        rep = [rows for rows in self._rows_of.values() if len(rows) >= self.min_pages]
        return len(rep), len(set().union(*rep)) if rep else 0

    def remove(self, row: int) -> set[int]:
        """Forget ``row`` (its document was superseded); returns the rows to re-score."""
        changed: set[int] = set()
        m = self.min_pages
        for k in self._keys_of.pop(row, ()):
            rows = self._rows_of[k]
            rows.discard(row)
            if len(rows) == m - 1:  # no longer repeated
                changed.update(rows)
            if not rows:
                del self._rows_of[k]
        return changed


def demoted_keys(keys: Iterable[str], tracker: RepeatTracker) -> frozenset[str]:
    """The keys of a page's main leaves that count as ``rest``: the repeated ones, none when
    every main leaf is repeated (a duplicate page)."""
    ks = set(keys)
    rep = frozenset(k for k in ks if tracker.repeated(k))
    return frozenset() if len(rep) == len(ks) else rep


def demote(fields: Mapping[str, Mapping[str, float]],
           leaves: Mapping[str, Mapping[str, float]], tracker: RepeatTracker,
           rep: Iterable[str] | None = None, n: Mapping[str, int] | None = None
           ) -> Mapping[str, Mapping[str, float]]:
    """``fields`` with the repeated main leaves' terms moved from ``main`` to ``rest``
    (``fields`` itself when nothing moves, or when every main leaf is repeated); ``leaves``:
    key -> the terms of one leaf with that text, ``n``: key -> number of such leaves when
    more than one; ``rep``: :func:`demoted_keys`, when already known."""
    n = n or {}
    rep = list(demoted_keys(leaves, tracker) if rep is None else rep)
    if not rep:
        return fields
    main = dict(fields.get("main", {}))
    rest = dict(fields.get("rest", {}))
    for k in rep:
        m = n.get(k, 1)
        for t, c1 in leaves[k].items():
            c = m * c1
            left = main.get(t, 0.0) - c
            if left > 1e-6:
                main[t] = left
            else:
                main.pop(t, None)
            rest[t] = rest.get(t, 0.0) + c
    return {**fields, "main": main, "rest": rest}
