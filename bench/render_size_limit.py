"""Render time against page size near the node limit: should rendering have a lower size
limit than parsing?

::

    python bench/render_size_limit.py                 # 2, 5, 10, 20 MB
    python bench/render_size_limit.py --para-chars 2000

Pages of ``<p>`` elements with ``--para-chars`` characters each (200 by default: the densest
page that stays under the 200,000-node limit at 20 MB) are rendered by one warm renderer
(``Renderer(timeout=30)``) and parsed (:func:`webseg.parse.parse`); wall seconds of each,
with the node count. The machine's load is printed: the timings are wall-clock.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from webseg.parse import parse  # noqa: E402
from webseg.render import Renderer, RenderError  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="2,5,10,20", help="Page sizes in MB.")
    ap.add_argument("--para-chars", type=int, default=200)
    ap.add_argument("--timeout", type=float, default=30.0)
    a = ap.parse_args()
    para = "<p>" + ("lorem ipsum dolor sit amet " * (a.para_chars // 27 + 1))[:a.para_chars] \
        + "</p>\n"
    print(f"load {os.getloadavg()[0]:.2f}", flush=True)
    with Renderer(timeout=a.timeout) as r:
        r.render(b"<p>warm</p>")
        for mb in (float(x) for x in a.sizes.split(",")):
            html = ("<html><body>" + para * int(mb * 1e6 / len(para))
                    + "</body></html>").encode()
            t = time.perf_counter()
            try:
                res = f"ok, {r.render(html).n} nodes"
            except RenderError as e:
                res = f"{e.stage}: {e.reason[:60]}"
            tr = time.perf_counter() - t
            t = time.perf_counter()
            n = parse(html).n
            tp = time.perf_counter() - t
            print(f"{mb:>5g} MB  render {tr:6.2f} s ({res})  parse {tp:5.2f} s ({n} nodes)",
                  flush=True)
    print(f"load {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
