"""CPU time of :func:`webseg.parse.parse` per page on the HTML records of a WARC.

    python bench/parse_speed.py /work/cache/runs/s36/w400.warc.gz --repeat 3

The pages are read and decoded first (as ``webseg pipeline --no-render`` does, untimed); then
every page is parsed ``--repeat`` times over, and the best round's CPU time
(``time.process_time``: this process only, the comparable number on a shared machine) is
printed per page, with the lexbor parse alone (no walk into a Page) beside it. Run it on two
checkouts alternately to compare them.

    python bench/parse_speed.py /work/cache/runs/s36/w400.warc.gz --digest
    python bench/parse_speed.py '../shared/data/boilerplate/daniel-dev/html/*' --digest

``--digest`` also prints a SHA-256 of every page's columns (parent, kind, tag, text, attrs,
visible, the whitespace before nodes, title): equal digests from two checkouts, or from one
with and without ``WEBSEG_PURE_PYTHON=1`` (the compiled walk or the Python one), mean the
same Pages. Instead of a WARC, a glob of HTML files (gzipped or not) can be given.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
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
    ap.add_argument("--digest", action="store_true",
                    help="also print a SHA-256 of all pages' columns (same digest: same Pages)")
    args = ap.parse_args(argv)
    pages = []
    for url, source in _sources(str(args.warc)):
        try:
            dec = decode_html(source)
        except DecodeError:
            continue
        pages.append((url, dec.text, dec.encoding))
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
    if args.digest:
        print(f"digest {_digest(pages)}")
    return 0


def _sources(where: str):
    """(url or file name, bytes) of a WARC's HTML records, or of the files a glob matches."""
    if where.endswith((".warc", ".warc.gz")):
        for rec in iter_inputs([Path(where)]):
            if rec.error is None and isinstance(rec.source, bytes):
                yield rec.url, rec.source
        return
    for name in sorted(glob.glob(where)):
        if Path(name).is_file():
            yield name, Path(name).read_bytes()


def _digest(pages: list[tuple[str | None, str, str | None]]) -> str:
    """SHA-256 over every page's columns, whitespace record and title (repr: types count)."""
    h = hashlib.sha256()
    for url, text, enc in pages:
        try:
            p = parse(text, url=url, encoding=enc)
        except ValueError as e:  # too many nodes: the error is the result
            h.update(repr(("error", str(e))).encode())
            continue
        cols = (p.parent.tolist(), p.kind.tolist(), p.tag, p.text, p.attrs,
                p.visible.tolist(), sorted(p.ws_before.items()), p.title)
        h.update(repr(cols).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


if __name__ == "__main__":
    sys.exit(main())
