"""Speed and memory of near-duplicate detection (``dedup``).

Two measurements:

1. **Sketching from extracted text**: pages per CPU second (one core) of the papers' bottom-8
   sketch (normalise, 6-word shingles, 64-bit hashes, 8 smallest) and of the 64-permutation
   MinHash used for LSH, on the visible text of real rendered pages (the render cache of a
   boilerplate set, text extracted before timing); synthetic texts when no cache is there.
2. **LSH end to end over N documents** (default 100,000): **synthetic** texts (Zipf-distributed
   words from a 50,000-word vocabulary, 150-450 words each) with planted near-duplicates (every
   20th document is a copy of the previous one with 5 % of its words replaced and a template
   line added). Timed: sketch + MinHash + LSH insert, candidate generation from the buckets,
   verification with the bottom-k rule, clusters; text generation is excluded. Reports the
   recall of the planted pairs, the recall of the LSH candidates against the rule applied to
   *all* pairs (computed exactly through an inverted index on sketch values: two sketches that
   share >= 4 values share at least one), peak RSS and the memory the index added per document.

    python bench/dedup.py                       # 100,000 documents
    python bench/dedup.py --docs 20000 --pages .cache/webseg/boilerplate/dragnet
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections import Counter, defaultdict
from itertools import combinations
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dedup.lsh import DuplicateIndex, clusters, minhash_values  # noqa: E402
from dedup.shingle import PAPER, is_duplicate, shingle_hashes, sketch, text_sketch  # noqa: E402


def rss_mb() -> float:
    """Current resident set size of this process (MB)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def gold_texts(data: Path, limit: int) -> list[str]:
    """Gold main-content texts of a boilerplate set: what an extractor hands to sketching."""
    from webseg.datasets import load_records

    out = []
    for r in load_records(data):
        g = r.read_gold()
        if g and g.strip():
            out.append(g)
        if len(out) >= limit:
            break
    return out


def real_texts(cache: Path, limit: int) -> list[str]:
    from dedup.strip import full_text
    from webseg.page import Page

    out = []
    for p in sorted(cache.glob("*.json.gz"))[:limit]:
        try:
            out.append(full_text(Page.load(p)))
        except (OSError, ValueError, EOFError):
            continue
    return out


class Corpus:
    """Synthetic documents from a Zipf vocabulary; doc i % 20 == 19 is a planted near-copy."""

    def __init__(self, seed: int = 0, vocab: int = 50_000) -> None:
        self.rng = np.random.default_rng(seed)
        self.vocab = np.array([f"w{i}" for i in range(vocab)], dtype=object)
        ranks = np.arange(1, vocab + 1)
        p = 1.0 / ranks
        self.p = p / p.sum()
        self.prev: np.ndarray | None = None

    def doc(self, i: int) -> str:
        if i % 20 == 19 and self.prev is not None:
            ids = self.prev.copy()
            k = max(1, len(ids) // 20)
            pos = self.rng.choice(len(ids), k, replace=False)
            ids[pos] = self.rng.choice(len(self.vocab), k, p=self.p)
            return "home news contact about " + " ".join(self.vocab[ids]) + " all rights reserved"
        ids = self.rng.choice(len(self.vocab), int(self.rng.integers(150, 450)), p=self.p)
        self.prev = ids
        return " ".join(self.vocab[ids])


def bench_sketch(texts: list[str], repeat: int, num_perm: int = 64) -> dict[str, float]:
    words = [len(t.split()) for t in texts]
    t0 = time.process_time()
    for _ in range(repeat):
        for t in texts:
            text_sketch(t)
    sk = time.process_time() - t0
    t0 = time.process_time()
    for _ in range(repeat):
        for t in texts:
            h = shingle_hashes(t)
            sketch(h)
            minhash_values(h, num_perm)
    both = time.process_time() - t0
    n = len(texts) * repeat
    return {"pages": len(texts), "median_words": float(np.median(words)),
            "sketch_pages_per_cpu_s": n / sk, "sketch_plus_minhash_pages_per_cpu_s": n / both}


def exact_rule_pairs(sketches: dict[int, np.ndarray]) -> set[tuple[int, int]]:
    """All pairs the bottom-k rule accepts, via an inverted index on sketch values."""
    post: dict[int, list[int]] = defaultdict(list)
    for key, s in sketches.items():
        for v in s.tolist():
            post[v].append(key)
    counts: Counter = Counter()
    for keys in post.values():
        if len(keys) > 1:
            counts.update(combinations(sorted(keys), 2))
    return {p for p, c in counts.items() if c >= PAPER.threshold
            or is_duplicate(sketches[p[0]], sketches[p[1]])}


def bench_lsh(n: int, num_perm: int, lsh_threshold: float, seed: int) -> dict[str, float]:
    corpus = Corpus(seed)
    rss0 = rss_mb()
    idx = DuplicateIndex(num_perm=num_perm, lsh_threshold=lsh_threshold)
    t_index = 0.0
    cpu_index = 0.0
    for i in range(n):
        text = corpus.doc(i)
        t0, c0 = time.perf_counter(), time.process_time()
        idx.add(i, shingle_hashes(text))
        t_index += time.perf_counter() - t0
        cpu_index += time.process_time() - c0
    rss_index = rss_mb()
    t0, c0 = time.perf_counter(), time.process_time()
    cands = list(idx.candidates())
    t_cand = time.perf_counter() - t0
    t1 = time.perf_counter()
    pairs = [p for p in (idx.verify(a, b) for a, b in cands) if p.duplicate]
    t_verify = time.perf_counter() - t1
    t2 = time.perf_counter()
    comps = clusters(idx.keys, ((p.a, p.b) for p in pairs))
    t_clusters = time.perf_counter() - t2
    cpu_rest = time.process_time() - c0
    found = {(p.a, p.b) for p in pairs}
    planted = {(i - 1, i) for i in range(19, n, 20)}
    rule = exact_rule_pairs(idx.sketches)
    cand_set = {(min(a, b), max(a, b)) for a, b in cands}
    return {
        "docs": n, "num_perm": num_perm, "lsh_threshold": lsh_threshold,
        "bands_x_rows": f"{idx.lsh.b}x{idx.lsh.r}",
        "index_s": t_index, "index_cpu_s": cpu_index,
        "candidates_s": t_cand, "verify_s": t_verify, "clusters_s": t_clusters,
        "end_to_end_s": t_index + t_cand + t_verify + t_clusters,
        "end_to_end_cpu_s": cpu_index + cpu_rest,
        "candidates": len(cands), "duplicate_pairs": len(pairs), "clusters": len(comps),
        "planted_pairs": len(planted), "planted_recall": len(found & planted) / len(planted),
        "rule_pairs_all_pairs": len(rule),
        "lsh_candidate_recall_vs_rule": len(rule & cand_set) / len(rule) if rule else 1.0,
        "index_mb": rss_index - rss0, "bytes_per_doc": (rss_index - rss0) * 2**20 / n,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def acceptance_curve(trials: int = 400, size: int = 400, seed: int = 0) -> None:
    """How often the rule accepts, and the LSH proposes, a pair of sets with Jaccard J.

    Simulated with random 64-bit shingle sets of ``size`` elements each; the LSH probability is
    the banding formula ``1 - (1 - J^r)^b`` for datasketch's (b, r) choice.
    """
    from datasketch import MinHashLSH

    rng = np.random.default_rng(seed)
    configs = [(64, 0.3), (64, 0.5), (32, 0.3)]
    lshs = [MinHashLSH(threshold=t, num_perm=n) for n, t in configs]
    head = " ".join(f"LSH {n}/{t} ({ls.b}x{ls.r})" for (n, t), ls in zip(configs, lshs,
                                                                          strict=True))
    print(f"acceptance vs Jaccard ({trials} simulated pairs of {size}-shingle sets per J):")
    print(f"  J     rule(>=4 of 8)  {head}")
    for j in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
        inter = round(j * 2 * size / (1 + j))
        hits = 0
        for _ in range(trials):
            common = rng.integers(0, 2**63, inter, dtype=np.uint64)
            a = np.concatenate([common, rng.integers(0, 2**63, size - inter, dtype=np.uint64)])
            b = np.concatenate([common, rng.integers(0, 2**63, size - inter, dtype=np.uint64)])
            hits += is_duplicate(sketch(a), sketch(b))
        probs = "  ".join(f"{1 - (1 - j ** ls.r) ** ls.b:16.3f}" for ls in lshs)
        print(f"  {j:.1f}   {hits / trials:14.3f}  {probs}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--pages", type=Path, default=Path(".cache/webseg/boilerplate/dragnet"),
                    help="render cache of real pages for the sketching bench")
    ap.add_argument("--gold", type=Path, default=Path("../shared/data/boilerplate/dragnet"),
                    help="boilerplate set whose gold main texts are the extracted texts")
    ap.add_argument("--limit", type=int, default=500, help="real pages to load")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--num-perm", type=int, default=64)
    ap.add_argument("--lsh-threshold", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)

    sources = []
    if (a.gold / "manifest.jsonl").is_file():
        sources.append((f"extracted main text: gold of {a.gold.name}",
                        gold_texts(a.gold, a.limit)))
    if a.pages.is_dir():
        sources.append((f"all visible text of rendered pages in {a.pages}",
                        real_texts(a.pages, a.limit)))
    if not sources:
        c = Corpus(a.seed + 1)
        sources.append(("synthetic texts", [c.doc(i) for i in range(a.limit)]))
    for name, texts in sources:
        s = bench_sketch(texts, a.repeat, a.num_perm)
        print(f"sketching, {name} ({s['pages']} pages, median {s['median_words']:.0f} words, "
              f"{a.repeat} passes):")
        print(f"  bottom-8 sketch           {s['sketch_pages_per_cpu_s']:8.0f} pages per CPU s "
              "(target >= 2,000)")
        print(f"  sketch + MinHash({a.num_perm})      "
              f"{s['sketch_plus_minhash_pages_per_cpu_s']:8.0f} pages per CPU s")
    acceptance_curve(seed=a.seed)
    r = bench_lsh(a.docs, a.num_perm, a.lsh_threshold, a.seed)
    print(f"LSH end to end over {r['docs']:,} synthetic documents with planted near-duplicates "
          f"(num_perm {r['num_perm']}, threshold {r['lsh_threshold']}, bands x rows "
          f"{r['bands_x_rows']}):")
    for k in ("index_s", "candidates_s", "verify_s", "clusters_s", "end_to_end_s"):
        print(f"  {k:28s} {r[k]:8.1f} s")
    print(f"  {'end_to_end_cpu_s':28s} {r['end_to_end_cpu_s']:8.1f} s   (target <= 60 s)")
    print(f"  candidates {r['candidates']:,}, verified duplicate pairs {r['duplicate_pairs']:,},"
          f" clusters {r['clusters']:,}")
    print(f"  planted pairs found        {r['planted_recall']:.4f} of {r['planted_pairs']:,}")
    print(f"  LSH candidate recall vs the rule on all pairs {r['lsh_candidate_recall_vs_rule']:.4f}"
          f" ({r['rule_pairs_all_pairs']:,} rule pairs)")
    print(f"  index memory {r['index_mb']:.0f} MB = {r['bytes_per_doc']:.0f} bytes per document;"
          f" peak RSS {r['peak_rss_mb']:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
