"""Cost of every-script analysis and language identification.

``python bench/lang.py [--base DIR] [--repeat N]``

All times are CPU times (the machine is shared).

* ``index``: CPU seconds of ``webseg index --format jsonl`` (CLI defaults) on the CACM
  abstracts, this checkout vs ``--base`` (a checkout of the code before every script was
  analysed, e.g. ``git archive <commit> | tar -x -C .cache/base``), ``--repeat`` runs each in
  subprocesses, the two checkouts taking turns: the median CPU seconds of each (``_best``:
  the least), and ``index_slowdown``, the median of the run-by-run ratios; the indexing cost
  now includes one language identification per document. Python compiles the project's
  modules in every run when ``PYTHONDONTWRITEBYTECODE`` is set (no ``__pycache__``), which
  costs both checkouts more than an installed package does: ``--bytecode`` measures with
  compiled modules (``--index-only``: this measure alone);
* ``analyzer``: tokens per second of :class:`ir.Analyzer` on the daniel-dev gold texts (every
  script) and on CACM (English, the ASCII path);
* ``identify``: ms per page of :func:`webseg.lang.identify` on the daniel-dev gold texts,
  and per text of ``identify`` and of :func:`webseg.lang.identify_many` (all at once, as
  ``webseg index --input-format jsonl`` identifies a collection) on the CACM abstracts;
* ``add``: CPU seconds of ``Index.add`` of the CACM collection in this process (no start-up),
  warm (best of ``--repeat``), with and without identification and the surface field, to
  show where the time goes.

The base used in docs/languages.md: ``git archive 3759eb4 | tar -x -C .cache/base`` (the
commit before every script was analysed).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CACM = ROOT / ".." / "shared" / "data" / "ir" / "cacm" / "docs.jsonl"
DANIEL = ROOT / ".." / "shared" / "data" / "boilerplate" / "daniel-dev"


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def index_run(tree: Path, docs: Path, bytecode: bool = False) -> float:
    """CPU seconds (user + system) of one index run in a subprocess: CPU time, not wall time,
    because the machine is shared and wall time measures the neighbours. ``--format``, the
    option's old name, because the older checkout knows only that one."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    if bytecode:  # as an installed package runs: modules read from __pycache__
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = _children_cpu()
        subprocess.run([sys.executable, "-c", "from webseg.cli import main; main()",
                        "index", str(docs), "--format", "jsonl", "-o", f"{tmp}/idx"],
                       cwd=tree, env=env, check=True, capture_output=True)
        return _children_cpu() - t0


def index_times(trees: list[Path], docs: Path, repeat: int,
                bytecode: bool = False) -> list[list[float]]:
    """``repeat`` CPU times per tree, the trees interleaved run by run, so that a busy
    minute on the shared machine slows both sides rather than one. ``bytecode``: one run
    each first, unmeasured, writes the trees' ``__pycache__``."""
    got: list[list[float]] = [[] for _ in trees]
    if bytecode:
        for tree in trees:
            index_run(tree, docs, bytecode)
    for _ in range(repeat):
        for i, tree in enumerate(trees):
            got[i].append(index_run(tree, docs, bytecode))
    return got


def add_times(repeat: int) -> dict[str, float]:
    """Least CPU seconds of ``Index.add`` of CACM (the CLI's text-collection settings), with
    identification and the surface field switched off one at a time (identification off:
    every document gets "unknown", for the measurement only)."""
    from ir import Analyzer, Index
    from ir.cli import _jsonl_docs
    from ir.index import TEXT_B, TEXT_K1, TEXT_SURFACE
    from webseg import lang

    real = lang.identify_many
    got: dict[str, float] = {}
    try:
        for _ in range(repeat + 1):  # the first round warms memos and the model up
            for surface in (True, False):
                for ident in (True, False):
                    lang.identify_many = real if ident else (  # type: ignore[assignment]
                        lambda texts, hints=None: [lang.UNKNOWN] * len(texts))
                    with tempfile.TemporaryDirectory() as tmp:
                        ix = Index.create(f"{tmp}/idx", analyzer=Analyzer(), k1=TEXT_K1,
                                          b=TEXT_B, surface=TEXT_SURFACE if surface else 0.0,
                                          fields=None)
                        t0 = time.process_time()
                        ix.add(_jsonl_docs(str(CACM), ix.analyzer, surface=surface))
                        dt = time.process_time() - t0
                    key = (f"add_cacm_cpu_s{'' if surface else '_no_surface'}"
                           f"{'' if ident else '_no_identify'}")
                    got[key] = round(min(got.get(key, float("inf")), dt), 3)
    finally:
        lang.identify_many = real
    return got


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=Path, default=ROOT / ".cache" / "base")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--bytecode", action="store_true",
                    help="index runs with compiled modules (__pycache__ written in both trees), "
                         "as an installed package runs, even where PYTHONDONTWRITEBYTECODE is set")
    ap.add_argument("--index-only", action="store_true",
                    help="only the index command's CPU, this checkout against --base")
    args = ap.parse_args(argv)
    from ir import Analyzer
    from webseg.lang import identify, identify_many

    out: dict[str, float] = {}
    if CACM.is_file():
        trees = [ROOT] + ([args.base] if (args.base / "webseg").is_dir() else [])
        runs = index_times(trees, CACM, args.repeat, args.bytecode)
        out["index_cacm_cpu_s"] = round(statistics.median(runs[0]), 3)
        out["index_cacm_cpu_s_best"] = round(min(runs[0]), 3)
        if len(runs) > 1:
            out["index_cacm_base_cpu_s"] = round(statistics.median(runs[1]), 3)
            out["index_cacm_base_cpu_s_best"] = round(min(runs[1]), 3)
            # the ratio of each interleaved pair, then their median: robust to a busy minute
            out["index_slowdown"] = round(statistics.median(
                a / b for a, b in zip(runs[0], runs[1], strict=True)), 3)
        if args.index_only:
            print(json.dumps(out, indent=1))
            return 0
        recs = [json.loads(x) for x in CACM.open(encoding="utf-8")]
        texts = [r.get("text", "") for r in recs]
        an = Analyzer()
        t0 = time.process_time()
        n = sum(len(an.tokens(t)) for t in texts)
        out["analyzer_cacm_ktok_s"] = round(n / (time.process_time() - t0) / 1000, 1)
        samples = [r.get("text") or r.get("title") or "" for r in recs]
        identify_many(samples[:100])
        t0 = time.process_time()
        for t in samples:
            identify(t)
        out["identify_cacm_ms_per_text"] = round(1000 * (time.process_time() - t0)
                                                  / len(samples), 3)
        t0 = time.process_time()
        identify_many(samples)
        out["identify_many_cacm_ms_per_text"] = round(1000 * (time.process_time() - t0)
                                                       / len(samples), 3)
        out.update(add_times(args.repeat))
    if (DANIEL / "manifest.jsonl").is_file():
        rows = [json.loads(x) for x in (DANIEL / "manifest.jsonl").open(encoding="utf-8")]
        gold = [(DANIEL / r["gold"]).read_text(encoding="utf-8") for r in rows if r["gold"]]
        an = Analyzer()
        an.tokens(gold[0])
        t0 = time.process_time()
        n = sum(len(an.tokens(t)) for t in gold)
        out["analyzer_daniel_ktok_s"] = round(n / (time.process_time() - t0) / 1000, 1)
        identify(gold[0])
        t0 = time.process_time()
        for t in gold:
            identify(t)
        out["identify_ms_per_page"] = round(1000 * (time.process_time() - t0) / len(gold), 3)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
