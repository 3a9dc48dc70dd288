"""Templateness classifier of PageLevel (Chakrabarti, Kumar & Punera, WWW 2007, section 5.2).

Four logistic-regression models, one per bucket of node area, over the features of
:func:`webseg.templates.features.node_features`. The paper says only that "distributions of
feature values varied heavily depending on the area of the DOM node", so it trains "four
logistic regression models for DOM nodes of different sizes", without giving the buckets. Here
the buckets are fixed in absolute CSS px^2 (default edges ``10,000``, ``60,000`` and ``300,000``,
i.e. roughly a button, a box, a column and a page region at 1280 px wide); nodes below the
paper's 2,000 px^2 "hidden" area fall into the first bucket (the smoother ignores their scores).

The model is plain JSON (no pickle): feature names, bucket edges, and per bucket the
standardisation (``mean``, ``scale``), the coefficients and the intercept. Prediction is
``sigmoid(((X - mean) / scale) @ coef + intercept)``: the probability that a node is template.
NaN features (pages without layout) are replaced by the bucket's mean, i.e. contribute nothing.

>>> import numpy as np
>>> clf = TemplateClassifier.uniform()
>>> float(clf.predict_proba_features(np.zeros((1, len(FEATURE_NAMES))), np.array([5e4]))[0])
0.5
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from webseg.page import Page
from webseg.templates.features import FEATURE_NAMES, node_features

__all__ = ["BucketModel", "DEFAULT_EDGES", "TemplateClassifier", "default_model_path"]

SCHEMA = "webseg.templates.classifier"
SCHEMA_VERSION = 1

#: Area bucket edges in CSS px^2: bucket k holds areas in ``[edges[k-1], edges[k])``.
DEFAULT_EDGES: tuple[float, ...] = (1.0e4, 6.0e4, 3.0e5)


def default_model_path() -> Path:
    """Path of the shipped model ``webseg/models/pagelevel.json``."""
    return Path(str(resources.files("webseg") / "models" / "pagelevel.json"))


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # overflow-free logistic


@dataclass
class BucketModel:
    """One logistic regression: standardisation plus linear weights."""

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    n_train: int = 0
    n_template: int = 0

    def decision(self, X: np.ndarray) -> np.ndarray:
        Z = (X - self.mean) / self.scale
        Z = np.where(np.isfinite(Z), Z, 0.0)
        return Z @ self.coef + self.intercept

    def to_dict(self) -> dict[str, Any]:
        return {"mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "coef": self.coef.tolist(), "intercept": float(self.intercept),
                "n_train": int(self.n_train), "n_template": int(self.n_template)}

    @classmethod
    def from_dict(cls, d: dict[str, Any], n_features: int) -> BucketModel:
        arrs = [np.asarray(d[k], dtype=np.float64) for k in ("mean", "scale", "coef")]
        for k, a in zip(("mean", "scale", "coef"), arrs, strict=True):
            if a.shape != (n_features,):
                raise ValueError(f"bucket {k} has shape {a.shape}, expected ({n_features},)")
        if np.any(arrs[1] <= 0):
            raise ValueError("bucket scale must be > 0")
        return cls(*arrs, intercept=float(d["intercept"]), n_train=int(d.get("n_train", 0)),
                   n_template=int(d.get("n_template", 0)))


@dataclass
class TemplateClassifier:
    """Per-node templateness probability from four area-bucketed logistic regressions.

    ``C`` is the inverse L2 regularisation strength used by :meth:`fit` (scikit-learn's
    meaning); ``edges`` the area bucket edges in px^2.
    """

    edges: tuple[float, ...] = DEFAULT_EDGES
    C: float = 1.0
    feature_names: tuple[str, ...] = FEATURE_NAMES
    buckets: list[BucketModel] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    # ------------------------------------------------------------------ construction
    @classmethod
    def uniform(cls, edges: tuple[float, ...] = DEFAULT_EDGES) -> TemplateClassifier:
        """An untrained classifier that predicts 0.5 everywhere (for tests)."""
        k = len(FEATURE_NAMES)
        b = [BucketModel(np.zeros(k), np.ones(k), np.zeros(k), 0.0) for _ in range(len(edges) + 1)]
        return cls(edges=tuple(edges), buckets=b)

    def bucket_of(self, area: np.ndarray) -> np.ndarray:
        """Bucket index of every area (px^2)."""
        return np.searchsorted(np.asarray(self.edges, dtype=np.float64),
                               np.asarray(area, dtype=np.float64), side="right")

    def fit(self, X: np.ndarray, area: np.ndarray, y: np.ndarray,
            sample_weight: np.ndarray | None = None) -> TemplateClassifier:
        """Fit one L2 logistic regression per area bucket (scikit-learn ``lbfgs``).

        ``X``: features (rows as :func:`node_features`), ``area``: node areas in px^2,
        ``y``: 1 = template. A bucket with one class only gets a constant model at its prior.
        """
        from sklearn.linear_model import LogisticRegression

        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y).astype(int)
        if X.ndim != 2 or X.shape[1] != len(self.feature_names):
            raise ValueError(f"X must have {len(self.feature_names)} columns, got {X.shape}")
        if len(y) != len(X) or len(area) != len(X):
            raise ValueError("X, area and y must have the same number of rows")
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
        bucket = self.bucket_of(area)
        self.buckets = []
        for b in range(len(self.edges) + 1):
            sel = bucket == b
            Xb, yb, wb = X[sel], y[sel], w[sel]
            k = X.shape[1]
            if len(yb) == 0:
                self.buckets.append(BucketModel(np.zeros(k), np.ones(k), np.zeros(k), 0.0))
                continue
            mean = np.nanmean(Xb, axis=0)
            mean = np.where(np.isfinite(mean), mean, 0.0)
            scale = np.nanstd(Xb, axis=0)
            scale = np.where(np.isfinite(scale) & (scale > 1e-12), scale, 1.0)
            Z = (Xb - mean) / scale
            Z = np.where(np.isfinite(Z), Z, 0.0)
            if len(np.unique(yb)) < 2:
                p = float(np.clip(np.average(yb, weights=wb), 1e-3, 1 - 1e-3))
                self.buckets.append(BucketModel(mean, scale, np.zeros(k),
                                                float(np.log(p / (1 - p))), len(yb),
                                                int(yb.sum())))
                continue
            lr = LogisticRegression(C=self.C, max_iter=2000)
            lr.fit(Z, yb, sample_weight=wb)
            self.buckets.append(BucketModel(mean, scale, lr.coef_[0].copy(),
                                            float(lr.intercept_[0]), len(yb), int(yb.sum())))
        return self

    # ------------------------------------------------------------------ prediction
    def predict_proba_features(self, X: np.ndarray, area: np.ndarray) -> np.ndarray:
        """Templateness probability of rows ``X`` with node areas ``area``."""
        if not self.buckets:
            raise ValueError("classifier is not fitted")
        X = np.asarray(X, dtype=np.float64)
        bucket = self.bucket_of(area)
        out = np.empty(len(X))
        for b, model in enumerate(self.buckets):
            sel = bucket == b
            if sel.any():
                out[sel] = _sigmoid(model.decision(X[sel]))
        return out

    def predict_page(self, page: Page) -> np.ndarray:
        """Templateness probability of every node of ``page`` (needs layout)."""
        page.require_layout()
        if page.n == 0:
            return np.zeros(0)
        return self.predict_proba_features(node_features(page), page.area)

    # ------------------------------------------------------------------ persistence
    def to_dict(self) -> dict[str, Any]:
        return {"schema": SCHEMA, "version": SCHEMA_VERSION,
                "feature_names": list(self.feature_names), "edges": list(self.edges),
                "C": self.C, "buckets": [b.to_dict() for b in self.buckets], "meta": self.meta}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TemplateClassifier:
        if d.get("schema") != SCHEMA or d.get("version") != SCHEMA_VERSION:
            raise ValueError(f"not a webseg templateness model of version {SCHEMA_VERSION} "
                             f"(schema={d.get('schema')!r}, version={d.get('version')!r})")
        names = tuple(d["feature_names"])
        if names != FEATURE_NAMES:
            raise ValueError(f"model features {names} differ from this webseg's {FEATURE_NAMES}; "
                             "retrain with python -m webseg.templates.train")
        edges = tuple(float(e) for e in d["edges"])
        if list(edges) != sorted(edges):
            raise ValueError("bucket edges must be increasing")
        buckets = [BucketModel.from_dict(b, len(names)) for b in d["buckets"]]
        if len(buckets) != len(edges) + 1:
            raise ValueError(f"{len(edges)} edges need {len(edges) + 1} buckets, "
                             f"got {len(buckets)}")
        return cls(edges=edges, C=float(d.get("C", 1.0)), feature_names=names, buckets=buckets,
                   meta=d.get("meta") or {})

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path | None = None) -> TemplateClassifier:
        """Load a model file (default: the shipped ``webseg/models/pagelevel.json``)."""
        p = Path(path) if path is not None else default_model_path()
        try:
            d = json.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise FileNotFoundError(f"templateness model {p} not found; train one with "
                                    "python -m webseg.templates.train") from None
        except json.JSONDecodeError as e:
            raise ValueError(f"templateness model {p} is not valid JSON: {e}") from e
        return cls.from_dict(d)
