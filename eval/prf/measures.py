"""trec_eval measures through ir-measures (pytrec_eval) and paired significance tests.

Measures: MAP (``AP``), ``P@10``, ``nDCG@10``, ``R@1000``, each averaged over the topics that
have at least one relevant document (relevance >= 1), as trec_eval does. Significance of a run
against a baseline: two-sided paired t-test on per-topic AP (scipy) and a two-sided paired
randomisation (sign-flip) test with 10,000 permutations and a fixed seed.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

__all__ = ["MEASURES", "evaluate", "paired_tests"]

MEASURES = ("AP", "P@10", "nDCG@10", "R@1000")


def evaluate(run: Mapping[str, Mapping[str, float]], qrels: Mapping[str, Mapping[str, int]],
             topics: list[str]) -> dict[str, dict[str, float]]:
    """Per-topic measures ``{measure: {qid: value}}``; a topic with no results scores 0."""
    import ir_measures
    from ir_measures import parse_measure

    ms = [parse_measure(m) for m in MEASURES]
    q = {t: dict(qrels[t]) for t in topics}
    r = {t: {d: float(s) for d, s in run.get(t, {}).items()} for t in topics}
    out: dict[str, dict[str, float]] = {m: dict.fromkeys(topics, 0.0) for m in MEASURES}
    for pm in ir_measures.iter_calc(ms, q, {t: v for t, v in r.items() if v}):
        out[str(pm.measure)][pm.query_id] = float(pm.value)
    return out


def paired_tests(a: Mapping[str, float], b: Mapping[str, float], n_perm: int = 10_000,
                 seed: int = 0) -> tuple[float, float]:
    """(t-test p, randomisation p) for per-topic values of run ``a`` vs baseline ``b``."""
    from scipy.stats import ttest_rel

    keys = sorted(set(a) & set(b))
    x = np.asarray([a[k] for k in keys]) - np.asarray([b[k] for k in keys])
    if len(x) < 2 or not np.any(x):
        return 1.0, 1.0
    t_p = float(ttest_rel([a[k] for k in keys], [b[k] for k in keys]).pvalue)
    rng = np.random.default_rng(seed)
    obs = abs(x.mean())
    signs = rng.choice([-1.0, 1.0], size=(n_perm, len(x)))
    perm = np.abs((signs * x).mean(axis=1))
    r_p = float((np.sum(perm >= obs - 1e-12) + 1) / (n_perm + 1))
    return t_p, r_p
