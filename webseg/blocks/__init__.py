"""Block functions: what each part of a page is for (main content, or boilerplate).

A learned model over the page's text leaves (issue 14): gradient-boosted trees on
language-independent text, link, markup, position and (when rendered) geometry features
(:mod:`webseg.blocks.features`), re-scored by a second stage that sees the first-stage scores
of the leaf's neighbours and ancestors (:mod:`webseg.blocks.context`). Works on rendered pages
and on pages from :func:`webseg.parse.parse` (no geometry: those features are NaN, and the
model was trained with such pages).

>>> from webseg.blocks import block_functions          # doctest: +SKIP
>>> bf = block_functions(page)                         # doctest: +SKIP
>>> print(bf.main_text())                              # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from webseg.blocks.model import DEFAULT_MODEL, BlockModel, decide, load_model
from webseg.page import Page, normalize_text

__all__ = ["DEFAULT_MODEL", "ROLES", "BlockFunctions", "BlockModel", "block_functions"]

#: Roles the model distinguishes; ``ROLES[0]`` is always ``"main"``. Use ``ROLES.index(name)``.
#: The current model is binary (main content or not): finer roles (title, comments, related,
#: navigation, header/footer) need per-leaf role labels in the training table (L3S-GN1 block
#: labels, Kreuzer block types), which are not there yet.
ROLES: tuple[str, ...] = ("main", "other")


@dataclass
class BlockFunctions:
    """Per-node role probabilities and the decoded main-content mask of one page.

    ``proba`` ``(page.n, len(roles))`` float32; ``main`` P(main) per node: the leaf's stage-2
    score for text leaves, the character-weighted mean of its leaves' scores for elements, 0
    where there is no visible text; ``keep``: leaves the model's decision keeps
    (:func:`webseg.blocks.model.decide`), and elements whose visible text is all kept;
    ``leaf_scores``: per ``page.text_leaves`` entry.
    """

    page: Page
    proba: np.ndarray
    main: np.ndarray
    keep: np.ndarray
    leaf_scores: np.ndarray = field(repr=False)
    roles: tuple[str, ...] = ROLES

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
        """The kept text: leaves joined by a space within a block, a newline between blocks."""
        from webseg.templates.clean import _block_owner

        block = _block_owner(self.page)
        lines: list[str] = []
        cur: list[str] = []
        prev = None
        for j in self.kept_leaves().tolist():
            t = normalize_text(self.page.text[j])
            if not t:
                continue
            if prev is not None and block[j] != prev and cur:
                lines.append(" ".join(cur))
                cur = []
            prev = block[j]
            cur.append(t)
        if cur:
            lines.append(" ".join(cur))
        return "\n".join(lines)


def block_functions(page: Page, site_pages: Sequence[Page] = (),
                    model: str | Path | BlockModel | None = None,
                    decoder: str | None = None) -> BlockFunctions:
    """Role probabilities and the main-content decision for every node of ``page``.

    ``page`` may be rendered or parsed (:func:`webseg.parse.parse`). ``site_pages`` (other
    pages of the same site) is accepted for the API but not used by the current model.
    ``decoder``: ``"stack"`` (default) or ``"threshold"`` (see :mod:`webseg.blocks.model`).
    """
    if not isinstance(page, Page):
        raise TypeError(f"block_functions needs a webseg.page.Page, got {type(page).__name__}")
    m = load_model(model)
    lf, s = m.predict_page(page, decoder or "stack")
    n = page.n
    leaves = lf.leaves
    keep_leaf = decide(s, m.threshold, m.fallback and (decoder or "stack") == "stack")
    # element nodes: character-weighted mean of their leaves' scores; kept when all is kept
    w = lf.chars + 1e-9
    cw = np.concatenate([[0.0], np.cumsum(w)])
    cs = np.concatenate([[0.0], np.cumsum(w * s)])
    ck = np.concatenate([[0.0], np.cumsum(w * ~keep_leaf)])
    lo = np.searchsorted(leaves, np.arange(n))
    hi = np.searchsorted(leaves, page.subtree_end)
    mass = cw[hi] - cw[lo]
    has = hi > lo
    main = np.zeros(n)
    main[has] = (cs[hi] - cs[lo])[has] / mass[has]
    keep = has & ((ck[hi] - ck[lo]) <= 0)
    main[leaves] = s
    keep[leaves] = keep_leaf
    proba = np.zeros((n, len(m.roles)), dtype=np.float32)
    proba[has, 0] = main[has]
    if len(m.roles) > 1:
        proba[has, m.roles.index("other")] = 1.0 - main[has]
    return BlockFunctions(page, proba, main, keep, s, m.roles)
