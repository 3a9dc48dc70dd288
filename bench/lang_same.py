"""A digest of language identification over every page of the boilerplate collections, to
check that a change to the detector's code changes no answer and no probability.

    PYTHONPATH=. python bench/lang_same.py [--data ../shared/data/boilerplate]
    (run it on two checkouts, or with and without ``WEBSEG_PURE_PYTHON=1``: the digests
    must be equal)

For every page (its gold text, and its HTML source as text, which holds every script the
collection's pages are written in, markup and broken bytes included) it runs
:func:`webseg.lang.identify` with the languages the page declares, and the detector's merged
probabilities (``webseg.lang._probs``) of the first 500, 100 and 20 characters, and hashes the
answers and the probabilities' exact bytes. Prints the number of texts, the CPU and the SHA-1.
Nothing asserts.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def texts(data: Path):  # type: ignore[no-untyped-def]
    """(name, gold, html) of every page: the gold text (else "") and the HTML source."""
    for coll in sorted(p for p in data.iterdir() if p.is_dir()):
        html_dir = coll / "html"
        if not html_dir.is_dir():
            continue
        for html in sorted(html_dir.iterdir()):
            raw = html.read_bytes()
            if html.name.endswith(".gz"):
                raw = gzip.decompress(raw)
            src = raw.decode("utf-8", "replace")
            stem = html.name.split(".")[0]
            gold = ""
            for g in sorted((coll / "gold").glob(stem + ".*")):
                gold = g.read_bytes().decode("utf-8", "replace")
                break
            yield f"{coll.name}/{html.name}", gold, src


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=ROOT / ".." / "shared" / "data" / "boilerplate")
    a = ap.parse_args(argv)
    from webseg.lang import _probs, declared_languages, identify

    h = hashlib.sha1()
    n = 0
    t0 = time.process_time()
    for name, gold, src in texts(a.data):
        hints = declared_languages(src)
        for text in (gold, src):
            lang = identify(text, hints)
            h.update(repr((name, lang.code, lang.source, float(lang.confidence).hex())).encode())
            for k in (500, 100, 20):
                if text[:k].strip():
                    codes, probs = _probs(text[:k])
                    h.update(repr(codes).encode() + probs.tobytes())
            n += 1
    print(f"{n} texts, CPU {time.process_time() - t0:.1f} s; digest {h.hexdigest()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
