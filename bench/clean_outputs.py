"""Everything ``webseg clean`` writes for a page, rendered and parsed, to check that a speed-up
changes no output.

    python bench/clean_outputs.py --limit 60 --out /tmp/outputs_new.jsonl
    (in a checkout of the old code: the same with --out /tmp/outputs_old.jsonl)
    python bench/clean_outputs.py --compare /tmp/outputs_old.jsonl /tmp/outputs_new.jsonl

For the first ``--limit`` pages of every ``--data`` set (the harness's selection and hash order,
as ``bench/clean.py``; default: WCXB dev, Dragnet, the five-language news set, CleanEval,
L3S-GN1) that are in the render cache, on the cached rendered page and on the page parsed from
its bytes (``--no-render``): the text, the Markdown with links, the JSON result (metadata,
language, XPaths, roles), and SHA-1 digests of the block model's leaf features and leaf
scores (bit for bit). One JSON line per page. ``--compare`` prints every field that differs
and the count (exit status 1 when any does).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from eval.templates.harness import select_records  # noqa: E402
from webseg.clean import extract  # noqa: E402
from webseg.datasets import DEFAULT_CACHE, KNOWN_ENCODINGS, cache_path, load_records  # noqa: E402
from webseg.decode import decode_html  # noqa: E402
from webseg.page import Page  # noqa: E402
from webseg.parse import parse  # noqa: E402

SETS = ("../shared/data/wcxb-dev", "../shared/data/boilerplate/dragnet",
        "../shared/data/boilerplate/daniel-dev", "../shared/data/boilerplate/cleaneval",
        "../shared/data/boilerplate/l3s-gn1")


def _sha(a: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(a).tobytes()).hexdigest()


def outputs(page: Page, html: str) -> dict[str, Any]:
    """The outputs of one page (or the error it raised)."""
    try:
        res = extract(page, "blocks", html=html)
        lf = res.blocks.leaf_features
        return {"text": res.text, "markdown": res.to_markdown(links=True),
                "json": res.to_json(), "features": _sha(lf.X),
                "scores": _sha(res.blocks.leaf_scores)}
    except Exception as e:  # noqa: BLE001 - an error is an output too
        return {"error": f"{type(e).__name__}: {e}"}


def dump(sets: list[Path], limit: int, cache: Path, out: Path) -> int:
    n = 0
    with out.open("w", encoding="utf-8") as f:
        for d in sets:
            recs, _ = select_records(load_records(d), "test")
            recs = sorted(recs, key=lambda r: hashlib.sha1(r.id.encode()).hexdigest())
            recs = [r for r in recs if cache_path(cache, r).is_file()][:limit]
            for r in recs:
                dec = decode_html(r.read_html(), encoding=KNOWN_ENCODINGS.get(r.dataset))
                page = Page.load(cache_path(cache, r))
                if r.url:
                    page.url = r.url
                row = {"set": r.dataset, "id": r.id, "rendered": outputs(page, dec.text),
                       "parsed": outputs(parse(dec.text, url=r.url, encoding=dec.encoding),
                                         dec.text)}
                f.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
                n += 1
    print(f"{n} pages -> {out}")
    return 0


def compare(old: Path, new: Path) -> int:
    def load(p: Path) -> dict[tuple[str, str], dict[str, Any]]:
        with p.open(encoding="utf-8") as f:
            return {(r["set"], r["id"]): r for r in map(json.loads, f)}

    a, b = load(old), load(new)
    diffs = 0
    for key in sorted(a.keys() | b.keys()):
        if key not in a or key not in b:
            print(f"only in {'new' if key in b else 'old'}: {key}")
            diffs += 1
            continue
        for mode in ("rendered", "parsed"):
            ra, rb = a[key][mode], b[key][mode]
            for field in sorted(ra.keys() | rb.keys()):
                if ra.get(field) != rb.get(field):
                    print(f"differs: {key} {mode} {field}")
                    diffs += 1
    print(f"{len(a.keys() & b.keys())} pages in both, {diffs} differences")
    return 1 if diffs else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/clean_outputs.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, action="append", help="sets (default: five)")
    ap.add_argument("--limit", type=int, default=60, help="pages per set")
    ap.add_argument("--render-cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--out", type=Path, help="write the outputs here (JSON lines)")
    ap.add_argument("--compare", type=Path, nargs=2, metavar=("OLD", "NEW"))
    args = ap.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if not args.out:
        ap.error("give --out FILE (or --compare OLD NEW)")
    return dump(args.data or [Path(s) for s in SETS], args.limit, args.render_cache, args.out)


if __name__ == "__main__":
    sys.exit(main())
