"""Digest of the block model's outputs on cached pages, to check that a speed-up changes none.

    python bench/blocks_digest.py --limit 50 --out /tmp/digest_new.json
    (in another checkout: the same with --out /tmp/digest_old.json); cmp the two files

For the first ``--limit`` pages per set (the harness's selection and hash order, as
``bench/clean.py``) it runs :func:`webseg.blocks.block_functions` and
``extract(page, "blocks")`` on the cached rendered page and on the page parsed from its bytes
(``--no-render``), and writes one SHA-1 per page and mode of the leaf scores, the keep mask,
the clean text and the kept XPaths (sorted JSON, so identical outputs give identical files).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from eval.templates.harness import select_records  # noqa: E402
from webseg.blocks import block_functions  # noqa: E402
from webseg.clean import extract  # noqa: E402
from webseg.datasets import DEFAULT_CACHE, KNOWN_ENCODINGS, cache_path, load_records  # noqa: E402
from webseg.decode import decode_html  # noqa: E402
from webseg.page import Page  # noqa: E402
from webseg.parse import parse  # noqa: E402

SETS = ("../shared/data/wcxb-dev", "../shared/data/boilerplate/dragnet",
        "../shared/data/boilerplate/cleaneval", "../shared/data/boilerplate/l3s-gn1")


def digest(page: Page) -> str:
    bf = block_functions(page)
    res = extract(page, "blocks")
    h = hashlib.sha1()
    h.update(bf.leaf_scores.tobytes())
    h.update(bf.keep.tobytes())
    h.update(res.text.encode())
    h.update("\n".join(res.xpaths).encode())
    return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, action="append", help="data sets (default: four)")
    ap.add_argument("--split", default="test")
    ap.add_argument("--limit", type=int, default=50, help="pages per set")
    ap.add_argument("--render-cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    out: dict[str, dict[str, str]] = {}
    for d in args.data or [Path(s) for s in SETS]:
        recs, _ = select_records(load_records(d), args.split)
        recs = sorted(recs, key=lambda r: hashlib.sha1(r.id.encode()).hexdigest())
        recs = [r for r in recs if cache_path(args.render_cache, r).is_file()][:args.limit]
        for r in recs:
            page = Page.load(cache_path(args.render_cache, r))
            if r.url:
                page.url = r.url
            dec = decode_html(r.read_html(), encoding=KNOWN_ENCODINGS.get(r.dataset))
            parsed = parse(dec.text, url=r.url, encoding=dec.encoding)
            out[f"{r.dataset}/{r.id}"] = {"rendered": digest(page), "parsed": digest(parsed)}
    args.out.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"{len(out)} pages -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
