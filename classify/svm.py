"""Linear SVM, one-vs-rest, with Platt-scaled probabilities (the paper's LibSVM set-up).

The paper trains one linear-kernel LibSVM classifier per type "under one-against-the-rest
strategy". :class:`OvRLinearSVM` trains scikit-learn's :class:`~sklearn.svm.LinearSVC`
(liblinear, L2-regularised squared hinge; LibSVM's linear kernel uses the plain hinge and an
unregularised bias, a difference that matters little on normalised text vectors) on every class
against the rest; the predicted type is the class with the largest decision value.

Probabilities: the CLI prints "type and probability", which a hard SVM does not have. As
LibSVM's ``-b 1`` does, each one-vs-rest decision value ``f_k`` is mapped through a sigmoid
``1 / (1 + exp(A_k f_k + B_k))`` fitted (Platt 1999) on *out-of-fold* decision values of the
training set (internal stratified ``platt_folds``-fold CV), and the per-class values are
normalised to sum to one. The reported probability is that of the predicted type.

The fitted state is a few arrays (``coef_``, ``intercept_``, ``platt_``, ``classes_``) that
:meth:`OvRLinearSVM.to_dict` writes as JSON types; columns whose weight is zero for every class
(features never seen in training) are stored sparsely.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import LinearSVC

__all__ = ["OvRLinearSVM"]


def _platt(f: np.ndarray, pos: np.ndarray) -> tuple[float, float]:
    """(A, B) of P(pos | f) = 1 / (1 + exp(A f + B)), by (almost unregularised) logistic fit."""
    if pos.all() or not pos.any():
        return -1.0, 0.0
    lr = LogisticRegression(C=1e4).fit(f.reshape(-1, 1), pos.astype(int))
    return -float(lr.coef_[0, 0]), -float(lr.intercept_[0])


class OvRLinearSVM(ClassifierMixin, BaseEstimator):
    """One-vs-rest linear SVM with Platt probabilities.

    Parameters
    ----------
    C : SVM regularisation constant (LibSVM's default 1.0).
    class_weight : ``"balanced"`` (weights inversely proportional to class frequency, so
        small types are not swamped; WCXB is 53 % articles) or ``None``.
    platt_folds : internal CV folds for the probability calibration (0: fit it on the
        training decision values, which are over-confident).
    max_iter : liblinear iterations.
    random_state : seed of the calibration folds and of liblinear.
    """

    def __init__(self, C: float = 1.0, class_weight: str | None = "balanced",
                 platt_folds: int = 3, max_iter: int = 5000, random_state: int = 0) -> None:
        self.C = C
        self.class_weight = class_weight
        self.platt_folds = platt_folds
        self.max_iter = max_iter
        self.random_state = random_state

    def _svc(self) -> LinearSVC:
        return LinearSVC(C=self.C, class_weight=self.class_weight, max_iter=self.max_iter,
                         random_state=self.random_state)

    def _decision(self, svc: LinearSVC, X: Any, n_classes: int) -> np.ndarray:
        d = svc.decision_function(X)
        return np.column_stack([-d, d]) if n_classes == 2 else d

    def fit(self, X: Any, y: Sequence[Any]) -> OvRLinearSVM:
        y = np.asarray(y)
        self.classes_ = np.unique(y)
        if len(self.classes_) < 2:
            raise ValueError("need at least two classes to train a classifier")
        svc = self._svc().fit(X, y)
        k = len(self.classes_)
        coef = np.asarray(svc.coef_, dtype=np.float64)
        icpt = np.asarray(svc.intercept_, dtype=np.float64)
        if k == 2:  # liblinear keeps one vector for two classes: expand to one per class
            coef = np.vstack([-coef[0], coef[0]])
            icpt = np.array([-icpt[0], icpt[0]])
        self.coef_, self.intercept_ = coef, icpt
        oof = self._out_of_fold(X, y, svc)
        self.platt_ = np.array([_platt(oof[:, c], y == cls)
                                for c, cls in enumerate(self.classes_)])
        return self

    def _out_of_fold(self, X: Any, y: np.ndarray, full: LinearSVC) -> np.ndarray:
        """Decision values of every training page from a model that did not see it."""
        k = len(self.classes_)
        smallest = int(np.bincount(np.unique(y, return_inverse=True)[1]).min())
        folds = min(self.platt_folds, smallest)
        if folds < 2:
            return self._decision(full, X, k)
        out = np.zeros((len(y), k))
        cv = StratifiedKFold(folds, shuffle=True, random_state=self.random_state)
        for tr, te in cv.split(np.zeros(len(y)), y):
            m = self._svc().fit(X[tr], y[tr])
            d = self._decision(m, X[te], k)
            cols = np.searchsorted(self.classes_, m.classes_)
            out[np.ix_(te, cols)] = d
        return out

    def decision_function(self, X: Any) -> np.ndarray:
        self._check_fitted()
        X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X)
        if X.shape[1] != self.coef_.shape[1]:
            raise ValueError(f"X has {X.shape[1]} features, the model {self.coef_.shape[1]}")
        return np.asarray(X @ self.coef_.T) + self.intercept_

    def predict(self, X: Any) -> np.ndarray:
        return self.classes_[np.argmax(self.decision_function(X), axis=1)]

    def predict_proba(self, X: Any) -> np.ndarray:
        """Platt probabilities of every class, normalised per row (columns: ``classes_``)."""
        d = self.decision_function(X)
        z = np.clip(d * self.platt_[:, 0] + self.platt_[:, 1], -500, 500)
        p = 1.0 / (1.0 + np.exp(z))
        s = p.sum(axis=1, keepdims=True)
        s[s == 0] = 1.0
        return p / s

    def _check_fitted(self) -> None:
        if not hasattr(self, "coef_"):
            raise ValueError("OvRLinearSVM is not fitted yet; call fit first")

    # ------------------------------------------------------------------ serialisation
    def to_dict(self, digits: int = 6) -> dict[str, Any]:
        """Fitted state as JSON types: only columns with a non-zero weight are stored."""
        self._check_fitted()
        cols = np.flatnonzero(np.any(self.coef_ != 0, axis=0))
        return {"params": self.get_params(), "classes": [str(c) for c in self.classes_],
                "n_features": int(self.coef_.shape[1]), "columns": cols.tolist(),
                "coef": np.round(self.coef_[:, cols], digits).tolist(),
                "intercept": np.round(self.intercept_, digits).tolist(),
                "platt": np.round(self.platt_, digits).tolist()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> OvRLinearSVM:
        self = cls(**d["params"])
        self.classes_ = np.asarray(d["classes"], dtype=object)
        k = len(self.classes_)
        self.coef_ = np.zeros((k, int(d["n_features"])))
        cols = np.asarray(d["columns"], dtype=np.int64)
        if len(cols):
            self.coef_[:, cols] = np.asarray(d["coef"], dtype=np.float64).reshape(k, len(cols))
        self.intercept_ = np.asarray(d["intercept"], dtype=np.float64)
        self.platt_ = np.asarray(d["platt"], dtype=np.float64).reshape(k, 2)
        return self
