"""Natural near-duplicate pairs of the boilerplate sets, labelled by their gold text.

Some pages of the shared sets carry the same main content: the same wire story at two news
outlets (L3S-GN1 is a Google News crawl), the same article under two URLs (Dragnet), one page
twice (CleanEval ``same_html_as``). Their gold main-content texts say so independently of the
page templates, so they give real (not semi-synthetic) pairs for the harness:

* ``duplicate``: Jaccard similarity of the gold texts' 6-word shingle *sets* (exact, all
  shingles) >= 0.5;
* ``unsure``: 0.2 <= J < 0.5 (reported by the harness, not scored);
* ``not-duplicate``: pages of the same site with J < 0.05 (the papers' same-site
  non-duplicates), a seeded sample of ``--nondup`` pairs.

Pairs are found through an inverted index on shingle hashes (pairs sharing no shingle have
J = 0). Pages with ``gold_not_in_html`` are left out. The pairs file points at the shared page
files (paths relative to the pairs file) with their ``dataset`` and ``record_id``, so the
harness takes them from the shared render cache (:func:`webseg.datasets.render_cached`).

    python -m eval.dedup.natural --data ../shared/data/boilerplate/l3s-gn1 \\
        ../shared/data/boilerplate/dragnet ../shared/data/boilerplate/cleaneval \\
        --out .cache/webseg/dedup-natural/pairs.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import random
from collections import defaultdict
from itertools import combinations
from pathlib import Path

from dedup.shingle import shingle_hashes
from webseg.datasets import PageRecord, load_records


def _side(r: PageRecord, base: Path) -> dict[str, str | None]:
    return {"html": os.path.relpath(r.html.resolve(), base.resolve()), "id": f"{r.dataset}/{r.id}",
            "url": r.url, "site": r.site, "dataset": r.dataset, "record_id": r.id}


def natural_pairs(data: list[Path], out: Path, n_nondup: int = 100, seed: int = 0,
                  dup_j: float = 0.5, unsure_j: float = 0.2, non_j: float = 0.05) -> dict:
    recs = [r for d in data for r in load_records(d)
            if r.gold is not None and not r.exclude_text_metrics]
    sets = [set(shingle_hashes(r.read_gold() or "").tolist()) for r in recs]
    post: dict[int, list[int]] = defaultdict(list)
    for i, s in enumerate(sets):
        for h in s:
            post[h].append(i)
    inter: dict[tuple[int, int], int] = defaultdict(int)
    for ids in post.values():
        if len(ids) > 1:
            for pair in combinations(ids, 2):
                inter[pair] += 1
    jac = {p: c / len(sets[p[0]] | sets[p[1]]) for p, c in inter.items()}
    base = out.parent
    rows = []
    for (i, j), v in sorted(jac.items()):
        if v >= unsure_j:
            label = "duplicate" if v >= dup_j else "unsure"
            rows.append((label, i, j, v))
    rng = random.Random(seed)
    same_site = [(i, j) for i, j in combinations(range(len(recs)), 2)
                 if recs[i].site and recs[i].site == recs[j].site
                 and recs[i].dataset == recs[j].dataset and jac.get((i, j), 0.0) < non_j]
    rng.shuffle(same_site)
    rows += [("not-duplicate", i, j, jac.get((i, j), 0.0)) for i, j in same_site[:n_nondup]]
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as f:
        for k, (label, i, j, v) in enumerate(rows):
            f.write(json.dumps({"pair_id": f"nat-{k:04d}", "a": _side(recs[i], base),
                                "b": _side(recs[j], base), "label": label,
                                "gold_jaccard": round(v, 4),
                                "same_site": recs[i].site == recs[j].site,
                                "semi_synthetic": False}) + "\n")
    stats = {"data": [str(d) for d in data], "pages": len(recs), "seed": seed,
             "duplicate": sum(r[0] == "duplicate" for r in rows),
             "unsure": sum(r[0] == "unsure" for r in rows),
             "not_duplicate": sum(r[0] == "not-duplicate" for r in rows),
             "thresholds": {"duplicate": dup_j, "unsure": unsure_j, "not_duplicate": non_j}}
    out.with_name("natural.json").write_text(json.dumps(stats, indent=2) + "\n")
    return stats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, nargs="+", required=True)
    ap.add_argument("--out", type=Path, required=True, help="pairs file to write")
    ap.add_argument("--nondup", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    print(natural_pairs(a.data, a.out, a.nondup, a.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
