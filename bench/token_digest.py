"""A digest of the token streams of real pages of every language, to check that two
checkouts (or the compiled and the pure-Python analysis) give exactly the same tokens.

::

    python bench/token_digest.py [--per-set 40]
    WEBSEG_PURE_PYTHON=1 python bench/token_digest.py

For each page set under ``../shared/data`` (the six boilerplate sets, DAnIEL's Chinese,
Russian, Greek, Polish and English among them, and WCXB), ``--per-set`` pages spread over
the ids (DAnIEL's ids start with the language) are parsed; every leaf text, the title and
the whole text are analysed one by one (``Analyzer.tokens``) and as a page's batch
(``Analyzer.tokens_many``) with several analyzer settings. Printed: one SHA-256 per set and
analyzer setting, and the texts and tokens seen.
Run it in each checkout (or with and without ``WEBSEG_PURE_PYTHON=1``) and compare.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT / ".." / "shared" / "data"

CONFIGS = [{}, {"stemmer": "english"}, {"stopwords": "none", "stemmer": "none"},
           {"scheme": "ascii"}, {"latin": "de"}]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-set", type=int, default=40)
    args = ap.parse_args(argv)

    from ir.analysis import Analyzer
    from webseg.datasets import load_records
    from webseg.parse import parse

    sets = sorted(p.parent for p in (DATA / "boilerplate").glob("*/manifest.jsonl"))
    sets.append(DATA / "wcxb-dev")
    for d in sets:
        if not (d / "manifest.jsonl").is_file():
            continue
        recs = sorted(load_records(d), key=lambda r: r.id)
        recs = recs[::max(1, len(recs) // args.per_set)][:args.per_set]  # ids by language
        pages = [parse(r.read_html(), url=r.url) for r in recs]
        for kw in CONFIGS:
            an = Analyzer(**kw)
            digest = hashlib.sha256()
            n_texts = n_tokens = 0
            for page in pages:
                texts = [page.title or "", *page.leaf_texts, " ".join(page.leaf_texts)]
                one = [an.tokens(t) for t in texts]
                many = an.tokens_many(texts)
                if one != many:
                    print(f"{d.name} {kw}: tokens_many differs from tokens", file=sys.stderr)
                    return 1
                digest.update(json.dumps(one, ensure_ascii=False).encode("utf-8"))
                n_texts += len(texts)
                n_tokens += sum(map(len, one))
            print(json.dumps({"set": d.name, "analyzer": kw, "texts": n_texts,
                              "tokens": n_tokens, "sha256": digest.hexdigest()[:16]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
