"""CPU time of :func:`webseg.parse.parse` per page on the HTML records of a WARC.

    python bench/parse_speed.py /work/cache/runs/s36/w400.warc.gz --repeat 3

The pages are read and decoded first (as ``webseg pipeline --no-render`` does, untimed); then
every page is parsed ``--repeat`` times over, and the best round's CPU time
(``time.process_time``: this process only, the comparable number on a shared machine) is
printed per page, with the lexbor parse alone (no walk into a Page) beside it. Run it on two
checkouts alternately to compare them.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from webseg.decode import DecodeError, decode_html  # noqa: E402
from webseg.inputs import iter_inputs  # noqa: E402
from webseg.parse import parse  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/parse_speed.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("warc", type=Path)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    pages = []
    for rec in iter_inputs([args.warc]):
        if rec.error is not None or not isinstance(rec.source, bytes):
            continue
        try:
            dec = decode_html(rec.source)
        except DecodeError:
            continue
        pages.append((rec.url, dec.text, dec.encoding))
    if not pages:
        print("no decodable HTML records")
        return 1
    from selectolax.lexbor import LexborHTMLParser

    def best(fn) -> float:
        times = []
        for _ in range(max(args.repeat, 1)):
            t0 = time.process_time()
            for url, text, enc in pages:
                fn(url, text, enc)
            times.append(time.process_time() - t0)
        return min(times) / len(pages) * 1000

    lexbor = best(lambda u, t, e: LexborHTMLParser(t.encode("utf-8", "replace")))
    full = best(lambda u, t, e: parse(t, url=u, encoding=e))
    print(f"{len(pages)} pages: parse {full:.2f} CPU ms per page (lexbor alone {lexbor:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
