"""Word F1 of ``webseg clean --no-render`` text on the shared sets, to compare two versions.

    python bench/clean_parsed_f1.py --data ../shared/data/boilerplate/dragnet \\
        --out .cache/clean_f1/after.csv [--variant units --variant no-units]

Per page of every ``--data`` set (the harness's selection: pages with gold, the ``--split``
where the set has one, gold found in the HTML; ``--limit`` pages in id order, 0 = all):
``decode_html`` + :func:`webseg.parse.parse` + ``extract(page, "blocks").text``, scored with
the harness's bag-of-words F1 (``eval.templates.textmetrics.bow_prf``). ``--variant``
``no-units`` runs the block model without the structure units of its decoder
(:mod:`webseg.blocks.units`), so both decodings come from one process; a checkout without
units only knows the default. Writes one CSV row per page and variant, and prints the mean F1
per set and variant.

The shipped model was trained on these sets, so the means are **in-sample**: they compare two
versions of the text assembly and decoding on the same pages, they are not held-out scores
(those come from ``python -m eval.blocks``, site-grouped CV).
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from eval.templates.harness import select_records  # noqa: E402
from eval.templates.textmetrics import bow_prf, words  # noqa: E402
from webseg.clean import extract  # noqa: E402
from webseg.datasets import KNOWN_ENCODINGS, load_records  # noqa: E402
from webseg.decode import decode_html  # noqa: E402
from webseg.parse import parse  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, action="append", required=True)
    ap.add_argument("--split", default="test")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--variant", action="append", choices=("default", "units", "no-units"))
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    variants = a.variant or ["default"]
    a.out.parent.mkdir(parents=True, exist_ok=True)
    sums: dict[tuple[str, str], list[float]] = defaultdict(list)
    with a.out.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["dataset", "id", "variant", "f1"])
        for d in a.data:
            recs, _ = select_records(load_records(d), a.split)
            recs = sorted(recs, key=lambda r: r.id)
            if a.limit:
                recs = recs[:a.limit]
            for r in recs:
                gold = words(r.read_gold() or "")
                try:
                    dec = decode_html(r.read_html(), encoding=KNOWN_ENCODINGS.get(r.dataset))
                    page = parse(dec.text, url=r.url, encoding=dec.encoding)
                except Exception:  # noqa: BLE001 - no page: scored as empty output
                    page = None
                for v in variants:
                    text = ""
                    if page is not None:
                        params = {} if v == "default" else {"units": v == "units"}
                        try:
                            text = extract(page, "blocks", **params).text
                        except Exception as e:  # noqa: BLE001
                            print(f"{r.dataset}/{r.id}: {type(e).__name__}: {e}",
                                  file=sys.stderr)
                    f1 = bow_prf(words(text), gold)[2]
                    w.writerow([r.dataset, r.id, v, f"{f1:.6f}"])
                    sums[(r.dataset, v)].append(f1)
    for (ds, v), vals in sorted(sums.items()):
        print(f"{ds}\t{v}\tpages={len(vals)}\tmean_f1={sum(vals) / len(vals):.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
