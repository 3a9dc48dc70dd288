"""Near-duplicate detection per language on daniel-dev: semi-synthetic and natural pairs.

``python -m eval.multilingual.dedup [--data DIR] [--n N] [--out FILE]``

Pairs are built per language as :mod:`eval.dedup.build` builds its benchmark: a host page's
main-content element (found by aligning its gold text to the DOM, :func:`eval.dedup.build.
find_hosts`) gets another page's gold text (:func:`eval.dedup.build.inject`). *Duplicate*: one
article in two hosts of two different sites (two templates). *Not duplicate*: two different
articles of the same language in two hosts of one site (one template). Natural pairs: the
``url_group`` pages (one URL fetched on several days), all duplicates.

Each page's text is taken without a browser (:func:`webseg.parse.parse`): ``none`` is all its
visible text, ``webseg`` the main content ``webseg.clean.extract`` keeps (default method, as
``webseg dedup`` strips pages), ``extractor`` trafilatura's main text. Two normalisations
are compared: ``words`` (:func:`dedup.shingle.words`: one word per character in unspaced
scripts, NFKC) and ``spaces`` (the normalisation before: whitespace words only, so a Chinese
sentence is one word). The rule is the papers' (6-word shingles, 8-hash sketch, >= 4 shared).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from dedup.shingle import PAPER, is_duplicate, shingle_hashes, sketch, words
from eval.multilingual import DANIEL

NORMS = ("words", "spaces")
STRATEGIES = ("none", "webseg", "extractor")


def spaces_words(text: str) -> list[str]:
    """The normalisation before unspaced scripts were split: lowercase, non-alphanumeric
    characters deleted, whitespace words (no NFKC)."""
    t = text.lower()
    return "".join(c for c in t if c.isalnum() or c.isspace()).split()


def _sketch(text: str, norm: str) -> Any:
    ws = words(text) if norm == "words" else spaces_words(text)
    return sketch(shingle_hashes(ws, PAPER.window), PAPER.k)


def page_texts(html: bytes, url: str | None) -> dict[str, str]:
    from dedup.strip import extractor_text, full_text
    from webseg.clean import extract
    from webseg.parse import parse

    page = parse(html, url=url)
    return {"none": full_text(page), "webseg": extract(page).text,
            "extractor": extractor_text(html, url)}


def build_pairs(records: list[Any], lang: str, n: int, seed: int, log: Any
                ) -> list[tuple[str, bytes, bytes]]:
    """(label, html a, html b) pairs of one language (module doc)."""
    from eval.dedup.build import _clean_gold, find_hosts, inject

    recs = [r for r in records if r.extra.get("lang") == lang]
    hosts, _ = find_hosts(recs, log=lambda m: log(f"{lang}: {m}"))
    by_site: dict[str, list[Any]] = defaultdict(list)
    for h in hosts:
        by_site[h.record.site].append(h)
    contents = [(r.id, _clean_gold(r)) for r in recs if r.gold is not None]
    contents = [(i, c) for i, c in contents if len(words(c)) >= 80]
    rng = random.Random(seed)
    pairs: list[tuple[str, bytes, bytes]] = []
    sites = sorted(by_site)
    multi = [s for s in sites if len(by_site[s]) >= 2]
    if len(sites) >= 2 and contents:
        for _ in range(n):
            s1, s2 = rng.sample(sites, 2)
            _, c = rng.choice(contents)
            pairs.append(("dup", inject(rng.choice(by_site[s1]), c),
                          inject(rng.choice(by_site[s2]), c)))
    if multi and len(contents) >= 2:
        for _ in range(n):
            s = rng.choice(multi)
            h1, h2 = rng.sample(by_site[s], 2)
            (_, c1), (_, c2) = rng.sample(contents, 2)
            pairs.append(("nondup", inject(h1, c1), inject(h2, c2)))
    log(f"{lang}: {len(hosts)} hosts on {len(sites)} sites ({len(multi)} with >= 2): "
        f"{sum(p[0] == 'dup' for p in pairs)} dup, {sum(p[0] == 'nondup' for p in pairs)} "
        f"non-dup pairs")
    return pairs


def url_group_pairs(records: list[Any]) -> list[tuple[str, bytes, bytes, str]]:
    groups: dict[str, list[Any]] = defaultdict(list)
    for r in records:
        if r.extra.get("url_group"):
            groups[r.extra["url_group"]].append(r)
    out = []
    for g in sorted(groups):
        rs = sorted(groups[g], key=lambda r: r.id)
        for i in range(len(rs) - 1):
            out.append(("dup", rs[i].read_html(), rs[i + 1].read_html(),
                        str(rs[i].extra.get("lang"))))
    return out


def score(pairs: list[tuple[str, bytes, bytes]]) -> dict[str, dict[str, Any]]:
    """Per strategy and normalisation: true/false positives and negatives, P, R, F1."""
    texts = [(lab, page_texts(a, None), page_texts(b, None)) for lab, a, b in pairs]
    out: dict[str, dict[str, Any]] = {}
    for s in STRATEGIES:
        for norm in NORMS:
            tp = fp = fn = tn = 0
            for lab, ta, tb in texts:
                d = is_duplicate(_sketch(ta[s], norm), _sketch(tb[s], norm), PAPER)
                tp += d and lab == "dup"
                fp += d and lab != "dup"
                fn += (not d) and lab == "dup"
                tn += (not d) and lab != "dup"
            p = tp / (tp + fp) if tp + fp else 0.0
            r = tp / (tp + fn) if tp + fn else 0.0
            f = 2 * p * r / (p + r) if p + r else 0.0
            out[f"{s}/{norm}"] = {"tp": tp, "fp": fp, "fn": fn, "tn": tn, "precision": round(p, 3),
                                  "recall": round(r, 3), "f1": round(f, 3)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.multilingual.dedup", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path(DANIEL))
    ap.add_argument("--langs", default="zh,ru,el,pl,en")
    ap.add_argument("--n", type=int, default=40, help="pairs of each kind per language")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    from webseg.datasets import load_records

    if not (args.data / "manifest.jsonl").is_file():
        print(f"{args.data}: no manifest.jsonl (daniel-dev is needed)", file=sys.stderr)
        return 2
    records = load_records(args.data)
    result: dict[str, Any] = {}

    def log(m: str) -> None:
        print(m, file=sys.stderr, flush=True)

    for lang in args.langs.split(","):
        pairs = build_pairs(records, lang, args.n, args.seed, log)
        if pairs:
            result[lang] = score(pairs)
    ug = url_group_pairs(records)
    if ug:
        result["url_group"] = score([(lab, a, b) for lab, a, b, _ in ug])
    print("| set | " + " | ".join(f"{s}/{n}" for s in STRATEGIES for n in NORMS) + " |")
    print("|---|" + "---:|" * (len(STRATEGIES) * len(NORMS)))
    for name, res in result.items():
        cells = [f"P {res[k]['precision']:.2f} R {res[k]['recall']:.2f}"
                 for k in (f"{s}/{n}" for s in STRATEGIES for n in NORMS)]
        print(f"| {name} | " + " | ".join(cells) + " |")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
