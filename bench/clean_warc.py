"""CPU of the clean stage's result (text, metadata, title, XPaths, JSON) over the pages of a
WARC parsed without a browser, per part, and a digest of the outputs.

    python bench/clean_warc.py /work/cache/runs/s36/w400.warc.gz --passes 3
    (in a checkout of the old code: the same; compare the digests and the CPU)

The pages are parsed and the block model run first (not timed), as ``webseg pipeline
--no-render`` does; then, per page, in the order the pipeline's clean stage asks for them
(:func:`webseg.clean.json_out.to_dict`), each part of the result is timed on a fresh
:class:`~webseg.clean.CleanResult` (``time.process_time``): ``text`` (the status),
``metadata`` (title, authors, dates...: :func:`~webseg.clean.metadata.extract_metadata`),
``language`` and ``to_dict`` (the rest: the kept nodes, their XPaths, the JSON object).
A page's lazily built columns (joints, XPath steps) are cached on the Page; each pass works
on copies made before the timing so that every pass pays them. Prints the mean CPU ms per
page of each part and the median of the total over the pages, per pass; and one SHA-1 over
every page's ``to_dict(roles=False)`` JSON. Nothing asserts.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from webseg.clean import CleanResult, _blocks_result  # noqa: E402
from webseg.clean.run import page_url  # noqa: E402
from webseg.inputs import iter_warc, parse_inputs_html  # noqa: E402

PARTS = ("text", "metadata", "language", "to_dict")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("warc", type=Path)
    ap.add_argument("--limit", type=int, default=0, help="first N parsed pages (0: all)")
    ap.add_argument("--passes", type=int, default=3)
    a = ap.parse_args(argv)
    items = []
    for rec, page, _, html in parse_inputs_html(iter_warc(a.warc)):
        if page is None:
            continue
        url = page_url(rec, page, html)
        page.url = url or page.url
        bpage, keep, bf = _blocks_result(page, (), None, {})
        items.append((bpage, keep, html, url))
        if a.limit and len(items) >= a.limit:
            break
    digest = None
    for p in range(a.passes):
        pages = [copy.deepcopy(it[0]) for it in items]
        sums = dict.fromkeys(PARTS, 0.0)
        totals = []
        h = hashlib.sha1()
        for (_, keep, html, url), page in zip(items, pages, strict=True):
            res = CleanResult(page=page, leaf_keep=keep, method="blocks", html=html,
                              page_url=url)
            t = [time.process_time()]
            _ = res.status
            t.append(time.process_time())
            _ = res.metadata
            t.append(time.process_time())
            _ = res.language
            t.append(time.process_time())
            d = res.to_dict(roles=False)
            t.append(time.process_time())
            for k, part in enumerate(PARTS):
                sums[part] += (t[k + 1] - t[k]) * 1000
            totals.append((t[-1] - t[0]) * 1000)
            h.update(json.dumps(d, ensure_ascii=False, sort_keys=True).encode())
        n = len(items)
        parts = "  ".join(f"{k} {v / n:.3f}" for k, v in sums.items())
        print(f"pass {p}: {n} pages, total mean {np.mean(totals):.3f} median "
              f"{np.median(totals):.3f} ms/page | {parts}")
        digest = h.hexdigest()
    print(f"outputs sha1 {digest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
