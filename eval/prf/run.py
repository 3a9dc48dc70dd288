"""Running systems over a collection's topics and tabulating them against a baseline."""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval.prf.collection import Collection
from eval.prf.measures import MEASURES, evaluate, paired_tests

__all__ = ["System", "run_system", "score_systems", "write_tables"]


@dataclass
class System:
    """One row of a table: an index and how to query it."""

    name: str
    index: Any
    prf: str = "none"
    params: dict[str, Any] = field(default_factory=dict)


def run_system(sys_: System, coll: Collection, depth: int = 1000,
               log: Callable[[str], None] = print) -> tuple[dict[str, dict[str, float]], float]:
    """TREC-style run ``{qid: {docid: score}}`` over the judged topics, and seconds/query."""
    from ir import EmptyQueryError

    run: dict[str, dict[str, float]] = {}
    t0 = time.perf_counter()
    topics = coll.judged_topics
    for qid in topics:
        try:
            res = sys_.index.search(coll.topics[qid], k=depth, prf=sys_.prf, snippets=False,
                                    **sys_.params)
        except EmptyQueryError:
            log(f"{sys_.name}: topic {qid}: no index terms, scored 0")
            run[qid] = {}
            continue
        run[qid] = dict(zip(res.ids, res.scores.tolist(), strict=True))
    return run, (time.perf_counter() - t0) / max(1, len(topics))


def score_systems(systems: list[System], coll: Collection, baseline: str, depth: int = 1000,
                  log: Callable[[str], None] = print) -> dict[str, Any]:
    """Evaluate every system; significance of AP (and the rest) against ``baseline``."""
    per: dict[str, dict[str, dict[str, float]]] = {}
    secs: dict[str, float] = {}
    for s in systems:
        run, spq = run_system(s, coll, depth, log)
        per[s.name] = evaluate(run, coll.qrels, coll.judged_topics)
        secs[s.name] = spq
        log(f"  {s.name:28s} MAP {_mean(per[s.name]['AP']):.4f}  ({spq * 1000:.0f} ms/query)")
    rows = []
    for s in systems:
        row: dict[str, Any] = {"system": s.name, "prf": s.prf, "params": s.params,
                               "ms_per_query": round(secs[s.name] * 1000, 1)}
        for m in MEASURES:
            row[m] = _mean(per[s.name][m])
            if s.name != baseline and baseline in per:
                t_p, r_p = paired_tests(per[s.name][m], per[baseline][m])
                row[f"{m}_p_t"], row[f"{m}_p_rand"] = t_p, r_p
        rows.append(row)
    return {"collection": coll.name, "topics": len(coll.judged_topics), "baseline": baseline,
            "rows": rows, "per_topic": per}


def _mean(d: Mapping[str, float]) -> float:
    return sum(d.values()) / len(d) if d else 0.0


def _fmt(row: dict[str, Any], m: str) -> str:
    v = f"{row[m]:.4f}"
    p = row.get(f"{m}_p_t")
    if p is None:
        return v
    mark = "†" if p < 0.05 and row.get(f"{m}_p_rand", 1) < 0.05 else ""
    return f"{v}{mark} ({p:.3f})"


def write_tables(result: dict[str, Any], out: Path, title: str, note: str = "") -> str:
    """Write summary.json, per_topic.csv and summary.md under ``out``; return the markdown."""
    out.mkdir(parents=True, exist_ok=True)
    slim = {k: v for k, v in result.items() if k != "per_topic"}
    (out / "summary.json").write_text(json.dumps(slim, indent=1), encoding="utf-8")
    with (out / "per_topic.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["system", "qid", *MEASURES])
        for name, per in result["per_topic"].items():
            for qid in per["AP"]:
                w.writerow([name, qid, *(f"{per[m][qid]:.4f}" for m in MEASURES)])
    lines = [f"### {title}", "",
             f"{result['topics']} judged topics; p-values (paired t-test on per-topic values) "
             f"against `{result['baseline']}` in brackets; † = p < 0.05 in both the t-test and "
             "the randomisation test.", ""]
    if note:
        lines += [note, ""]
    lines += ["| system | MAP | P@10 | nDCG@10 | R@1000 | ms/query |",
              "|---|---:|---:|---:|---:|---:|"]
    for r in result["rows"]:
        lines.append(f"| {r['system']} | " + " | ".join(_fmt(r, m) for m in MEASURES)
                     + f" | {r['ms_per_query']:.0f} |")
    md = "\n".join(lines) + "\n"
    (out / "summary.md").write_text(md, encoding="utf-8")
    return md
