"""The page-type classifier: TF-ISF position features + one-vs-rest linear SVM in a Pipeline.

:func:`make_pipeline` builds the scikit-learn :class:`~sklearn.pipeline.Pipeline`
(``features`` = :class:`~classify.features.PositionTfIsf`, ``svm`` =
:class:`~classify.svm.OvRLinearSVM`); the evaluation harness uses it directly on cached views.
:class:`PageTypeModel` adds what a shipped model needs: which segmenter produced the positions,
how to turn a rendered page into features (:func:`classify.views.position_texts`), and a
pickle-free file format (gzipped JSON of the fitted vocabulary, ISF table, weights and Platt
parameters) that loads the same in any scikit-learn version.

>>> from classify.model import PageTypeModel       # doctest: +SKIP
>>> m = PageTypeModel.load()                       # the shipped webseg/models/pagetype.json.gz
>>> m.predict_pages([page])                        # doctest: +SKIP
[('article', 0.91)]
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.pipeline import Pipeline

from classify.features import PositionTfIsf
from classify.svm import OvRLinearSVM
from webseg.page import Page

__all__ = ["MODEL_SCHEMA", "MODEL_VERSION", "PageTypeModel", "default_model_path",
           "make_pipeline"]

MODEL_SCHEMA = "webseg.classify.pagetype"
MODEL_VERSION = 1


def default_model_path() -> Path:
    """The shipped model: ``webseg/models/pagetype.json.gz``."""
    import webseg

    return Path(webseg.__file__).parent / "models" / "pagetype.json.gz"


def make_pipeline(n_positions: int = 10, select: float = 0.1, C: float = 1.0,
                  class_weight: str | None = "balanced", platt_folds: int = 3) -> Pipeline:
    """TF-ISF features (IG top ``select``) + one-vs-rest linear SVM."""
    return Pipeline([
        ("features", PositionTfIsf(n_positions=n_positions, select=select)),
        ("svm", OvRLinearSVM(C=C, class_weight=class_weight, platt_folds=platt_folds)),
    ])


def file_sha256(path: str | Path) -> str:
    """Hex SHA-256 of a file's bytes (identifies the segmentation model the features used)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@dataclass
class PageTypeModel:
    """A fitted pipeline plus the segmenter whose positions it reads.

    ``segmenter``: registry name of the WPS segmenter (``wps-margin``); ``info``: provenance
    (training data, counts, the WPS model's hash, training time).
    """

    pipeline: Pipeline
    segmenter: str = "wps-margin"
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def classes(self) -> list[str]:
        return [str(c) for c in self.pipeline.named_steps["svm"].classes_]

    # ------------------------------------------------------------------ training
    @classmethod
    def fit_texts(cls, texts: Sequence[Sequence[str]], labels: Sequence[str],
                  segmenter: str = "wps-margin", **pipeline_params: Any) -> PageTypeModel:
        """Train on precomputed position texts (10 per page, :func:`position_texts`)."""
        pipe = make_pipeline(**pipeline_params).fit(list(texts), list(labels))
        return cls(pipe, segmenter)

    # ------------------------------------------------------------------ prediction
    def position_texts(self, page: Page) -> list[str]:
        from classify.views import position_texts
        from webseg.segmenters import get_segmenter

        if not hasattr(self, "_seg"):
            self._seg = get_segmenter(self.segmenter)
        return position_texts(page, self._seg)

    def predict_texts(self, texts: Sequence[Sequence[str]]) -> list[tuple[str, float]]:
        """(type, probability of that type) for pages given as position texts."""
        if not texts:
            return []
        X = self.pipeline.named_steps["features"].transform(list(texts))
        svm = self.pipeline.named_steps["svm"]
        pred = svm.predict(X)
        proba = svm.predict_proba(X)
        idx = np.searchsorted(svm.classes_, pred)
        return [(str(p), float(proba[i, j])) for i, (p, j) in enumerate(zip(pred, idx,
                                                                           strict=True))]

    def predict_pages(self, pages: Sequence[Page]) -> list[tuple[str, float]]:
        """(type, probability) of every rendered page (segments it with WPS first)."""
        return self.predict_texts([self.position_texts(p) for p in pages])

    # ------------------------------------------------------------------ files
    def to_dict(self) -> dict[str, Any]:
        return {"schema": MODEL_SCHEMA, "version": MODEL_VERSION, "segmenter": self.segmenter,
                "info": self.info,
                "features": self.pipeline.named_steps["features"].to_dict(),
                "svm": self.pipeline.named_steps["svm"].to_dict()}

    @classmethod
    def from_dict(cls, d: Any, where: Any = "model") -> PageTypeModel:
        if (not isinstance(d, dict) or d.get("schema") != MODEL_SCHEMA
                or d.get("version") != MODEL_VERSION):
            raise ValueError(f"{where} is not a page-type model of version {MODEL_VERSION}")
        try:
            feats = PositionTfIsf.from_dict(d["features"])
            svm = OvRLinearSVM.from_dict(d["svm"])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"{where}: malformed page-type model ({type(e).__name__}: {e})"
                             ) from e
        width = feats.n_positions * len(feats.vocabulary_)
        if svm.coef_.shape[1] != width:
            raise ValueError(f"{where}: the SVM has {svm.coef_.shape[1]} features, the "
                             f"vocabulary gives {width}")
        return cls(Pipeline([("features", feats), ("svm", svm)]),
                   d.get("segmenter", "wps-margin"), d.get("info", {}))

    def save(self, path: str | Path) -> None:
        """Write JSON (gzipped when ``path`` ends in ``.gz``), atomically."""
        path = Path(path)
        data = (json.dumps(self.to_dict(), separators=(",", ":")) + "\n").encode("utf-8")
        tmp = path.with_name(path.name + ".part")
        if path.name.endswith(".gz"):
            with gzip.GzipFile(tmp, "wb", mtime=0) as f:
                f.write(data)
        else:
            tmp.write_bytes(data)
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path | None = None) -> PageTypeModel:
        """Load ``path`` or the shipped model."""
        path = Path(path) if path else default_model_path()
        if not path.is_file():
            raise FileNotFoundError(f"page-type model {path} not found; train one with "
                                    "webseg classify train --data DIR -o MODEL")
        raw = path.read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        try:
            d = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise ValueError(f"{path}: not a JSON page-type model ({e})") from e
        return cls.from_dict(d, path)
