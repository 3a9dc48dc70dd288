"""CPU seconds of each part of one ``webseg pipeline`` run that is not a page stage.

::

    python bench/pipeline_run_parts.py WARC [--render] [--runs 3] [--other-checkout DIR]
    python bench/pipeline_run_parts.py --model-loads [--runs 5] [--other-checkout DIR]
    python bench/pipeline_run_parts.py WARC --read [--runs 5] [--other-checkout DIR]

Runs the pipeline (parsed unless ``--render``) on ``WARC`` in a child process, with timers
around the parts of :func:`webseg.pipeline.run.run_pipeline`: reading the input records and
parsing them (``read+parse``), the page stages with the models' loading on the first page
(``record_line``), encoding and appending the journal lines, feeding the index builder, and
the collection stage (``finalize``: duplicate clusters, index shards, final lines); the
imports before the run are ``imports``. CPU is the child's ``time.process_time`` (no wall
time: the machine may be shared). With ``--other-checkout``, runs alternate between this
checkout and the other one (say, main) and the medians of both are printed side by side.
The children use a bytecode cache of their own (as an installed copy does), filled before
the first timing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, sys, time
T = time.process_time
t_start = T()
import webseg.pipeline.collect as co
import webseg.pipeline.journal as jn
import webseg.pipeline.run as run
import ir.from_output as fo
from webseg.cli import main
acc = {"imports": T() - t_start}

def add(key, dt):
    acc[key] = acc.get(key, 0.0) + dt

def timed(owner, name, key):
    f = getattr(owner, name)
    def w(*a, **k):
        t = T()
        try:
            return f(*a, **k)
        finally:
            add(key, T() - t)
    setattr(owner, name, w)

def timed_gen(owner, name, key):
    f = getattr(owner, name)
    def w(*a, **k):
        it = f(*a, **k)
        while True:
            t = T()
            try:
                x = next(it)
            except StopIteration:
                add(key, T() - t)
                return
            add(key, T() - t)
            yield x
    setattr(owner, name, w)

timed_gen(run, "_page_inputs", "read+parse")
timed(run, "record_line", "record_line")
for name in ("journal_line", "journal_line_parts"):
    if hasattr(run, name):
        timed(run, name, "journal encode")
timed(jn.Journal, "append", "journal append")
timed(fo.IndexBuilder, "add", "index builder add")
timed(co.JournalScan, "add", "scan add")
timed(run, "finalize", "finalize")
try:
    main(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
acc["total"] = T()
print(json.dumps(acc))
"""


#: ``--model-loads``: the models a parsed run loads, timed one by one in a fresh process (the
#: page-type model's word-pair tables are built on its first page: ``first rows``)
LOADS = r"""
import json, time
T = time.process_time
import classify.model as cm, webseg.blocks.model as bm, numpy  # noqa: F401
t = T(); m = cm.load_model(); t1 = T()
bm.load_model(); t2 = T()
for v in m.model.base:
    if getattr(v.rep, "vocab", None) is not None:
        v.rep.rows(["word " * 100])
t3 = T()
print(json.dumps({"page-type model": t1 - t, "block model": t2 - t1, "first rows": t3 - t2,
                  "total": t3 - t}))
"""


#: ``--read``: the WARC's records read (``iter_inputs``), then read and parsed
READ = r"""
import json, sys, time
T = time.process_time
from webseg.inputs import iter_inputs, parse_inputs_html
t = T(); n = sum(1 for _ in iter_inputs([sys.argv[1]])); t1 = T()
m = sum(1 for _ in parse_inputs_html(iter_inputs([sys.argv[1]]), 200000)); t2 = T()
print(json.dumps({"read": t1 - t, "read+parse": t2 - t1}))
"""


def run_loads(checkout: Path, env: dict[str, str], code: str = LOADS,
              args: tuple[str, ...] = ()) -> dict[str, float]:
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=checkout,
                          env={**env, "PYTHONPATH": str(checkout)}, capture_output=True,
                          text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{checkout}: loading failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_once(checkout: Path, warc: Path, render: bool, env: dict[str, str]) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="run-parts-") as tmp:
        args = [sys.executable, "-c", CHILD, "pipeline", str(warc), "-o", str(Path(tmp) / "out"),
                "-q", *([] if render else ["--no-render"])]
        proc = subprocess.run(args, cwd=checkout, env={**env, "PYTHONPATH": str(checkout)},
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0 or not proc.stdout.strip():
            raise SystemExit(f"{checkout}: the run failed:\n{proc.stderr[-3000:]}")
        return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("warc", type=Path, nargs="?")
    ap.add_argument("--model-loads", action="store_true",
                    help="time the models' loading only (no run, no WARC)")
    ap.add_argument("--read", action="store_true",
                    help="time reading the WARC's records, then reading and parsing them")
    ap.add_argument("--render", action="store_true")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--other-checkout", type=Path, default=None)
    a = ap.parse_args()
    if a.warc is None and not a.model_loads:
        ap.error("give a WARC (or --model-loads)")
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(ROOT / ".cache" / "run-parts-pycache")
    checkouts = [ROOT] + ([a.other_checkout.resolve()] if a.other_checkout else [])
    for c in checkouts:  # fill the bytecode cache before any timing
        subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0",
                        *(str(c / p) for p in ("webseg", "ir", "dedup", "classify"))],
                       check=True, env=env)
    results: dict[Path, list[dict[str, float]]] = {c: [] for c in checkouts}
    for _ in range(a.runs):
        for c in reversed(checkouts):  # the other checkout first, then this one
            if a.model_loads:
                results[c].append(run_loads(c, env))
            elif a.read:
                results[c].append(run_loads(c, env, READ, (str(a.warc.resolve()),)))
            else:
                results[c].append(run_once(c, a.warc.resolve(), a.render, env))
    keys = list(dict.fromkeys(k for rs in results.values() for r in rs for k in r))
    print(f"CPU s, median of {a.runs} runs" + (" (alternating)" if len(checkouts) > 1 else ""))
    print(f"{'part':22s}" + "".join(f"{c.name:>18s}" for c in checkouts))
    for k in keys:
        row = [statistics.median(r.get(k, 0.0) for r in results[c]) for c in checkouts]
        print(f"{k:22s}" + "".join(f"{v:18.3f}" for v in row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
