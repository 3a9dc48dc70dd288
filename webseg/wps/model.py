"""A trained WPS model: boundary weights on standardised features, stored as JSON.

Kept apart from :mod:`webseg.wps.train` so that segmenting needs neither the trainer nor the
data it reads (no import circle segmenter <-> trainer).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from webseg.wps.features import BOUNDARY_FEATURES, LOCAL_FEATURES

__all__ = ["MODELS_DIR", "MODEL_SCHEMA", "MODEL_VERSION", "WPSModel", "feature_columns",
           "fit_scaling"]

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
MODEL_SCHEMA = "webseg.wps.model"
MODEL_VERSION = 1

@dataclass
class WPSModel:
    """Boundary weights ``v = w_Y - w_N`` on standardised features, and the scaling.

    ``features``: names of the :data:`~webseg.wps.features.BOUNDARY_FEATURES` the model uses,
    in that order (default all); ``weights``, ``mean`` and ``scale`` have one entry each.
    """

    weights: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    loss: str = "margin"
    info: dict[str, Any] = field(default_factory=dict)
    features: list[str] = field(default_factory=lambda: list(BOUNDARY_FEATURES))

    def __post_init__(self) -> None:
        self._cols = feature_columns(self.features)
        if not len(self.weights) == len(self.mean) == len(self.scale) == len(self._cols):
            raise ValueError(f"WPS model: {len(self.weights)} weights, {len(self.mean)} means, "
                             f"{len(self.scale)} scales for {len(self._cols)} features")

    @property
    def uses_context(self) -> bool:
        """Whether any context feature (Section 4.2) has a weight in this model."""
        return any(f not in LOCAL_FEATURES for f in self.features)

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Standardise raw :func:`~webseg.wps.features.boundary_features` (all columns, or
        already only the model's)."""
        X = np.asarray(X, dtype=np.float64)
        if X.shape[-1] == len(BOUNDARY_FEATURES) and len(self._cols) != len(BOUNDARY_FEATURES):
            X = X[..., self._cols]
        return (X - self.mean) / self.scale

    def scores(self, X: np.ndarray) -> np.ndarray:
        """ILP scores ``f_i = F_i - F̄_i`` of raw boundary features ``X``."""
        return self.transform(X) @ self.weights

    def to_dict(self) -> dict[str, Any]:
        return {"schema": MODEL_SCHEMA, "version": MODEL_VERSION, "loss": self.loss,
                "features": list(self.features),
                "weights": np.round(self.weights, 10).tolist(),
                "mean": np.round(self.mean, 10).tolist(),
                "scale": np.round(self.scale, 10).tolist(), "info": self.info}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def from_dict(cls, d: dict[str, Any], where: Any = "model") -> WPSModel:
        if d.get("schema") != MODEL_SCHEMA or d.get("version") != MODEL_VERSION:
            raise ValueError(f"{where} is not a WPS model of version {MODEL_VERSION}")
        feats = d.get("features")
        try:
            feature_columns(feats)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: its features differ from this webseg's; retrain it with "
                             "python -m webseg.wps.train") from None
        return cls(np.asarray(d["weights"], float), np.asarray(d["mean"], float),
                   np.asarray(d["scale"], float), d.get("loss", "margin"), d.get("info", {}),
                   list(feats))

    @classmethod
    def load(cls, path: str | Path | None = None, loss: str = "margin") -> WPSModel:
        """Load ``path``, or the shipped ``webseg/models/wps-<loss>.json``."""
        path = Path(path) if path else MODELS_DIR / f"wps-{loss}.json"
        if not path.is_file():
            raise FileNotFoundError(f"WPS model {path} not found; train it with "
                                    f"python -m webseg.wps.train {loss} --data DIR --out DIR")
        return cls.from_dict(json.loads(path.read_text(encoding="utf-8")), path)


def feature_columns(features: Sequence[str]) -> np.ndarray:
    """Column indices of ``features`` in :data:`BOUNDARY_FEATURES`; they must be a subsequence
    of it that keeps the bias (else ``ValueError``)."""
    if isinstance(features, str) or not features:
        raise ValueError("features must be a non-empty list of feature names")
    cols = np.array([BOUNDARY_FEATURES.index(f) if f in BOUNDARY_FEATURES else -1
                     for f in features], dtype=np.int64)
    if (cols < 0).any() or np.any(np.diff(cols) <= 0) or "bias" not in features:
        raise ValueError("features must be an ordered subset of BOUNDARY_FEATURES with 'bias'")
    return cols


def fit_scaling(Xs: Sequence[np.ndarray], features: Sequence[str] = BOUNDARY_FEATURES
                ) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation of the stacked boundary features (bias column untouched)."""
    d = len(features)
    X = np.concatenate([x for x in Xs if len(x)]) if any(len(x) for x in Xs) else np.zeros(
        (0, d))
    mean = X.mean(0) if len(X) else np.zeros(d)
    sd = X.std(0) if len(X) else np.ones(d)
    sd = np.where(sd > 1e-9, sd, 1.0)
    bias = list(features).index("bias")
    mean[bias], sd[bias] = 0.0, 1.0
    return mean, sd


