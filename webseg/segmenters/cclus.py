"""CClus: correlation clustering of the text leaves (Chakrabarti, Kumar & Punera, WWW 2008).

The rendering constraint cannot be expressed in correlation clustering, so (as in the paper)
only the leaves are clustered: the visible text leaves of the page, with ``v_pq`` = the
logistic-regression probability that leaves p and q share a gold segment, learned over all
leaf pairs, and the Ailon-Charikar-Newman pivot algorithm (:mod:`webseg.graphseg.correlation`),
best objective of ``trials`` seeded random runs.

Variant ``cclus-nl``: no learning, ``v_pq`` a uniformly weighted sum of the pair
dissimilarities through a sigmoid (the paper reports that this collapses; we report whatever
it does).

Output: one segment per cluster, rooted at the maximal subtrees whose leaves are all in it.

**Two levels**. The gold has two levels, and one flat output scored at both is
4-6x too fine at level 1. With a level-1 lambda (``lam1``, or ``lam["cclus@1"]`` in the model,
chosen by cross-validation at gold level 1; larger, so coarser clusters) the output is level 1 =
the clustering at ``lam1``, level 2 = the clustering at ``lam`` refined by level 1
(:func:`webseg.graphseg.segments.to_two_level`), so level 2 nests in level 1. The costs are
computed once, and so is their layout for the objective
(:class:`webseg.graphseg.correlation.PairCosts`), so the second pivot run (``trials`` runs)
costs less than the first (``eval/results/cv/bench.md``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from webseg.graphseg.correlation import PairCosts
from webseg.graphseg.features import PAIR_FEATURES, ContentTree, content_tree, node_attrs
from webseg.graphseg.learn import Logistic
from webseg.graphseg.model import CClusModel, all_pair_costs
from webseg.graphseg.segments import TwoLevelLambda, to_segmentation
from webseg.page import Page
from webseg.segmentation import Segmentation
from webseg.segmenters.base import ModelBacked, register

DEFAULT_LAMBDA = 1.0


@dataclass
class CClusPrepared:
    page: Page
    tree: ContentTree | None
    V: np.ndarray
    seconds: float = 0.0
    #: ``V`` laid out for the objective, built on first solve and shared by every lambda
    costs: PairCosts | None = None


@dataclass
class CClusSegmenter(TwoLevelLambda, ModelBacked):
    """CClus with a trained model (``webseg/models/cclus.json`` by default).

    ``lam`` scales the cost of separating a pair (None: the model's validated value);
    ``trials`` random pivot runs seeded with ``seed``; ``learned=False`` gives CClus-NL;
    ``lam1``: lambda of level 1 (None: the model's ``lam["cclus@1"]``; without either the
    output is flat).
    """

    lam: float | None = None
    lam1: float | None = None
    trials: int = 20
    seed: int = 0
    learned: bool = True
    model: str | None = None
    name: str = "cclus"
    needs_layout: bool = True
    _model: CClusModel | None = field(default=None, init=False, repr=False)
    model_type = CClusModel

    def fit(self, pages: list[Page], golds: list[np.ndarray], **kw: Any) -> CClusSegmenter:
        """Train Vpq on ``pages`` (gold = label per ``page.text_leaves``, -1 = none)."""
        from webseg.graphseg.train import train_cclus

        self._model = train_cclus(pages, golds, **kw)
        return self

    @property
    def resolved_lambda(self) -> float:
        if self.lam is not None:
            return float(self.lam)
        return float(self.get_model().lam.get(self.name, DEFAULT_LAMBDA))

    def prepare(self, page: Page) -> CClusPrepared:
        page.require_layout()
        t0 = time.perf_counter()
        tree = content_tree(page)
        if tree is None:
            return CClusPrepared(page, None, np.zeros((0, 0)), time.perf_counter() - t0)
        attrs = node_attrs(tree)
        pm = self.get_model().pair if self.learned else Logistic.uniform(len(PAIR_FEATURES))
        V = all_pair_costs(tree, attrs, pm)
        return CClusPrepared(page, tree, V, time.perf_counter() - t0)

    def solve(self, prep: CClusPrepared, lam: float) -> tuple[np.ndarray, float]:
        if prep.costs is None:
            prep.costs = PairCosts(prep.V)
        return prep.costs.solve(lam, self.trials, self.seed)

    def solve_labels(self, prep: CClusPrepared, lam: float) -> tuple[np.ndarray,
                                                                     dict[str, Any]]:
        """Cluster per content-tree leaf at ``lam`` and the output's parameters."""
        labels, obj = self.solve(prep, lam)
        return labels, {"lambda": lam, "trials": self.trials, "seed": self.seed,
                        "learned": self.learned, "objective": obj}

    def segment_prepared(self, prep: CClusPrepared, lam: float | None = None) -> Segmentation:
        lam = self.resolved_lambda if lam is None else lam
        labels, params = self.solve_labels(prep, lam)
        return to_segmentation(prep.page, prep.tree, labels, self.name, params)



register("cclus", "CClus: correlation clustering of text leaves, learned Vpq (Chakrabarti+ "
         "2008)")(CClusSegmenter)


@register("cclus-nl", "CClus without learning: uniform Vpq (CClus-NL)")
def cclus_nl(**params: Any) -> CClusSegmenter:
    """CClus with uniformly weighted pair features."""
    return CClusSegmenter(**{"learned": False, "name": "cclus-nl", **params})
