"""Learning the GCuts / CClus costs: logistic regression for Vpq, LMNN for Dp.

**Vpq** (Section 4.3): "for all pairs of nodes that are being included in the training set we
obtain a class: 1 if the nodes are in the same segment, and 0 if they are not", and the
probability of logistic regression is the cost. We fit scikit-learn's ``LogisticRegression``
on standardised pair features and keep only what prediction needs (means, scales, weights,
intercept) in a :class:`Logistic` that round-trips through JSON, so the shipped models are
small text files and not pickles tied to a scikit-learn version.

**Dp** is a Mahalanobis distance ``||L (f_p - f_alpha)||`` learned with the large-margin
nearest-neighbour objective of Weinberger, Blitzer & Saul (NIPS 2006; the paper's ref. [19]).
Why our own LMNN and not a library: metric-learn 0.7.0 (the usual one) calls
``sklearn.utils.check_array(force_all_finite=...)``, a keyword scikit-learn renamed to
``ensure_all_finite`` and no longer accepts (checked on the installed 1.9.1), so its ``fit``
raises ``TypeError``; scikit-learn's NCA would run but optimises a different (soft-neighbour)
objective, not the paper's large-margin one. LMNN is small: :func:`fit_lmnn` optimises the
standard objective

    (1 - mu) * sum_{i, j in N_k(i)} ||L d_ij||^2
    + mu * sum_{i, j in N_k(i), l: y_l != y_i} h(1 + ||L d_ij||^2 - ||L d_il||^2)

over the full matrix ``L`` with scipy's L-BFGS, where ``N_k(i)`` are the ``k`` nearest nodes of
the same gold segment (in the input metric), the impostors ``l`` are the nearest nodes of other
segments of the same page (re-mined under the current ``L`` each outer round, as LMNN's active
set does), and ``h`` is a Huber-smoothed hinge (so L-BFGS sees a differentiable function).
The SDP of the original paper optimises ``M = L^T L`` instead; both have the same optimum set of
metrics, and the gradient-on-L form is the one its authors' own large-scale solver uses.
Triplets never cross pages: segments of different pages are not comparable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class Logistic:
    """A fitted logistic model: ``gain * sigmoid(((F - mean) / scale) @ coef + intercept)``."""

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    gain: float = 1.0

    def predict(self, F: np.ndarray) -> np.ndarray:
        z = ((F - self.mean) / self.scale) @ self.coef + self.intercept
        return self.gain / (1.0 + np.exp(-np.clip(z, -50, 50)))

    def to_dict(self) -> dict[str, Any]:
        return {"mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "coef": self.coef.tolist(), "intercept": float(self.intercept),
                "gain": float(self.gain)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Logistic:
        return cls(np.asarray(d["mean"], float), np.asarray(d["scale"], float),
                   np.asarray(d["coef"], float), float(d["intercept"]),
                   float(d.get("gain", 1.0)))

    @classmethod
    def uniform(cls, n_features: int) -> Logistic:
        """The no-learning Vpq: ``2 * sigmoid(-sum of dissimilarities)``, in (0, 1].

        A uniformly weighted sum of the (all non-negative) pair dissimilarities through a
        sigmoid, scaled so that identical nodes cost 1 to separate (GCuts-NL, CClus-NL).
        """
        return cls(np.zeros(n_features), np.ones(n_features), -np.ones(n_features), 0.0, 2.0)


def fit_logistic(F: np.ndarray, y: np.ndarray, C: float = 1.0) -> Logistic:
    """Logistic regression on standardised features (lbfgs, deterministic)."""
    from sklearn.linear_model import LogisticRegression

    if len(np.unique(y)) < 2:
        raise ValueError("logistic regression needs pairs of both classes")
    mean = F.mean(axis=0)
    scale = F.std(axis=0)
    scale[scale < 1e-9] = 1.0
    lr = LogisticRegression(C=C, max_iter=5000)
    lr.fit((F - mean) / scale, y)
    return Logistic(mean, scale, lr.coef_[0].copy(), float(lr.intercept_[0]))


def _huber_hinge(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Smoothed hinge max(0, z): quadratic on [0, 1], linear above; value and derivative."""
    val = np.where(z <= 0, 0.0, np.where(z < 1, 0.5 * z * z, z - 0.5))
    der = np.clip(z, 0.0, 1.0)
    return val, der


def _targets(X: np.ndarray, y: np.ndarray, k: int) -> np.ndarray:
    """(i, j) pairs: the k nearest same-label points of every point (Euclidean)."""
    out = []
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    same = y[:, None] == y[None, :]
    np.fill_diagonal(same, False)
    d2 = np.where(same, d2, np.inf)
    kk = min(k, len(X) - 1)
    if kk <= 0:
        return np.zeros((0, 2), np.int64)
    nn = np.argsort(d2, axis=1, kind="stable")[:, :kk]
    for i in range(len(X)):
        for j in nn[i]:
            if np.isfinite(d2[i, j]):
                out.append((i, j))
    return np.asarray(out, dtype=np.int64).reshape(-1, 2)


def fit_lmnn(groups: list[tuple[np.ndarray, np.ndarray]], k: int = 3, n_impostors: int = 4,
             mu: float = 0.5, rounds: int = 3, max_points: int = 150, max_iter: int = 150,
             seed: int = 0, L0: np.ndarray | None = None) -> tuple[np.ndarray, dict[str, Any]]:
    """Learn ``L`` (d x d) so that same-segment nodes are near and others a margin away.

    ``groups`` holds one ``(X, y)`` per page (features, gold segment id); points of a page are
    subsampled to ``max_points``. Returns ``L`` and a small report (loss per round, triplets).
    """
    rng = np.random.default_rng(seed)
    pages = []
    for X, y in groups:
        if len(X) > max_points:
            sel = np.sort(rng.choice(len(X), max_points, replace=False))
            X, y = X[sel], y[sel]
        if len(np.unique(y)) < 2:
            continue
        pages.append((X, y, _targets(X, y, k)))
    if not pages:
        raise ValueError("LMNN needs pages with at least two gold segments")
    d = pages[0][0].shape[1]
    L = np.eye(d) if L0 is None else np.asarray(L0, float).copy()
    Dij = np.concatenate([X[t[:, 0]] - X[t[:, 1]] for X, _, t in pages])
    report: dict[str, Any] = {"rounds": []}
    for _ in range(rounds):
        # mine impostors under the current metric
        ti, tl = [], []
        off = 0
        for X, y, t in pages:
            Z = X @ L.T
            d2 = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
            diff = y[:, None] != y[None, :]
            cand = np.where(diff, d2, np.inf)
            ni = min(n_impostors, len(X) - 1)
            imp = np.argsort(cand, axis=1, kind="stable")[:, :ni]
            for r, (i, _j) in enumerate(t):
                for l_ in imp[i]:
                    if np.isfinite(cand[i, l_]):
                        ti.append(off + r)
                        tl.append(X[i] - X[l_])
            off += len(t)
        trip_ij = np.asarray(ti, dtype=np.int64)
        Dil = np.asarray(tl, dtype=np.float64).reshape(-1, d)

        def loss(flat: np.ndarray, trip_ij: np.ndarray = trip_ij, Dil: np.ndarray = Dil
                 ) -> tuple[float, np.ndarray]:
            Lm = flat.reshape(d, d)
            pij = ((Dij @ Lm.T) ** 2).sum(1)
            pil = ((Dil @ Lm.T) ** 2).sum(1)
            h, dh = _huber_hinge(1.0 + pij[trip_ij] - pil)
            f = (1 - mu) * pij.sum() + mu * h.sum()
            cij = (1 - mu) + mu * np.bincount(trip_ij, weights=dh, minlength=len(Dij))
            M = Dij.T @ (cij[:, None] * Dij) - mu * (Dil.T @ (dh[:, None] * Dil))
            return float(f), (2.0 * Lm @ M).ravel()

        # imported here: the segmenter registry imports this module, and scipy.optimize
        # costs every process that never trains a metric about 0.3 CPU s
        from scipy.optimize import minimize as sp_minimize

        res = sp_minimize(loss, L.ravel(), jac=True, method="L-BFGS-B",
                          options={"maxiter": max_iter})
        L = res.x.reshape(d, d)
        report["rounds"].append({"loss": float(res.fun), "triplets": int(len(Dil)),
                                 "iterations": int(res.nit)})
    report["target_pairs"] = int(len(Dij))
    return L, report
