"""Whether this checkout builds the same text-collection index as another checkout.

``python bench/index_same.py --ref DIR [--data FILE.jsonl ...]``

Speed work on analysis and indexing must not change what an index holds. For every collection
(default: the CACM, Cranfield and MED abstracts and the DAnIEL dev gold texts, written to
``.cache/index_same/daniel-gold.jsonl`` as ``eval.multilingual.search`` writes them), both
checkouts run ``webseg index FILE --input-format jsonl`` (CLI defaults) in a subprocess, and
the stored contents are compared: the manifest's settings (without the shards' checksums,
which follow the compression) and every line of every shard file, decompressed (documents:
id, terms, fields, surface terms, language, title; blocks: windows with their text and
terms). Prints one line per collection and exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / ".." / "shared" / "data"


def daniel_gold(out: Path) -> Path | None:
    """The DAnIEL dev gold texts as a text collection (id, title "", text)."""
    d = DATA / "boilerplate" / "daniel-dev"
    if not (d / "manifest.jsonl").is_file():
        return None
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as f:
        for line in (d / "manifest.jsonl").open(encoding="utf-8"):
            r = json.loads(line)
            if r.get("gold"):
                text = (d / r["gold"]).read_text(encoding="utf-8")
                f.write(json.dumps({"id": r["id"], "title": "", "text": text},
                                   ensure_ascii=False) + "\n")
    return out


def build(tree: Path, docs: Path, out: Path) -> None:
    subprocess.run([sys.executable, "-c", "from webseg.cli import main; main()", "index",
                    str(docs), "--input-format", "jsonl", "-o", str(out), "-q"],
                   cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)}, check=True,
                   capture_output=True)


def contents(idx: Path) -> dict[str, list[str]]:
    """Manifest (checksums left out) and the decompressed lines of every shard file."""
    man = json.loads((idx / "index.json").read_text(encoding="utf-8"))
    for sh in man.get("shards", []):
        sh.pop("sha256", None)
    got = {"index.json": [json.dumps(man, sort_keys=True)]}
    for f in sorted(idx.glob("*.jsonl.gz")):
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            got[f.name] = fh.read().splitlines()
    return got


def _flat(d: Any, at: str = "") -> dict[str, Any]:
    if not isinstance(d, dict):
        return {at: d}
    out: dict[str, Any] = {}
    for k, v in d.items():
        out.update(_flat(v, f"{at}.{k}" if at else str(k)))
    return out


def compare(a: dict[str, list[str]], b: dict[str, list[str]]) -> list[str]:
    diffs = [f"file only in one index: {n}" for n in sorted(set(a) ^ set(b))]
    ma, mb = (_flat(json.loads(x["index.json"][0])) for x in (a, b))
    diffs += [f"index.json {k}: {mb.get(k, '(none)')} -> {ma.get(k, '(none)')}"
              for k in sorted(set(ma) | set(mb)) if ma.get(k) != mb.get(k)]
    for name in sorted((set(a) & set(b)) - {"index.json"}):
        x, y = a[name], b[name]
        if len(x) != len(y):
            diffs.append(f"{name}: {len(x)} vs {len(y)} lines")
        bad = [i for i, (p, q) in enumerate(zip(x, y, strict=False)) if p != q]
        if bad:
            diffs.append(f"{name}: {len(bad)} lines differ (first: line {bad[0] + 1})")
    return diffs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ref", type=Path, required=True,
                    help="the other checkout (e.g. git archive <commit> | tar -x -C DIR)")
    ap.add_argument("--data", type=Path, nargs="*", default=None)
    args = ap.parse_args(argv)
    data = args.data
    if data is None:
        data = [DATA / "ir" / c / "docs.jsonl" for c in ("cacm", "cranfield", "med")]
        gold = daniel_gold(ROOT / ".cache" / "index_same" / "daniel-gold.jsonl")
        data += [gold] if gold else []
    failed = 0
    for docs in (d.resolve() for d in data):
        if not docs.is_file():
            print(f"{docs}: missing, skipped")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            build(ROOT, docs, Path(tmp) / "new")
            build(args.ref.resolve(), docs, Path(tmp) / "ref")
            new, ref = contents(Path(tmp) / "new"), contents(Path(tmp) / "ref")
        diffs = compare(new, ref)
        lines = sum(len(v) for v in new.values())
        print(f"{docs.name if docs.parent.name == 'index_same' else docs.parent.name}: "
              f"{'same' if not diffs else 'DIFFERENT'} ({lines} lines compared)")
        for d in diffs:
            print("   ", d)
        failed += bool(diffs)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
