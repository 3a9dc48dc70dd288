"""CPU time of ``extract_metadata`` alone, and its output, on the pages ``bench/clean.py`` uses.

    python bench/metadata.py --data ../shared/data/wcxb-dev \\
        --data ../shared/data/boilerplate/dragnet --limit 80 --passes 3
    python bench/metadata.py --data ../shared/data/wcxb-dev --manifest --dump out.jsonl

Why: the metadata is a few milliseconds of the bench's 25 ms, below the noise of a whole
bench run on a shared machine; timed alone, in several passes, a change to it shows. Per
page: ``extract_metadata(html, url=url)`` and the same with ``dates=False`` (no ``htmldate``),
CPU time (``time.process_time``), median / mean / p95 over all passes.

``--manifest`` takes every page of a set's ``manifest.jsonl`` (WCXB dev: all pages not in
the test split) instead of the bench's selection; ``--dump FILE`` writes every page's fields,
``sources``, language hints and base href as JSON lines. Two dumps made from two versions of
the code (run this script from each checkout) compare with ``cmp``: a speed change that must
not change the output is checked that way.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from webseg.clean.metadata import extract_metadata  # noqa: E402
from webseg.decode import decode_html  # noqa: E402


def bench_pages(data: list[Path], split: str, limit: int, cache: Path
                ) -> list[tuple[str, str | None, str]]:
    """``(id, url, decoded html)`` of the pages ``bench/clean.py`` times (same selection)."""
    from bench.clean import pick  # the bench's selection: same pages, same order
    from webseg.datasets import KNOWN_ENCODINGS

    out = []
    for d in data:
        for r in pick(d, split, limit, cache):
            html = decode_html(r.read_html(), encoding=KNOWN_ENCODINGS.get(r.dataset)).text
            out.append((r.id, r.url, html))
    return out


def manifest_pages(data: list[Path]) -> list[tuple[str, str | None, str]]:
    """Every page of each set's ``manifest.jsonl`` that is not also in the test split."""
    out = []
    for d in data:
        for line in (d / "manifest.jsonl").open(encoding="utf-8"):
            rec = json.loads(line)
            if rec.get("in_test_too"):
                continue
            html = decode_html(gzip.decompress((d / rec["html"]).read_bytes())).text
            out.append((rec["id"], rec.get("url"), html))
    return out


def main(argv: list[str] | None = None) -> int:
    from webseg.datasets import DEFAULT_CACHE

    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, action="append", required=True)
    ap.add_argument("--limit", type=int, default=80, help="pages per set (bench selection)")
    ap.add_argument("--split", default="test")
    ap.add_argument("--render-cache", type=Path, default=DEFAULT_CACHE,
                    help="the bench's selection keeps the pages in the render cache")
    ap.add_argument("--manifest", action="store_true",
                    help="every manifest page (not in the test split) instead")
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--dump", type=Path, help="write every page's metadata here (JSON lines)")
    args = ap.parse_args(argv)
    pages = (manifest_pages(args.data) if args.manifest
             else bench_pages(args.data, args.split, args.limit, args.render_cache))
    if not pages:
        print("no pages (is the render cache filled? see bench/clean.py)", file=sys.stderr)
        return 1
    extract_metadata("<html><title>x</title></html>")  # imports before the timing
    full: list[float] = []
    quick: list[float] = []
    for _ in range(args.passes):
        for _id, url, html in pages:
            t = time.process_time()
            extract_metadata(html, url=url)
            full.append(time.process_time() - t)
            t = time.process_time()
            extract_metadata(html, url=url, dates=False)
            quick.append(time.process_time() - t)

    def stats(v: list[float]) -> str:
        a = 1000 * np.array(v)
        return f"{np.median(a):.2f} / {a.mean():.2f} / {np.percentile(a, 95):.2f}"

    digest = hashlib.sha1("".join(p[0] for p in pages).encode()).hexdigest()[:8]
    print(f"{len(pages)} pages (ids {digest}), {args.passes} passes, CPU ms median / mean / p95:"
          f" metadata {stats(full)}; without htmldate {stats(quick)}")
    if args.dump:
        with args.dump.open("w", encoding="utf-8") as f:
            for pid, url, html in pages:
                md = extract_metadata(html, url=url)
                f.write(json.dumps({"id": pid, **md.to_dict(), "sources": md.sources,
                                    "lang_hints": md.lang_hints, "base_href": md.base_href},
                                   ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
