"""CPU per page of the block model (with its decoder) and of the writers, on parsed pages.

    python bench/clean_writers.py --limit 150

The first ``--limit`` dragnet test pages (id order) of ``../shared/data``, parsed with
:func:`webseg.parse.parse` (parsing not timed): median CPU time of ``extract(page,
"blocks")`` (features, both stages, decoder, structure units) and of ``.text`` +
``.to_markdown()``. Copy it into an older checkout to compare versions in the same conditions.
Asserts nothing: a number to read on a quiet machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from eval.templates.harness import select_records  # noqa: E402
from webseg.clean import extract  # noqa: E402
from webseg.datasets import load_records  # noqa: E402
from webseg.decode import decode_html  # noqa: E402
from webseg.parse import parse  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path,
                    default=ROOT.parent / "shared" / "data" / "boilerplate" / "dragnet")
    ap.add_argument("--limit", type=int, default=150)
    a = ap.parse_args(argv)
    recs, _ = select_records(load_records(a.data), "test")
    recs = sorted(recs, key=lambda r: r.id)[:a.limit]
    html = [decode_html(r.read_html()).text for r in recs]
    if not html:
        print("no pages", file=sys.stderr)
        return 1
    extract(parse(html[0]), "blocks").to_markdown()  # models loaded before timing
    model_ms, write_ms = [], []
    for h in html:
        page = parse(h)
        t0 = time.process_time()
        res = extract(page, "blocks")
        t1 = time.process_time()
        _ = res.text, res.to_markdown()
        t2 = time.process_time()
        model_ms.append((t1 - t0) * 1000)
        write_ms.append((t2 - t1) * 1000)
    print(f"pages {len(html)}: model+decoder median {statistics.median(model_ms):.1f} ms, "
          f"writers (txt+md) median {statistics.median(write_ms):.1f} ms CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
