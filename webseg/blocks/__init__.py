"""Block functions: what each part of a page is for (main content, or boilerplate).

A learned model over the page's text leaves: gradient-boosted trees on
language-independent text, link, markup, position and (when rendered) geometry features
(:mod:`webseg.blocks.features`), re-scored by a second stage that sees the first-stage scores
of the leaf's neighbours and ancestors (:mod:`webseg.blocks.context`). Works on rendered pages
and on pages from :func:`webseg.parse.parse` (no geometry: those features are NaN, and the
model was trained with such pages).

>>> from webseg.blocks import block_functions          # doctest: +SKIP
>>> bf = block_functions(page)                         # doctest: +SKIP
>>> print(bf.main_text())                              # doctest: +SKIP
>>> bf.role_of(node)                                   # doctest: +SKIP
{'content': 'body', 'layout': 'content'}

Finer roles (:mod:`webseg.blocks.roles`) come from a second, small model
(``webseg/models/block_roles.json.gz``), computed on first use: :meth:`BlockFunctions.fine_proba`
and :meth:`BlockFunctions.role_of`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from webseg.blocks.features import LeafFeatures, leaf_features
from webseg.blocks.model import DEFAULT_MODEL, BlockModel, load_model
from webseg.blocks.reveal import revealed
from webseg.blocks.roles import HEADS, RoleModel, load_role_model
from webseg.blocks.siterepeat import SiteRepeats, leaf_keys, repeated_drop
from webseg.blocks.steps import decoder_steps
from webseg.blocks.units import apply_units
from webseg.page import Page, normalize_text

__all__ = ["DEFAULT_MODEL", "FINE_ROLES", "ROLES", "BlockFunctions", "BlockModel",
           "block_functions"]

#: Roles the main model distinguishes; ``ROLES[0]`` is always ``"main"``. Use
#: ``ROLES.index(name)``. The main model is binary (main content or not); the finer roles are
#: :data:`FINE_ROLES`, per head, from the role model (:mod:`webseg.blocks.roles`).
ROLES: tuple[str, ...] = ("main", "other")
#: Finer roles per head: ``content`` (title, body, supplemental, related, comments,
#: boilerplate; learned from L3S-GN1) and ``layout`` (header, navigation, footer, sidebar,
#: content, other; learned from kreuzer-random).
FINE_ROLES: dict[str, tuple[str, ...]] = HEADS


@dataclass
class BlockFunctions:
    """Per-node role probabilities and the decoded main-content mask of one page.

    ``proba`` ``(page.n, len(roles))`` float32; ``main`` P(main) per node: the leaf's stage-2
    score for text leaves, the character-weighted mean of its leaves' scores for elements, 0
    where there is no visible text; ``keep``: leaves the model's decision keeps
    (:func:`webseg.blocks.model.decide`), and elements whose visible text is all kept;
    ``leaf_scores``: per ``page.text_leaves`` entry. ``site_repeated``: the leaves dropped
    from ``keep`` as text repeated across the site's pages (:mod:`webseg.blocks.siterepeat`),
    or None when no site pages were given; ``proba``/``main``/``leaf_scores`` stay the model's.
    """

    page: Page
    proba: np.ndarray
    main: np.ndarray
    keep: np.ndarray
    leaf_scores: np.ndarray = field(repr=False)
    roles: tuple[str, ...] = ROLES
    leaf_features: LeafFeatures | None = field(default=None, repr=False)
    role_model: str | Path | RoleModel | None = field(default=None, repr=False)
    _fine: dict[str, np.ndarray] | None = field(default=None, repr=False)
    site_repeated: np.ndarray | None = field(default=None, repr=False)

    @property
    def fine_roles(self) -> dict[str, tuple[str, ...]]:
        """The finer roles of each head of the role model (:data:`FINE_ROLES` for the shipped
        one)."""
        return {h: r for h, (r, _) in load_role_model(self.role_model).heads.items()}

    def _fine_nodes(self) -> dict[str, np.ndarray]:
        """Per head ``(page.n, n_roles)`` float32: role probabilities of the text leaves, the
        character-weighted mean of its leaves' for elements, 0 where there is no visible text.
        Computed once, on first use (the role model costs a tree ensemble per head)."""
        if self._fine is None:
            rm = load_role_model(self.role_model)
            lf = self.leaf_features
            if lf is None:
                from webseg.blocks.features import leaf_features

                lf = self.leaf_features = leaf_features(self.page)
            leaf_p = rm.predict(lf, self.leaf_scores)
            w = lf.chars.astype(np.float64) + 1e-9
            out = {}
            for head, p in leaf_p.items():
                sums, has = subtree_sums(self.page, lf.leaves,
                                         np.column_stack([w, p * w[:, None]]))
                node = np.zeros((self.page.n, p.shape[1]), dtype=np.float32)
                node[has] = sums[has, 1:] / sums[has, :1]
                node[lf.leaves] = p
                out[head] = node
            self._fine = out
        return self._fine

    def fine_proba(self, head: str = "content") -> np.ndarray:
        """``(page.n, len(fine_roles[head]))`` role probabilities of every node for ``head``
        (``"content"`` or ``"layout"``); rows sum to 1 for nodes with visible text, else 0."""
        fine = self._fine_nodes()
        if head not in fine:
            raise ValueError(f"unknown role head {head!r}; known: {', '.join(fine)}")
        return fine[head]

    def role_of(self, node: int) -> dict[str, str | None]:
        """The most probable finer role of ``node`` per head (None without visible text)."""
        if not 0 <= int(node) < self.page.n:
            raise IndexError(f"node {node} outside the page (n={self.page.n})")
        roles = self.fine_roles
        out: dict[str, str | None] = {}
        for head, p in self._fine_nodes().items():
            row = p[int(node)]
            out[head] = roles[head][int(row.argmax())] if row.sum() > 0 else None
        return out

    def kept_leaves(self) -> np.ndarray:
        """Ids of the kept visible text leaves, in document order."""
        leaves = self.page.text_leaves
        return leaves[self.keep[leaves]]

    def role_shares(self) -> dict[str, float]:
        """Share of the visible text characters per role (sums to 1 when there is text)."""
        leaves = self.page.text_leaves
        chars = np.fromiter((len(normalize_text(self.page.text[j])) for j in leaves.tolist()),
                            dtype=np.float64, count=len(leaves))
        total = chars.sum()
        if total <= 0:
            return {r: 0.0 for r in self.roles}
        p = self.proba[leaves]
        return {r: float((p[:, k] * chars).sum() / total) for k, r in enumerate(self.roles)}

    def main_text(self) -> str:
        """The kept text as ``webseg clean`` writes it (:func:`webseg.clean.txt.to_text`):
        leaves joined as the browser shows them, one line per block."""
        from webseg.clean.txt import to_text

        return to_text(self.page, self.keep[self.page.text_leaves])


def subtree_sums(page: Page, leaves: np.ndarray, values: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Per node of ``page``, the column sums of ``values`` (one row per entry of ``leaves``,
    sorted node ids) over the leaves in its subtree, and whether it has any: prefix sums over
    the document order, since a subtree is a contiguous id range (``page.subtree_end``)."""
    lo = np.searchsorted(leaves, np.arange(page.n))
    hi = np.searchsorted(leaves, page.subtree_end)
    c = np.vstack([np.zeros((1, values.shape[1])), np.cumsum(values, axis=0)])
    return c[hi] - c[lo], hi > lo


def block_functions(page: Page, site_pages: Sequence[Page] | SiteRepeats = (),
                    model: str | Path | BlockModel | None = None,
                    decoder: str | None = None,
                    role_model: str | Path | RoleModel | None = None,
                    units: bool = True) -> BlockFunctions:
    """Role probabilities and the main-content decision for every node of ``page``.

    ``page`` may be rendered or parsed (:func:`webseg.parse.parse`). ``site_pages``: other
    pages of the same site (``page`` itself is skipped if present), or their
    :class:`~webseg.blocks.siterepeat.SiteRepeats` (which must not count ``page``); with at
    least two, a kept leaf whose text is a visible leaf of two of them is dropped as template
    text, unless every kept leaf is (:mod:`webseg.blocks.siterepeat`; ``site_repeated`` of the
    result). Without them the result is the model's alone.
    ``decoder``: one of :data:`webseg.blocks.model.DECODERS` (default: the model's own,
    ``"stack"`` for the shipped model; see :mod:`webseg.blocks.model`).
    ``role_model``: the finer-role model (path or loaded; default the shipped one), used only
    when finer roles are asked for. ``units``: make the decoder's mask consistent over the
    page's structure units (tables by rows, lists, ``pre``, figures, quotes, paragraphs kept or
    dropped whole; headings before kept content kept: :mod:`webseg.blocks.units`), whatever
    the decoder; ``False`` gives the decoder's leaf decision alone. Every decoder's decision
    first goes through :func:`webseg.blocks.steps.decoder_steps`: repeats of kept text under
    print/hidden markup dropped, kept leaves under comment markup or nearby boilerplate
    markup that score too little above the threshold dropped, and comment threads the
    decision mostly dropped dropped whole. When ``page`` shows
    almost none of its laid-out text (:func:`webseg.blocks.reveal.revealed`), the result's
    ``page`` is a copy in which that text is visible: index with ``result.page.text_leaves``.
    """
    if not isinstance(page, Page):
        raise TypeError(f"block_functions needs a webseg.page.Page, got {type(page).__name__}")
    m = load_model(model)
    given = page
    page = revealed(page)  # a page captured before its content showed (webseg.blocks.reveal)
    lf = leaf_features(page)
    s, keep_leaf = m.decode(lf, decoder)
    threshold = m.decision_threshold(s, lf, decoder)
    # copies the reader does not see (a print layer), comment threads and nearby boilerplate
    # the model is unsure of: decoder steps on the leaf decision (webseg.blocks.steps)
    decided = keep_leaf
    keep_leaf = decoder_steps(lf, s, keep_leaf, threshold)
    if units:  # what those steps dropped, no structure unit takes back
        keep_leaf = apply_units(page, lf.leaves, lf.chars, keep_leaf, s, threshold,
                                held=decided & ~keep_leaf)
    site_drop = None
    if isinstance(site_pages, SiteRepeats) or len(site_pages):
        site = (site_pages if isinstance(site_pages, SiteRepeats)
                else SiteRepeats.from_pages(p for p in site_pages if p is not given))
        site_drop = repeated_drop(keep_leaf, leaf_keys(page), site, member=False)
        keep_leaf = keep_leaf & ~site_drop
    n = page.n
    leaves = lf.leaves
    # element nodes: character-weighted mean of their leaves' scores; kept when all is kept
    w = lf.chars + 1e-9
    sums, has = subtree_sums(page, leaves, np.column_stack([w, w * s, w * ~keep_leaf]))
    main = np.zeros(n)
    main[has] = sums[has, 1] / sums[has, 0]
    keep = has & (sums[:, 2] <= 0)
    main[leaves] = s
    keep[leaves] = keep_leaf
    proba = np.zeros((n, len(m.roles)), dtype=np.float32)
    proba[has, 0] = main[has]
    if len(m.roles) > 1:
        proba[has, m.roles.index("other")] = 1.0 - main[has]
    repeated = None
    if site_drop is not None:
        repeated = np.zeros(n, dtype=bool)
        repeated[leaves[site_drop]] = True
    return BlockFunctions(page, proba, main, keep, s, m.roles, leaf_features=lf,
                          role_model=role_model, site_repeated=repeated)
