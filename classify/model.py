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

from webseg.page import Page

# The paper model's classes are scikit-learn estimators; they are imported where that model is
# built or loaded, so loading the default (stacked) model never imports scikit-learn.

__all__ = ["MODEL_SCHEMA", "MODEL_VERSION", "PageTypeModel", "default_model_path",
           "make_pipeline"]

MODEL_SCHEMA = "webseg.classify.pagetype"
MODEL_VERSION = 1


def default_model_path() -> Path:
    """The shipped paper-method model: ``webseg/models/pagetype-paper.json.gz``."""
    import webseg

    return Path(webseg.__file__).parent / "models" / "pagetype-paper.json.gz"


def stacked_model_path() -> Path:
    """The shipped default (stacked) model: ``webseg/models/pagetype.json.gz``."""
    import webseg

    return Path(webseg.__file__).parent / "models" / "pagetype.json.gz"


def make_pipeline(n_positions: int = 10, select: float = 0.1, C: float = 1.0,
                  class_weight: str | None = "balanced", platt_folds: int = 3) -> Any:
    """TF-ISF features (IG top ``select``) + one-vs-rest linear SVM (a scikit-learn
    ``Pipeline``)."""
    from sklearn.pipeline import Pipeline

    from classify.features import PositionTfIsf
    from classify.svm import OvRLinearSVM

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

    pipeline: Any  # sklearn.pipeline.Pipeline
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

    def predict_pages(self, pages: Sequence[Page], htmls: Sequence[str | None] | None = None
                      ) -> list[tuple[str, float]]:
        """(type, probability) of every rendered page (segments it with WPS first).
        ``htmls`` is accepted for interface parity with the stacked model and ignored."""
        return self.predict_texts([self.position_texts(p) for p in pages])

    def predict_proba_pages(self, pages: Sequence[Page],
                            htmls: Sequence[str | None] | None = None,
                            urls: Sequence[str | None] | None = None
                            ) -> list[dict[str, float]]:
        """Probability of every type, per page (``htmls`` and ``urls`` are ignored)."""
        if not pages:
            return []
        X = self.pipeline.named_steps["features"].transform(
            [self.position_texts(p) for p in pages])
        proba = self.pipeline.named_steps["svm"].predict_proba(X)
        return [dict(zip(self.classes, map(float, row), strict=True)) for row in proba]

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
        from sklearn.pipeline import Pipeline

        from classify.features import PositionTfIsf
        from classify.svm import OvRLinearSVM

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
        _save_json(self.to_dict(), path)

    @classmethod
    def load(cls, path: str | Path | None = None) -> PageTypeModel:
        """Load ``path`` or the shipped model."""
        path = Path(path) if path else default_model_path()
        return cls.from_dict(read_model_json(path), path)


STACKED_SCHEMA = "webseg.classify.pagetype-stacked"
STACKED_VERSION = 1


@dataclass
class StackedPageTypeModel:
    """The default classifier (:class:`classify.stacked.StackedModel`) with what a shipped
    model needs: page -> views (:func:`classify.pagefeatures.page_views`, no segmentation) and
    a JSON file. ``htmls``: the pages' HTML sources, for the structured-metadata view (the
    Page model does not keep ``<meta content>`` or JSON-LD); without them that view is empty.
    """

    model: Any
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def classes(self) -> list[str]:
        return [str(c) for c in self.model.classes]

    def page_views(self, page: Page, html: str | None = None, url: str | None = None
                   ) -> dict[str, Any]:
        from classify.pagefeatures import page_views

        v = page_views(page, html, url)
        if "blocks" in self.model.views:
            from classify.blockview import block_shares

            v["blocks"] = block_shares(page)
        return v

    def predict_proba_pages(self, pages: Sequence[Page],
                            htmls: Sequence[str | None] | None = None,
                            urls: Sequence[str | None] | None = None
                            ) -> list[dict[str, float]]:
        """Calibrated probability of every type, per page (``urls`` override ``page.url``,
        e.g. a dataset's known URL for a page rendered from a local file)."""
        hs = list(htmls) if htmls is not None else [None] * len(pages)
        us = list(urls) if urls is not None else [None] * len(pages)
        if len(hs) != len(pages) or len(us) != len(pages):
            raise ValueError(f"{len(pages)} pages but {len(hs)} HTML sources, {len(us)} URLs")
        docs = [self.page_views(p, h, u) for p, h, u in zip(pages, hs, us, strict=True)]
        proba = self.model.predict_proba(docs)
        return [dict(zip(self.classes, map(float, row), strict=True)) for row in proba]

    def predict_pages(self, pages: Sequence[Page], htmls: Sequence[str | None] | None = None
                      ) -> list[tuple[str, float]]:
        """(type, probability of that type) per page."""
        out = []
        for probs in self.predict_proba_pages(pages, htmls):
            typ = max(probs, key=lambda k: probs[k])
            out.append((typ, probs[typ]))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"schema": STACKED_SCHEMA, "version": STACKED_VERSION, "info": self.info,
                "model": self.model.to_dict()}

    @classmethod
    def from_dict(cls, d: Any, where: Any = "model") -> StackedPageTypeModel:
        from classify.stacked import StackedModel

        if (not isinstance(d, dict) or d.get("schema") != STACKED_SCHEMA
                or d.get("version") != STACKED_VERSION):
            raise ValueError(f"{where} is not a stacked page-type model of version "
                             f"{STACKED_VERSION}")
        try:
            return cls(StackedModel.from_dict(d["model"]), d.get("info", {}))
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise ValueError(f"{where}: malformed page-type model ({type(e).__name__}: {e})"
                             ) from e

    def save(self, path: str | Path) -> None:
        _save_json(self.to_dict(), path)


def _save_json(d: dict[str, Any], path: str | Path) -> None:
    """Write ``d`` as JSON (gzipped when ``path`` ends in ``.gz``), atomically: both model
    kinds are saved through here."""
    path = Path(path)
    data = (json.dumps(d, separators=(",", ":")) + "\n").encode("utf-8")
    tmp = path.with_name(path.name + ".part")
    if path.name.endswith(".gz"):
        with gzip.GzipFile(tmp, "wb", mtime=0) as f:
            f.write(data)
    else:
        tmp.write_bytes(data)
    tmp.replace(path)


#: ``--method`` names: the default stacked model and the paper's WPS-positions SVM
METHODS = ("stacked", "paper")



def read_model_json(path: Path) -> Any:
    """The JSON of a page-type model file (gzipped or not), with a clear error when it is
    missing or not JSON; both model kinds are read through here."""
    if not path.is_file():
        raise FileNotFoundError(f"page-type model {path} not found; train one with "
                                "webseg classify train --data DIR -o MODEL")
    from webseg.fastjson import gunzip, loads  # orjson when installed: the same objects,
    # the shipped 10 MB model parsed in about half the CPU of the standard module (every
    # run), and inflated by ISA-L when installed (a quarter of zlib's CPU, the same bytes)

    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gunzip(raw)
    try:
        return loads(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not a JSON page-type model ({e})") from e

def load_model(path: str | Path | None = None, method: str | None = None
               ) -> PageTypeModel | StackedPageTypeModel:
    """A page-type model file of either kind (by its ``schema``); without ``path`` the
    shipped model of ``method`` (default ``stacked``)."""
    if method not in (None, *METHODS):
        raise ValueError(f"unknown method {method!r}; known: {', '.join(METHODS)}")
    if path is None:
        path = default_model_path() if method == "paper" else stacked_model_path()
    path = Path(path)
    d = read_model_json(path)
    schema = d.get("schema") if isinstance(d, dict) else None
    if schema == STACKED_SCHEMA:
        m: PageTypeModel | StackedPageTypeModel = StackedPageTypeModel.from_dict(d, path)
    else:
        m = PageTypeModel.from_dict(d, path)
    if method is not None and (method == "paper") != isinstance(m, PageTypeModel):
        raise ValueError(f"{path} is not a {method!r} model")
    return m
