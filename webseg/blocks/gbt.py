"""Gradient-boosted trees as plain JSON, and a vectorised numpy predictor for them.

The block model is trained with scikit-learn's ``HistGradientBoostingClassifier`` (binary
log-loss) and shipped as JSON, never pickle: :func:`export_hgb` writes every tree as parallel
arrays (split feature, threshold, children, NaN direction, leaf value) plus the baseline score.
:class:`TreeEnsemble` evaluates all trees at once: the state is a ``(n_trees, n_samples)``
array of current node ids (flattened), advanced one level per step with fancy indexing; pairs
that reached a leaf drop out in batches. A page costs ``max_depth`` numpy steps instead of a
Python loop over trees or samples. One comparison per step decides, NaN included: each node
reads a copy of the value with NaN replaced so that the comparison sends it the learned way
(:meth:`TreeEnsemble._walk_tables`).

Split semantics are sklearn's (``x <= threshold`` goes left; NaN goes to the side learned
during training), so :meth:`TreeEnsemble.predict_proba` equals sklearn's ``predict_proba`` on
numerical features (the tests check this).

Speed: when webseg's C extensions are built (``webseg._native.treewalk``, see ``setup.py``),
every (tree, row) pair walks its tree in a plain compiled loop, about ten times faster than the
numpy walk; without them the numpy walk runs. Both find the same leaf for every pair. With two
rows or more the compiled walk also sums the leaf values (``treewalk.sums``, over 16-byte node
records, reading ``X`` in place in either memory order) in numpy's order: tree by tree, which
is how numpy sums the ``(n_trees, n)`` table over its first axis; a single row numpy sums
pairwise, so it keeps the leaf walk and numpy's sum. The scores are bit for bit the same
either way (the tests check this on probes that cross every split both ways and take every
NaN branch, and on real pages).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from webseg import _native as native

__all__ = ["TreeEnsemble", "export_hgb", "read_model_json"]

def read_model_json(path: str | Path) -> dict[str, Any]:
    """A shipped model file's JSON (gzip-compressed when the name ends in ``.gz``).

    Read with :mod:`webseg.fastjson` (orjson and ISA-L when installed: the same objects as
    ``json.load`` of ``gzip.open``, in under half the CPU; every run loads the block model)."""
    from webseg import fastjson

    p = Path(path)
    raw = p.read_bytes()
    if p.suffix == ".gz":
        raw = fastjson.gunzip(raw)
    return fastjson.loads(raw)


def export_hgb(model: Any) -> dict[str, Any]:
    """JSON-able dict of a fitted ``HistGradientBoostingClassifier``.

    Binary models give ``kind="binary-logistic"`` (one tree per iteration, a scalar baseline);
    multi-class models ``kind="multiclass-softmax"``: ``n_classes`` trees per iteration,
    stored iteration-major (tree ``t`` adds to class ``t % n_classes``), a baseline per class
    and the ``classes`` labels in the column order of ``predict_proba``.
    """
    k = int(getattr(model, "n_trees_per_iteration_", 1))
    if getattr(model, "is_categorical_", None) is not None and np.any(model.is_categorical_):
        raise ValueError("categorical splits are not supported")
    trees = []
    for it in model._predictors:
        for pred in it:
            trees.append(_tree(pred.nodes))
    base = np.asarray(model._baseline_prediction, dtype=np.float64).ravel()
    if k == 1:
        return {"kind": "binary-logistic", "baseline": float(base[0]),
                "n_features": int(model.n_features_in_), "trees": trees}
    return {"kind": "multiclass-softmax", "baseline": [float(b) for b in base],
            "n_classes": k, "classes": [c.item() if hasattr(c, "item") else c
                                        for c in model.classes_],
            "n_features": int(model.n_features_in_), "trees": trees}


def _tree(nd: Any) -> dict[str, Any]:
    return {
        "feature": nd["feature_idx"].astype(int).tolist(),
        "threshold": [float(t) for t in nd["num_threshold"]],
        "left": nd["left"].astype(int).tolist(),
        "right": nd["right"].astype(int).tolist(),
        "missing_left": nd["missing_go_to_left"].astype(int).tolist(),
        "leaf": nd["is_leaf"].astype(int).tolist(),
        "value": [float(v) for v in nd["value"]],
    }


class TreeEnsemble:
    """All trees of an exported ensemble packed into flat arrays."""

    def __init__(self, d: dict[str, Any]) -> None:
        self.kind = d.get("kind")
        if self.kind not in ("binary-logistic", "multiclass-softmax", "regression"):
            raise ValueError(f"unsupported ensemble kind {self.kind!r}")
        if self.kind in ("binary-logistic", "regression"):
            self.n_classes = 1
            self.baseline = np.asarray(float(d["baseline"]))
        else:
            self.n_classes = int(d["n_classes"])
            self.baseline = np.asarray(d["baseline"], dtype=np.float64)
            if self.baseline.shape != (self.n_classes,) or len(d["trees"]) % self.n_classes:
                raise ValueError("multi-class ensemble: baseline or tree count does not match "
                                 "n_classes")
        self.classes = list(d.get("classes", [0, 1]))
        self.n_features = int(d["n_features"])
        trees = d["trees"]
        sizes = np.array([len(t["feature"]) for t in trees], dtype=np.int64)
        self.roots = (np.cumsum(sizes) - sizes).astype(np.int64)  # also for no trees
        off = np.repeat(self.roots, sizes)

        def cat(key: str, dtype: Any) -> np.ndarray:
            return np.concatenate([np.asarray(t[key], dtype=dtype) for t in trees]) \
                if trees else np.zeros(0, dtype=dtype)

        self.feature = cat("feature", np.int64)
        self.threshold = cat("threshold", np.float64)
        self.left = cat("left", np.int64) + off
        self.right = cat("right", np.int64) + off
        self.missing_left = cat("missing_left", bool)
        self.leaf = cat("leaf", bool)
        self.value = cat("value", np.float64)
        # leaves point to themselves, so finished rows stay put
        idx = np.flatnonzero(self.leaf)
        self.left[idx] = idx
        self.right[idx] = idx
        self.feature[idx] = 0
        self.threshold[idx] = np.inf
        if np.any((self.feature < 0) | (self.feature >= self.n_features)):
            raise ValueError("tree references a feature outside the feature vector")
        self._walk_column, self._walk_threshold, self._walk_blocks = self._walk_tables()
        self._walk_order, self._walk_roots, self._walk_left = self._sibling_order()
        # the walk's node tables, in the walk's order
        self._walk_column = self._walk_column[self._walk_order]
        self._walk_threshold = self._walk_threshold[self._walk_order]
        self._walk_value = self.value[self._walk_order]
        # the packed arrays as the compiled walk reads them (C-contiguous, fixed dtypes);
        # leaves keep their self-pointing children, which the compiled walk never follows
        self._native_tables = (
            np.ascontiguousarray(self.feature, dtype=np.int64),
            np.ascontiguousarray(self.threshold, dtype=np.float64),
            np.ascontiguousarray(self.missing_left, dtype=bool),
            np.ascontiguousarray(self.left, dtype=np.int64),
            np.ascontiguousarray(self.right, dtype=np.int64),
            np.ascontiguousarray(self.leaf, dtype=bool),
            np.ascontiguousarray(self.roots, dtype=np.int64),
        )
        self._sum_tables = self._packed_tables()

    def _packed_tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(nodes, values, roots)`` as the compiled summing walk reads them
        (``treewalk.sums``): one 16-byte record per node in the walk's sibling order, where
        a node's children follow it side by side (threshold; left child, the right one being
        next; feature, NaN-goes-left and leaf bits), the leaf values in the same order, and
        every tree's root."""
        order, roots, left = self._walk_order, self._walk_roots, self._walk_left
        if len(order) >= 2**31 or self.n_features >= 2**30:
            raise ValueError("ensemble too large for the compiled walk")
        leaf = self.leaf[order]
        nodes = np.zeros(len(order), dtype=[("thr", "<f8"), ("left", "<i4"), ("fn", "<u4")])
        nodes["thr"] = self.threshold[order]
        nodes["left"] = left
        nodes["fn"] = (self.feature[order].astype(np.uint32)
                       | (self.missing_left[order].astype(np.uint32) << 30)
                       | (leaf.astype(np.uint32) << 31))
        return (nodes, np.ascontiguousarray(self.value[order], dtype=np.float64),
                np.ascontiguousarray(roots, dtype=np.int32))

    def native_sums(self, X: np.ndarray, walk: Any) -> np.ndarray:
        """``(n, n_classes)``: per row and class, the sum of its leaves' values over the
        class's trees, in tree order, by the compiled walk (``X`` float64, any strides)."""
        n, f = X.shape
        if X.flags.f_contiguous and not X.flags.c_contiguous:
            buf, rs, cs = X.T, 1, n  # column-major: read in place, no copy
        else:
            buf, rs, cs = np.ascontiguousarray(X, dtype=np.float64), f, 1
        out = np.empty((n, self.n_classes), dtype=np.float64)
        walk.sums(buf, n, self.n_features, rs, cs, *self._sum_tables, self.n_classes, out)
        return out

    def _probe(self) -> np.ndarray:
        """Rows that cross every split both ways and take every NaN branch: each row holds,
        per feature, a threshold of it nudged down, exact or nudged up, or NaN (the tests
        compare the two walks on them)."""
        rng = np.random.default_rng(0)
        inner = ~self.leaf
        X = np.zeros((64, self.n_features))
        for j in range(self.n_features):
            thr = self.threshold[inner & (self.feature == j)]
            if len(thr) == 0:
                continue
            v = rng.choice(thr, size=64)
            X[:, j] = v + rng.choice([-1e-9, 0.0, 1e-9], size=64) * np.maximum(np.abs(v), 1.0)
        X[rng.random(X.shape) < 0.2] = np.nan
        return X

    def _tree_values(self, X: np.ndarray) -> np.ndarray:
        """``(n_trees, n)``: the value of the leaf each row reaches in each tree."""
        walk = native.load("treewalk")
        if walk is None:
            return self._tree_values_numpy(X)
        return self.value[self.native_leaves(X, walk)]

    def native_leaves(self, X: np.ndarray, walk: Any) -> np.ndarray:
        """``(n_trees, n)`` leaf node ids (in the packed numbering) by the compiled walk."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        n = X.shape[0]
        out = np.empty((len(self.roots), n), dtype=np.int64)
        walk.leaves(X, n, self.n_features, *self._native_tables, out)
        return out

    def raw(self, X: np.ndarray) -> np.ndarray:
        """Raw scores of the rows of ``X``: log-odds ``(n,)`` for a binary ensemble (the
        prediction itself for a ``regression`` one, e.g. a squared-error regressor), per-class
        scores ``(n, n_classes)`` (before the softmax) for a multi-class one."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"X must have shape (n, {self.n_features}), got {X.shape}")
        n = X.shape[0]
        T = len(self.roots)
        K = self.n_classes
        if n == 0 or T == 0:
            return np.broadcast_to(self.baseline, (n, K)).copy() if K > 1 \
                else np.full(n, float(self.baseline))
        walk = native.load("treewalk")
        if walk is not None and n >= 2:  # numpy sums a single row pairwise: the walk below
            sums = self.native_sums(X, walk)  # adds tree by tree, as numpy does for n >= 2
            return float(self.baseline) + sums[:, 0] if K == 1 else self.baseline + sums
        vals = self._tree_values(X)
        if K == 1:
            return float(self.baseline) + vals.sum(axis=0)
        return self.baseline + vals.reshape(T // K, K, n).sum(axis=0).T

    def _walk_tables(self) -> tuple[np.ndarray, np.ndarray, int]:
        """Per node, the row of the walk's value table it reads and the threshold it compares
        with, so that one ``value > threshold`` per step decides every node, NaN included.

        The numpy walk reads a table of ``blocks`` copies of ``X``'s columns: NaN become -inf
        in the first copy (read by nodes that send NaN left: -inf > threshold is false) and
        +inf in the second (nodes that send NaN right); other values are the same in both, so
        ``x > threshold`` is sklearn's rule for them. The one case that needs more is a node
        with an infinite threshold that sends NaN right (sklearn's "missing or not" split):
        every number goes left there, so it reads a third copy holding 1 for NaN and 0 for
        numbers, against 0.5. Rules and leaves are sklearn's exactly; only the comparisons
        needed for NaN are no longer paid on every step of every page.
        """
        F = self.n_features
        inner = ~self.leaf
        nan_right = inner & ~self.missing_left
        is_nan_split = nan_right & (self.threshold == np.inf)
        column = self.feature + np.where(inner & ~nan_right, 0, F)
        threshold = self.threshold.copy()
        column[is_nan_split] = self.feature[is_nan_split] + 2 * F
        threshold[is_nan_split] = 0.5
        return column.astype(np.intp), threshold, 3 if is_nan_split.any() else 2

    def _sibling_order(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A numbering of the nodes for the walk in which the two children of a node are
        neighbours: ``(order, roots, left)`` with ``order[k]`` the node numbered ``k``, the
        trees' roots and every node's left child in the new numbers (its right child is the
        next number; a leaf's "left child" is the leaf itself). A step of the walk is then
        ``left[node] + (x > threshold)``: one look-up fewer than a table of both children,
        and a pair at a leaf is one that did not move."""
        left = self.left.tolist()
        right = self.right.tolist()
        leaf = self.leaf.tolist()
        n_nodes = len(leaf)
        bad = ValueError("tree arrays do not form one tree per root")
        order: list[int] = []
        for r in self.roots.tolist():
            order.append(r)
            k = len(order) - 1
            while k < len(order):  # breadth first over this tree, children in pairs
                v = order[k]
                if not leaf[v]:
                    if len(order) >= n_nodes or not (0 <= left[v] < n_nodes
                                                     and 0 <= right[v] < n_nodes):
                        raise bad  # a cycle, or a child outside the arrays
                    order.append(left[v])
                    order.append(right[v])
                k += 1
        perm = np.asarray(order, dtype=np.intp)
        if len(perm) != n_nodes or np.any(np.bincount(perm, minlength=n_nodes) != 1):
            raise bad
        new = np.empty(len(perm), dtype=np.intp)
        new[perm] = np.arange(len(perm))
        new_left = new[self.left[perm]]
        is_leaf = self.leaf[perm]
        new_left[is_leaf] = np.flatnonzero(is_leaf)
        return perm, new[self.roots], new_left

    def _tree_values_numpy(self, X: np.ndarray) -> np.ndarray:
        """:meth:`_tree_values` by a numpy walk of all trees at once (see the module
        docstring)."""
        n = X.shape[0]
        T = len(self.roots)
        F = self.n_features
        # the value table of _walk_tables, feature-major: the rows of one tree that reach
        # nodes splitting on the same feature read neighbouring values
        table = np.empty((self._walk_blocks * F, n))
        numbers = table[:F]
        numbers[:] = X.T
        nan = np.isnan(numbers)
        table[F:2 * F] = numbers
        if self._walk_blocks == 3:
            table[2 * F:] = nan
        if nan.any():
            table[F:2 * F][nan] = np.inf
            numbers[nan] = -np.inf
        values = table.ravel()
        # one (tree, row) pair per entry, nodes numbered so that a node's right child follows
        # its left one (_sibling_order); leaves are their own left child and compare with an
        # inf threshold (always "left"), so finished pairs stay put. Pairs at a leaf (those
        # that did not move) leave the active arrays once they are a tenth of them (late
        # levels of deep, unbalanced leaf-wise trees then cost little, and early levels do not
        # pay for a compaction that removes a handful of pairs); they are looked for every
        # other step, which costs less than the extra steps of the pairs found a step late
        start = self._walk_column * n  # where each node's column starts in ``values``
        threshold, left = self._walk_threshold, self._walk_left
        cur = np.repeat(self._walk_roots, n)
        pos = np.arange(T * n)
        row = np.tile(np.arange(n, dtype=np.intp), T)
        final = np.empty(T * n, dtype=np.intp)
        for step in range(258):  # a leaf 256 levels down is seen at step 257
            at = start[cur]
            at += row
            nxt = left[cur]
            nxt += values[at] > threshold[cur]
            if step % 2 == 1:
                stay = nxt == cur
                done = int(np.count_nonzero(stay))
                if done == len(cur):
                    final[pos] = cur
                    break
                if done and 10 * done >= len(cur):
                    final[pos[stay]] = cur[stay]
                    move = ~stay
                    nxt, pos, row = nxt[move], pos[move], row[move]
            cur = nxt
        else:
            raise ValueError("tree deeper than 256 levels")
        return self._walk_value[final].reshape(T, n)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """P(class 1) of every row (binary), or the ``(n, n_classes)`` class probabilities
        (multi-class; columns in the order of ``classes``, as sklearn's ``predict_proba``)."""
        if self.kind == "regression":
            raise ValueError("a regression ensemble has no probabilities; use raw()")
        r = self.raw(X)
        if self.n_classes == 1:
            return 1.0 / (1.0 + np.exp(-r))
        r = r - r.max(axis=1, keepdims=True)
        e = np.exp(r)
        return e / e.sum(axis=1, keepdims=True)
