"""Build and render the web versions once (Page JSON cached under ``<work>/web/<tag>/rendered``).

``python -m eval.prf.render_web --collections med:3,cranfield:3,cacm:3,med:1`` builds every
web version that is missing (:mod:`eval.prf.build_web_collection`, seed 0, Dragnet test
templates) and renders every page not yet cached, so that every later step (indexing with any
field layout or block source) reuses the rendered pages instead of rendering again.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

__all__ = ["render_web", "main"]


def render_web(web: Path, concurrency: int = 2, log=print) -> int:
    """Render the pages of a built web version that are not cached yet; returns how many."""
    import json

    from webseg.render import Renderer

    pages = [json.loads(line) for line in (web / "pages.jsonl").open(encoding="utf-8")]
    rendered = web / "rendered"
    rendered.mkdir(exist_ok=True)
    need = [p for p in pages if not (rendered / f"{p['id']}.page.json.gz").exists()]
    log(f"{web.name}: {len(pages) - len(need)} cached, {len(need)} to render")
    t0 = time.time()
    with Renderer(timeout=30.0) as r:
        for n, (p, res) in enumerate(zip(need, r.render_many(
                (web / p["html"] for p in need), concurrency=concurrency), strict=True), 1):
            if res.page is not None:
                res.page.save(rendered / f"{p['id']}.page.json.gz")
            if n % 50 == 0:
                log(f"  {n}/{len(need)} ({n / (time.time() - t0):.2f} pages/s)")
    return len(need)


def main(argv: list[str] | None = None) -> int:
    from eval.prf.build_web_collection import build

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collections", default="med:3,cranfield:3,cacm:3,med:1")
    ap.add_argument("--data", default="../shared/data/ir")
    ap.add_argument("--templates", default="../shared/data/boilerplate/dragnet")
    ap.add_argument("--work", default=".cache/webseg/prf")
    ap.add_argument("--concurrency", type=int, default=2)
    a = ap.parse_args(argv)
    for spec in a.collections.split(","):
        name, k = spec.split(":")
        web = Path(a.work) / "web" / f"{name}-k{k}-s0"
        if not (web / "pages.jsonl").exists():
            build(str(Path(a.data) / name), [a.templates], str(web), int(k), 0, log=print)
        render_web(web, a.concurrency, log=lambda m: print(m, flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
