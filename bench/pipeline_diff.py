"""Compare two `webseg pipeline` output folders record by record: did a change alter outputs?

::

    webseg pipeline crawl.warc.gz -o before/     # in one checkout
    webseg pipeline crawl.warc.gz -o after/      # in the other, same WARC
    python bench/pipeline_diff.py before/ after/

Compared: every line of ``pages.jsonl`` (``timings`` aside: they are measurements), every row
of every index shard (decompressed and parsed, so the gzip bytes do not matter),
``index/index.json`` (its shard checksums aside: they hash the gzip bytes) and every file of the
duplicate report. Paths that differ only because the runs were given the WARC by another path
are made equal with ``--same PATH_A PATH_B`` (repeatable). Prints each difference (record id
and the fields that differ) and the total; exits 1 when there is any.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path
from typing import Any

#: Fields of a pages.jsonl line that are measurements, not outputs.
VOLATILE = ("timings",)


def _rows(path: Path, subst: list[tuple[str, str]]) -> list[Any]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(_norm(line, subst)) for line in f if line.strip()]


def _norm(text: str, subst: list[tuple[str, str]]) -> str:
    for a, b in subst:
        text = text.replace(a, b)
    return text


def compare(a: Path, b: Path, subst: list[tuple[str, str]], show: int = 20) -> int:
    """Number of differences between the output folders ``a`` and ``b`` (printed)."""
    diffs = 0

    def report(msg: str) -> None:
        nonlocal diffs
        diffs += 1
        if diffs <= show:
            print(msg)

    pa, pb = _rows(a / "pages.jsonl", subst), _rows(b / "pages.jsonl", subst)
    if len(pa) != len(pb):
        report(f"pages.jsonl: {len(pa)} lines vs {len(pb)}")
    for x, y in zip(pa, pb, strict=False):
        kx = {k: v for k, v in x.items() if k not in VOLATILE}
        ky = {k: v for k, v in y.items() if k not in VOLATILE}
        if kx != ky:
            keys = sorted(k for k in set(kx) | set(ky) if kx.get(k) != ky.get(k))
            report(f"pages.jsonl {x.get('id')}: {', '.join(keys)}")
    print(f"pages.jsonl: {len(pa)} lines compared")
    for f in sorted((a / "index").glob("*.jsonl.gz")):
        g = b / "index" / f.name
        if not g.exists():
            report(f"index/{f.name}: missing in {b}")
            continue
        ra, rb = _rows(f, subst), _rows(g, subst)
        bad = sum(x != y for x, y in zip(ra, rb, strict=False)) + abs(len(ra) - len(rb))
        for _ in range(bad):
            report(f"index/{f.name}: a row differs")
        print(f"index/{f.name}: {len(ra)} rows compared")
    if (a / "index" / "index.json").exists():
        ia, ib = (json.loads(_norm((d / "index" / "index.json").read_text(), subst))
                  for d in (a, b))
        for d in (ia, ib):
            for shard in d.get("shards", []):
                shard.pop("sha256", None)
        if ia != ib:
            report("index/index.json differs (checksums aside)")
    if (a / "dedup").is_dir():
        for f in sorted(p for p in (a / "dedup").rglob("*") if p.is_file()):
            g = b / "dedup" / f.relative_to(a / "dedup")
            if not g.exists() or _norm(f.read_text(errors="replace"), subst) != \
                    _norm(g.read_text(errors="replace"), subst):
                report(f"dedup/{f.relative_to(a / 'dedup')} differs")
    print(f"differences: {diffs}")
    return diffs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("--same", nargs=2, action="append", default=[], metavar=("PATH_A", "PATH_B"),
                    help="Text to treat as equal (e.g. the WARC's path in each run).")
    ap.add_argument("--show", type=int, default=20, help="Differences printed at most.")
    args = ap.parse_args(argv)
    subst = [(x, y) for x, y in args.same]
    return 1 if compare(args.a, args.b, subst, args.show) else 0


if __name__ == "__main__":
    sys.exit(main())
