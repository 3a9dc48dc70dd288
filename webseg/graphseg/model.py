"""Trained GCuts / CClus models (JSON files in ``webseg/models``) and the costs they produce.

A model holds only arrays and numbers - the metric ``L``, logistic weights, the lambda chosen
on validation pages - so it is a small, diffable JSON file that loads without scikit-learn.
The feature names are stored too, and loading refuses a model whose features differ from this
code's (a model trained on another feature set would silently produce nonsense costs).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy.spatial.distance import cdist

from webseg.graphseg.features import (
    NODE_FEATURES,
    PAIR_FEATURES,
    PARENT_CHILD_FEATURES,
    ContentTree,
    NodeAttrs,
    pair_features,
)
from webseg.graphseg.learn import Logistic

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
GCUTS_SCHEMA = "webseg.graphseg.gcuts"
CCLUS_SCHEMA = "webseg.graphseg.cclus"
MODEL_VERSION = 1


def _check_features(d: dict[str, Any], key: str, expected: list[str], path: Any) -> None:
    if d.get(key) != expected:
        raise ValueError(f"model {path}: its {key} differ from this webseg's; retrain it with "
                         "python -m webseg.graphseg.train")


@dataclass
class GCutsModel:
    """Dp metric, Vpq for adjacent leaves and for parent-child edges, lambda per variant."""

    metric: np.ndarray
    d_scale: float
    d_scale_euclidean: float
    leaf_pair: Logistic
    parent_child: Logistic
    lam: dict[str, float] = field(default_factory=dict)
    dxi: dict[str, float] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"schema": GCUTS_SCHEMA, "version": MODEL_VERSION,
                "node_features": NODE_FEATURES, "pair_features": PAIR_FEATURES,
                "parent_child_features": PARENT_CHILD_FEATURES,
                "lambda": self.lam, "dxi": self.dxi, "d_scale": self.d_scale,
                "d_scale_euclidean": self.d_scale_euclidean,
                "metric": np.round(self.metric, 8).tolist(),
                "leaf_pair": self.leaf_pair.to_dict(),
                "parent_child": self.parent_child.to_dict(), "info": self.info}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path | None = None) -> GCutsModel:
        path = Path(path) if path else MODELS_DIR / "gcuts.json"
        d = json.loads(path.read_text(encoding="utf-8"))
        if d.get("schema") != GCUTS_SCHEMA or d.get("version") != MODEL_VERSION:
            raise ValueError(f"{path} is not a GCuts model of version {MODEL_VERSION}")
        _check_features(d, "node_features", NODE_FEATURES, path)
        _check_features(d, "pair_features", PAIR_FEATURES, path)
        return cls(np.asarray(d["metric"], float), float(d["d_scale"]),
                   float(d["d_scale_euclidean"]), Logistic.from_dict(d["leaf_pair"]),
                   Logistic.from_dict(d["parent_child"]),
                   {k: float(v) for k, v in d.get("lambda", {}).items()},
                   {k: float(v) for k, v in d.get("dxi", {}).items()}, d.get("info", {}))


@dataclass
class CClusModel:
    """Vpq over all leaf pairs and lambda per variant."""

    pair: Logistic
    lam: dict[str, float] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"schema": CCLUS_SCHEMA, "version": MODEL_VERSION,
                "pair_features": PAIR_FEATURES, "lambda": self.lam,
                "pair": self.pair.to_dict(), "info": self.info}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path | None = None) -> CClusModel:
        path = Path(path) if path else MODELS_DIR / "cclus.json"
        d = json.loads(path.read_text(encoding="utf-8"))
        if d.get("schema") != CCLUS_SCHEMA or d.get("version") != MODEL_VERSION:
            raise ValueError(f"{path} is not a CClus model of version {MODEL_VERSION}")
        _check_features(d, "pair_features", PAIR_FEATURES, path)
        return cls(Logistic.from_dict(d["pair"]),
                   {k: float(v) for k, v in d.get("lambda", {}).items()}, d.get("info", {}))


def select_labels(Z: np.ndarray, internal: np.ndarray, max_labels: int | None) -> np.ndarray:
    """The label set: all internal nodes, or ``max_labels`` of them by farthest-point sampling.

    The paper uses every internal node as a label. On very large pages that makes the number of
    expansions (one max-flow each) grow with the page, so above ``max_labels`` we keep a subset
    that covers the label space evenly in the learned metric (greedy k-centre, starting from the
    root): labels close to a kept one would give nearly the same Dp column anyway.
    """
    if max_labels is None or len(internal) <= max_labels:
        return internal
    P = Z[internal]
    chosen = [0]
    dmin = np.linalg.norm(P - P[0], axis=1)
    for _ in range(max_labels - 1):
        j = int(np.argmax(dmin))
        chosen.append(j)
        dmin = np.minimum(dmin, np.linalg.norm(P - P[j], axis=1))
    return internal[np.sort(np.asarray(chosen))]


def unary_costs(Z: np.ndarray, labels: np.ndarray, d_scale: float) -> np.ndarray:
    """Dp(alpha) = ||L (f_p - f_alpha)|| / d_scale for every node p and label alpha."""
    return cdist(Z, Z[labels]) / d_scale


def all_pair_costs(tree: ContentTree, attrs: NodeAttrs, model: Logistic,
                   chunk: int = 256) -> np.ndarray:
    """Symmetric (m, m) Vpq over all leaf pairs (CClus), computed in row chunks."""
    leaves = tree.leaves
    m = len(leaves)
    V = np.zeros((m, m), dtype=np.float64)
    for s in range(0, m, chunk):
        rows = np.arange(s, min(m, s + chunk))
        ii = np.repeat(rows, m)
        jj = np.tile(np.arange(m), len(rows))
        keep = jj > ii
        ii, jj = ii[keep], jj[keep]
        if len(ii) == 0:
            continue
        F = pair_features(tree, attrs, leaves[ii], leaves[jj])
        V[ii, jj] = model.predict(F)
    return V + V.T
