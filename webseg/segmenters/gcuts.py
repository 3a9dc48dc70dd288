"""GCuts: energy-minimising graph cuts over the DOM (Chakrabarti, Kumar & Punera, WWW 2008).

Labels are the internal nodes of the content tree (the DOM restricted to text-bearing nodes,
see :mod:`webseg.graphseg.features`) plus the invisible label xi. The energy (Eq. 1, with the
domain constraints (3)-(8), :mod:`webseg.graphseg.energy`) is

* Dp(alpha): the learned Mahalanobis distance between node p's features and label alpha's
  node's features (LMNN, :mod:`webseg.graphseg.learn`), divided by its median on the training
  pages so that lambda has a stable unit; Dp(xi) = ``dxi`` for internal nodes (the paper does
  not fix it; chosen on validation pages with lambda), inf for leaves;
* Vpq for visually adjacent text leaves: lambda x the logistic-regression probability that the
  two leaves share a gold segment (paid when their labels differ);
* Vqu(., xi) for parent-child edges: lambda x the probability (a second logistic regression)
  that the parent's subtree is one segment, paid when the parent is invisible and the child is
  not - i.e. per segment root.

It is minimised by alpha-expansion from a trivial start (every node visible with one label)
until no expansion lowers it, each move one PyMaxflow min cut on the paper's three-stage graph
(:mod:`webseg.graphseg.expansion`). Graph representability (Theorem 2) is asserted for the
learned costs before minimising.

Variants (separately registered, each with its own lambda chosen on validation pages):

* ``gcuts``: as above;
* ``gcuts-np``: parent-child edges off (v = 0), so with Dp(xi) = 0 every internal node turns
  invisible and the segmentation is a labelling of the leaves with Potts smoothing;
* ``gcuts-nl``: no learning: Euclidean Dp on the fixed-scaled features and a uniformly weighted
  sum of pair dissimilarities through a sigmoid for both kinds of Vpq.

Output: one segment per used label (a label may cover several DOM subtrees: the paper's segments
need not be contiguous), rooted at the maximal subtrees whose text leaves all carry it. Every
visible text leaf is assigned (leaves cannot take xi).

**Two levels**: with a level-1 lambda (``lam1`` or ``lam["<name>@1"]`` in the model,
chosen by cross-validation at gold level 1) the energy is minimised a second time at ``lam1``
(the costs are prepared once) and the output has level 1 = that labelling, level 2 = the
labelling at ``lam`` refined by level 1 (:func:`webseg.graphseg.segments.to_two_level`). That
is two minimisations per page; the move graph's terms are cached per labelling and per label
(:class:`webseg.graphseg.expansion.Expander`), which halves the time of each, so the two-level
default costs about what one flat minimisation did before (``eval/results/cv/bench.md``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from webseg.graphseg.energy import XI, Problem
from webseg.graphseg.expansion import MinimizeResult, minimize
from webseg.graphseg.features import (
    PAIR_FEATURES,
    ContentTree,
    NodeAttrs,
    content_tree,
    leaf_adjacency,
    node_attrs,
    node_features,
    pair_features,
    parent_child_features,
)
from webseg.graphseg.learn import Logistic
from webseg.graphseg.model import GCutsModel, select_labels, unary_costs
from webseg.graphseg.segments import TwoLevelLambda, to_segmentation
from webseg.page import Page
from webseg.segmentation import Segmentation
from webseg.segmenters.base import ModelBacked, register

#: Default lambda when neither the call nor the model gives one.
DEFAULT_LAMBDA = 1.0


@dataclass
class Prepared:
    """Everything about one page that does not depend on lambda (reused by lambda sweeps)."""

    page: Page
    tree: ContentTree | None
    attrs: NodeAttrs | None = None
    labels: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    D: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    v: np.ndarray = field(default_factory=lambda: np.zeros(0))
    edges: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64))
    w: np.ndarray = field(default_factory=lambda: np.zeros(0))
    seconds: float = 0.0


@dataclass
class GCutsSegmenter(TwoLevelLambda, ModelBacked):
    """GCuts with a trained model (shipped in ``webseg/models/gcuts.json`` by default).

    ``lam``: trade-off on the pairwise costs (None: the model's validated value for ``name``);
    ``parent_child``: use parent-child edges (False = GCuts-NP); ``learned``: learned Dp and
    Vpq (False = GCuts-NL); ``dxi``: Dp(xi) of internal nodes (None: the model's validated
    value, chosen jointly with lambda); ``k_adjacent``: nearest leaves
    joined by a Potts edge; ``max_labels``: cap on the label set for very large pages
    (farthest-point subset, see :func:`webseg.graphseg.model.select_labels`); ``model``: path
    of a model file; ``lam1``: lambda of level 1 (None: the model's ``lam["<name>@1"]``;
    without either the output is flat; see the module docstring).
    """

    lam: float | None = None
    lam1: float | None = None
    parent_child: bool = True
    learned: bool = True
    dxi: float | None = None
    k_adjacent: int = 4
    max_labels: int | None = 400
    model: str | None = None
    name: str = "gcuts"
    needs_layout: bool = True
    _model: GCutsModel | None = field(default=None, init=False, repr=False)
    model_type = GCutsModel

    def fit(self, pages: list[Page], golds: list[np.ndarray], **kw: Any) -> GCutsSegmenter:
        """Train Dp and Vpq on ``pages`` (gold = label per ``page.text_leaves``, -1 = none).

        Lambda is not chosen here (it needs validation pages): see
        :func:`webseg.graphseg.train.train_gcuts`, which this calls without them.
        """
        from webseg.graphseg.train import train_gcuts

        self._model = train_gcuts(pages, golds, k_adjacent=self.k_adjacent, **kw)
        return self

    @property
    def resolved_lambda(self) -> float:
        if self.lam is not None:
            return float(self.lam)
        return float(self.get_model().lam.get(self.name, DEFAULT_LAMBDA))

    @property
    def resolved_dxi(self) -> float:
        if self.dxi is not None:
            return float(self.dxi)
        return float(self.get_model().dxi.get(self.name, 0.0))

    # ------------------------------------------------------------------ costs
    def prepare(self, page: Page) -> Prepared:
        """Content tree, features, label set and all costs except the factor lambda."""
        page.require_layout()
        t0 = time.perf_counter()
        tree = content_tree(page)
        if tree is None or len(tree.internal) == 0:
            return Prepared(page, tree, seconds=time.perf_counter() - t0)
        model = self.get_model()
        attrs = node_attrs(tree)
        X = node_features(tree, attrs)
        if self.learned:
            Z = X @ model.metric.T
            scale = model.d_scale
            vleaf_model, vpc_model = model.leaf_pair, model.parent_child
        else:
            Z = X
            scale = model.d_scale_euclidean
            vleaf_model = Logistic.uniform(len(PAIR_FEATURES))
            vpc_model = Logistic.uniform(len(PAIR_FEATURES))
        labels = select_labels(Z, tree.internal, self.max_labels)
        D = unary_costs(Z, labels, scale)
        edges = leaf_adjacency(tree, attrs, self.k_adjacent)
        w = vleaf_model.predict(pair_features(tree, attrs, edges[:, 0], edges[:, 1])) \
            if len(edges) else np.zeros(0)
        v = np.zeros(tree.n)
        if self.parent_child and tree.n > 1:
            F = parent_child_features(tree, attrs, X)
            if not self.learned:
                F = F[:, :len(PAIR_FEATURES)]
            v[1:] = vpc_model.predict(F)
        return Prepared(page, tree, attrs, labels, D, v, edges, w,
                        time.perf_counter() - t0)

    def problem(self, prep: Prepared, lam: float) -> Problem:
        tree = prep.tree
        assert tree is not None
        dxi = np.where(tree.is_leaf, np.inf, self.resolved_dxi)
        return Problem(tree.parent, prep.D, dxi, prep.v, prep.edges, prep.w, lam=lam,
                       labels=prep.labels)

    def solve(self, prep: Prepared, lam: float) -> tuple[np.ndarray, MinimizeResult | None]:
        """Labels of the content tree's leaves (label index per leaf) and the minimiser's run."""
        tree = prep.tree
        if tree is None:
            return np.zeros(0, np.int64), None
        if len(tree.internal) == 0:
            return np.zeros(len(tree.leaves), np.int64), None
        res = minimize(self.problem(prep, lam))
        S = res.labels
        assert not np.any(S[tree.leaves] == XI)
        return S[tree.leaves], res

    def solve_labels(self, prep: Prepared, lam: float) -> tuple[np.ndarray, dict[str, Any]]:
        """Label per content-tree leaf at ``lam`` and the output's parameters."""
        leaf_label, res = self.solve(prep, lam)
        params: dict[str, Any] = {
            "lambda": lam, "parent_child": self.parent_child, "learned": self.learned,
            "dxi": self.resolved_dxi, "k_adjacent": self.k_adjacent,
            "max_labels": self.max_labels}
        if res is not None:
            params.update(energy=res.energy, moves=res.moves, converged=res.converged)
        return leaf_label, params

    def segment_prepared(self, prep: Prepared, lam: float | None = None) -> Segmentation:
        lam = self.resolved_lambda if lam is None else lam
        leaf_label, params = self.solve_labels(prep, lam)
        return to_segmentation(prep.page, prep.tree, leaf_label, self.name, params,
                               label_nodes=prep.labels)



register("gcuts", "GCuts: energy-minimising graph cuts with learned costs (Chakrabarti+ 2008)")(
    GCutsSegmenter)


@register("gcuts-np", "GCuts without parent-child edges (GCuts-NP)")
def gcuts_np(**params: Any) -> GCutsSegmenter:
    """GCuts with parent-child edges given zero weight."""
    return GCutsSegmenter(**{"parent_child": False, "name": "gcuts-np", **params})


@register("gcuts-nl", "GCuts without learning: Euclidean Dp, uniform Vpq (GCuts-NL)")
def gcuts_nl(**params: Any) -> GCutsSegmenter:
    """GCuts with the Euclidean metric and uniformly weighted pair features."""
    return GCutsSegmenter(**{"learned": False, "name": "gcuts-nl", **params})
