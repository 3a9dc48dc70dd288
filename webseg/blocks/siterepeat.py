"""Main text that repeats across pages of one site: a template the block model kept.

The block model judges one page at a time, and on a page whose own content is short a site's
template (a footer, a "related" box, a newsletter blurb) can look like content. Several
pages of one site give it away: template text recurs verbatim on every page it frames, while
a page's own text does not (the site-level signal of Bar-Yossef and Rajagopalan 2002; the
same rule that ``ir/repeats.py`` applies to the main field at indexing time).

The rule (pure, language-independent, no model; :data:`MIN_PAGES` fixed, not tuned):

* a leaf is *repeated* when its :func:`webseg.page.text_key` (case- and whitespace-folded
  text hash) is a **visible text leaf** - kept by the model or not - of at least
  ``MIN_PAGES - 1`` *other* pages of the group (so on ``MIN_PAGES`` pages with itself);
* the page's **kept** leaves that are repeated are dropped from its main text, **unless that
  would drop every kept leaf**: a page whose whole main text recurs on other pages is a
  duplicate (or a page that is all template), not a template on a page, and keeps its text.

Why visible leaves and not the other pages' kept leaves (``ir/repeats.py`` counts main leaves,
the only ones it stores): the template is the same text whatever the model decided on the
other pages - a footer the model rightly dropped on nine pages and kept on the tenth is still
the site's footer - and counting visible leaves needs no model run on the other pages, so
:func:`webseg.blocks.block_functions` with ``site_pages`` costs one pass over their text.
This choice was fixed before measuring (``eval/results/blocks/siterepeat/README.md``).

A group with fewer than ``MIN_PAGES - 1`` other pages can repeat nothing, so a single page's
result is unchanged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

import numpy as np

from webseg.page import Page, text_key

__all__ = ["DEFAULT_SITE_REPEATS", "MIN_PAGES", "SiteRepeats", "leaf_keys", "repeated_drop",
           "site_group"]

#: A kept leaf whose text is a visible leaf of at least this many pages of the group
#: (itself included) is template text. Fixed (the value of ``ir.repeats.DEFAULT_REPEATS``),
#: not tuned on the measurement.
MIN_PAGES = 3
#: Whether ``webseg clean`` applies the rule to several inputs by default: set by the
#: pre-registered adoption rule of ``eval/results/blocks/siterepeat/README.md``.
DEFAULT_SITE_REPEATS = True


def leaf_keys(page: Page) -> list[str]:
    """:func:`webseg.page.text_key` of every ``page.text_leaves`` entry, in order."""
    return [text_key(page.text[j]) for j in page.text_leaves.tolist()]


class SiteRepeats:
    """Per text key, how many pages of a group show it as a visible text leaf.

    Built once per group from each page's keys (:func:`leaf_keys`; a page counts once per
    key however often it shows it). ``member``: whether the page asked about is one of the
    group's pages (its own occurrence is then not counted as another page's).
    """

    def __init__(self, pages_keys: Iterable[Iterable[str]], min_pages: int = MIN_PAGES) -> None:
        if min_pages < 2:
            raise ValueError("min_pages must be >= 2 (a leaf on one page is not repeated)")
        self.min_pages = int(min_pages)
        self.counts: Counter[str] = Counter()
        self.n_pages = 0
        for keys in pages_keys:
            self.counts.update(set(keys))
            self.n_pages += 1

    @classmethod
    def from_pages(cls, pages: Iterable[Page], min_pages: int = MIN_PAGES) -> SiteRepeats:
        """The group of ``pages`` (each revealed as :func:`webseg.blocks.block_functions`
        reveals the page it decides, so both count the same leaves)."""
        from webseg.blocks.reveal import revealed

        return cls((leaf_keys(revealed(p)) for p in pages), min_pages)

    def others(self, keys: Sequence[str], member: bool) -> np.ndarray:
        """Per key, the number of *other* pages of the group showing it."""
        c = np.fromiter((self.counts.get(k, 0) for k in keys), dtype=np.int64, count=len(keys))
        if member:
            c = np.maximum(c - 1, 0)
        return c

    def repeated(self, keys: Sequence[str], member: bool) -> np.ndarray:
        """Per key: on at least ``min_pages`` pages, the page itself included."""
        return self.others(keys, member) >= self.min_pages - 1


def repeated_drop(keep: np.ndarray, keys: Sequence[str], site: SiteRepeats,
                  member: bool) -> np.ndarray:
    """Bool per leaf: the kept leaves the rule drops (none when all kept leaves are repeated).

    ``keep``: the model's decision per leaf; ``keys``: the leaves' :func:`leaf_keys`."""
    keep = np.asarray(keep, dtype=bool)
    if len(keys) != len(keep):
        raise ValueError(f"{len(keys)} keys for {len(keep)} leaves")
    drop = keep & site.repeated(keys, member) if len(keep) else np.zeros(0, dtype=bool)
    if not drop.any() or drop.sum() == keep.sum():
        return np.zeros(len(keep), dtype=bool)
    return drop


def site_group(url: str | None) -> str:
    """The group of a page in a batch (``webseg clean`` with several inputs): the lower-case
    host of its http(s) URL, exactly (``www.example.org`` and ``example.org`` are two
    groups: a host is what one template usually serves, and no public-suffix list is needed);
    ``""`` for a page without one (a local file, ``file:`` URL): the local pages of one call
    form one group, since a user who cleans a folder of saved pages in one call usually
    cleans one site, and the rule only fires on text shown by three of them."""
    if not url:
        return ""
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    if parts.scheme.lower() not in ("http", "https"):
        return ""
    return (parts.hostname or "").lower()
