"""The collection stage's CPU, the old way against the page phase feeding it, on a journal.

::

    webseg pipeline --no-render crawl.warc.gz -o OUT -q
    python bench/collection_fed.py OUT [--rounds 3]

A finished run's journal lines are replayed as a fresh run's page phase would append them, and
the collection work is timed (``time.process_time()``, CPU seconds) two ways, alternately:

* ``old``: the page phase only notes each line; the write pass parses every whole line back
  (index entry included) and feeds the index builder from it;
* ``new`` (what ``webseg pipeline`` does): the page phase notes where each line's public
  fields end and gives the index builder the entry it holds; the write pass parses only the
  public fields.

The timed part is the scan notes, the builder's adds and :func:`webseg.pipeline.run.finalize`
(writing the journal is not timed: both ways write the same bytes). Both output folders
(``OUT.collection-old``, ``OUT.collection-new``) can be compared with
``bench/pipeline_diff.py``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # before bench/ itself: bench/ir.py is no package


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="a finished `webseg pipeline` output folder")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)

    from webseg.fastjson import loads
    from webseg.pipeline.collect import JournalScan, journal_line
    from webseg.pipeline.journal import Journal
    from webseg.pipeline.process import PipelineConfig
    from webseg.pipeline.run import (
        INTERNAL_FIELDS,
        duplicate_index,
        finalize,
        index_builder,
        page_phase_gc,
    )

    work = args.out / "work"
    cfg = PipelineConfig(**{k: (tuple(v) if k == "stages" else v) for k, v in
                            json.loads((work / "config.json").read_text()).items()})
    raw = (work / "pages.jsonl").read_bytes().splitlines()
    order = [str(loads(line)["id"]) for line in raw]
    for rnd in range(args.rounds):
        for mode in ("old", "new"):
            out = args.out.with_name(f"{args.out.name}.collection-{mode}")
            shutil.rmtree(out, ignore_errors=True)
            (out / "work").mkdir(parents=True)
            (out / "work" / "config.json").write_text(json.dumps(cfg.to_dict()))
            recs = [loads(line) for line in raw]  # the objects the page phase holds
            spent = 0.0
            with page_phase_gc():
                scan = JournalScan(dedup=duplicate_index(cfg))
                c0 = time.process_time()
                builder = index_builder(out, cfg) if mode == "new" else None
                spent += time.process_time() - c0
                with Journal.open(out / "work" / "pages.jsonl") as j:
                    for r in recs:
                        data, head = journal_line(r, INTERNAL_FIELDS)
                        pos = j.append(r, data)
                        c0 = time.process_time()
                        if builder is not None:
                            scan.add(r, pos, head)
                            if r.get("index_doc"):
                                builder.add(r["index_doc"])
                        else:
                            scan.add(r, pos)
                        spent += time.process_time() - c0
                c0 = time.process_time()
                finalize(order, out, cfg, scan, builder)
                spent += time.process_time() - c0
            print(json.dumps({"round": rnd, "mode": mode, "pages": len(order),
                              "cpu_s": round(spent, 3),
                              "ms_per_page": round(1000 * spent / max(1, len(order)), 2)}),
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
