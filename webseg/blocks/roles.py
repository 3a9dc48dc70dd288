"""Finer block roles: what a text leaf is for, beyond main content or not.

Two heads over the same leaf features (:mod:`webseg.blocks.features`) plus the main model's
P(main) of the leaf, because the two gold sets describe different things:

- ``content`` (trained on L3S-GN1, news articles): :data:`CONTENT_ROLES` - title (headline),
  body (full text), supplemental (captions, bylines ...), related (links to other stories),
  comments, boilerplate (label 0 and unselected text).
- ``layout`` (trained on kreuzer-random, random sites): :data:`LAYOUT_ROLES` - header,
  navigation, footer, sidebar, content, other; Kreuzer's 16 block types mapped by
  :func:`kreuzer_role`.

There is no principled one-to-one mapping between the schemes (an L3S "related" list may sit in
a Kreuzer "Sidebar" or "Content"; Kreuzer's "Content" holds L3S body, supplemental and
boilerplate), so each head keeps its own label set and each node gets both.

Each head is a multi-class ``HistGradientBoostingClassifier`` exported to JSON
(:func:`webseg.blocks.gbt.export_hgb`); a model file ``webseg/models/block_roles.json.gz`` is::

    {"format": "webseg.block_roles", "version": 1, "feature_names": [...],
     "heads": {"content": {"roles": [...], "ensemble": {...}}, "layout": {...}}, ...}

``feature_names`` are looked up by name in the current :data:`FEATURE_NAMES` (so that new
feature columns do not break the model) plus ``"main_score"`` (stage-2 P(main)). Training and
evaluation: ``python -m eval.blocks_roles``.
"""

from __future__ import annotations

import difflib
import functools
from pathlib import Path
from typing import Any

import numpy as np

from webseg.blocks.align import page_words, words
from webseg.blocks.features import FEATURE_NAMES, LeafFeatures
from webseg.blocks.gbt import TreeEnsemble, read_model_json
from webseg.page import Page

__all__ = ["CONTENT_ROLES", "DEFAULT_ROLE_MODEL", "HEADS", "LAYOUT_ROLES", "L3S_ROLE",
           "RoleModel", "align_blocks", "kreuzer_role", "load_role_model", "role_columns"]

DEFAULT_ROLE_MODEL = Path(__file__).resolve().parents[1] / "models" / "block_roles.json.gz"
FORMAT = "webseg.block_roles"
CONTENT_ROLES: tuple[str, ...] = ("title", "body", "supplemental", "related", "comments",
                                  "boilerplate")
LAYOUT_ROLES: tuple[str, ...] = ("header", "navigation", "footer", "sidebar", "content",
                                 "other")
HEADS: dict[str, tuple[str, ...]] = {"content": CONTENT_ROLES, "layout": LAYOUT_ROLES}
#: L3S-GN1 block label (0-5, None = unselected) -> index into CONTENT_ROLES
L3S_ROLE: dict[int | None, int] = {1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 0: 5, None: 5}
MAIN_SCORE = "main_score"


def role_columns(names: list[str] | None = None) -> list[str]:
    """Input columns of the heads: leaf features (without the near-duplicate ``*_near``,
    ``pl_b1_*`` and ``p3_*`` columns the main model drops too) and ``main_score``."""
    names = list(FEATURE_NAMES) if names is None else names
    keep = [n for n in names if not ("_near" in n or n.startswith(("pl_b1_", "p3_")))]
    return keep + [MAIN_SCORE]


def role_matrix(lf: LeafFeatures, main_score: np.ndarray, columns: list[str]) -> np.ndarray:
    """The heads' input matrix of one page (columns by name; a name the current features do
    not compute is an error, the model must be retrained)."""
    idx = {n: k for k, n in enumerate(FEATURE_NAMES)}
    missing = [c for c in columns if c != MAIN_SCORE and c not in idx]
    if missing:
        raise ValueError(f"role model needs features that webseg.blocks.features no longer "
                         f"computes ({', '.join(missing[:5])}); retrain it "
                         "(python -m eval.blocks_roles fit)")
    cols = [lf.X[:, idx[c]] if c != MAIN_SCORE else np.asarray(main_score, dtype=np.float64)
            for c in columns]
    return np.stack(cols, axis=1) if cols else np.zeros((len(lf.leaves), 0))


# ---------------------------------------------------------------------------- gold labels
def align_blocks(page: Page, blocks: list[tuple[int | None, str]], min_block: int = 2
                 ) -> tuple[np.ndarray, float]:
    """Content role (index into :data:`CONTENT_ROLES`) of every visible text leaf, from
    L3S-GN1's labelled ``[label, text]`` blocks.

    The blocks cover the whole page text in document order, so the word sequence of all blocks
    (each word carrying its block's label) is aligned to the page's words as
    :func:`webseg.blocks.align.align_gold` does (matching runs of at least ``min_block``
    words); a leaf takes the label most of its aligned words carry, weighted by words, and
    unaligned leaves are boilerplate. Returns the roles and the share of block words aligned.
    """
    toks, owner = page_words(page)
    g: list[str] = []
    glab: list[int] = []
    for lab, text in blocks:
        w = words(text or "")
        g.extend(w)
        glab.extend([L3S_ROLE.get(lab, 5)] * len(w))
    n_leaves = len(page.text_leaves)
    K = len(CONTENT_ROLES)
    votes = np.zeros((n_leaves, K))
    n_al = 0
    if toks and g:
        vocab: dict[str, int] = {}
        a = [vocab.setdefault(t, len(vocab)) for t in toks]
        b = [vocab.setdefault(t, len(vocab)) for t in g]
        gl = np.asarray(glab, dtype=np.int64)
        sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
        for blk in sm.get_matching_blocks():
            if blk.size >= min_block:
                np.add.at(votes, (owner[blk.a:blk.a + blk.size], gl[blk.b:blk.b + blk.size]), 1)
                n_al += blk.size
    out = np.full(n_leaves, CONTENT_ROLES.index("boilerplate"), dtype=np.int64)
    has = votes.sum(axis=1) > 0
    out[has] = votes[has].argmax(axis=1)
    return out, (n_al / len(g)) if g else float("nan")


def kreuzer_role(types: list[str]) -> int:
    """Layout role (index into :data:`LAYOUT_ROLES`) of a leaf from the Kreuzer types of its
    enclosing gold blocks, outermost first (empty: outside every block -> other).

    A menu anywhere is navigation; otherwise the outermost (level-1) region decides: Header and
    Logo -> header, Footer -> footer, Sidebar -> sidebar, Menu/LinkList -> navigation, Content,
    Article, Title, Comments, Table, Author -> content (but a LinkList inside it is navigation),
    Image, Ad, Video, Searchbar -> other.
    """
    if not types:
        return LAYOUT_ROLES.index("other")
    if "Menu" in types:
        return LAYOUT_ROLES.index("navigation")
    top = types[0]
    region = {"Header": "header", "Logo": "header", "Footer": "footer", "Sidebar": "sidebar",
              "LinkList": "navigation", "Content": "content", "Article": "content",
              "Title": "content", "Comments": "content", "Table": "content",
              "Author": "content"}.get(top, "other")
    if region == "content" and "LinkList" in types[1:]:
        region = "navigation"
    return LAYOUT_ROLES.index(region)


def kreuzer_leaf_roles(page: Page, blocks: list[dict[str, Any]]) -> tuple[np.ndarray, int]:
    """Layout role of every visible text leaf from Kreuzer gold blocks (xpath, level, type);
    returns the roles and the number of block XPaths that do not resolve on ``page``."""
    enclosing: list[list[tuple[int, str]]] = [[] for _ in range(page.n)]
    depth = page.depth
    missing = 0
    for b in blocks:
        node = page.find_xpath(b["xpath"])
        if node is None:
            missing += 1
            continue
        for i in range(node, int(page.subtree_end[node])):
            enclosing[i].append((int(depth[node]), str(b["type"])))
    out = np.array([kreuzer_role([t for _, t in sorted(enclosing[j])])
                    for j in page.text_leaves.tolist()], dtype=np.int64)
    return out, missing


# ---------------------------------------------------------------------------- the model
class RoleModel:
    """A loaded role model: one multi-class ensemble per head."""

    def __init__(self, d: dict[str, Any]) -> None:
        if d.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} model (format={d.get('format')!r})")
        self.columns: list[str] = list(d["feature_names"])
        self.heads: dict[str, tuple[tuple[str, ...], TreeEnsemble]] = {}
        for name, h in d["heads"].items():
            ens = TreeEnsemble(h["ensemble"])
            roles = tuple(h["roles"])
            if ens.n_classes != len(roles) or ens.n_features != len(self.columns):
                raise ValueError(f"head {name!r}: ensemble does not match its roles/features")
            self.heads[name] = (roles, ens)
        self.meta = {k: v for k, v in d.items() if k != "heads"}

    @classmethod
    def from_file(cls, path: str | Path) -> RoleModel:
        return cls(read_model_json(path))

    def predict(self, lf: LeafFeatures, main_score: np.ndarray) -> dict[str, np.ndarray]:
        """Per head, the ``(n_leaves, n_roles)`` role probabilities of the leaves of ``lf``."""
        X = role_matrix(lf, main_score, self.columns)
        return {name: ens.predict_proba(X) if len(X) else np.zeros((0, len(roles)))
                for name, (roles, ens) in self.heads.items()}


@functools.lru_cache(maxsize=4)
def _load(path: str) -> RoleModel:
    return RoleModel.from_file(path)


def load_role_model(model: str | Path | RoleModel | None = None) -> RoleModel:
    """The role model at ``model`` (a path), the shipped one for ``None``, or ``model``."""
    if isinstance(model, RoleModel):
        return model
    p = Path(model) if model is not None else DEFAULT_ROLE_MODEL
    if not p.is_file():
        raise FileNotFoundError(f"block role model {p} not found (train one with "
                                "python -m eval.blocks_roles fit)")
    return _load(str(p.resolve()))
