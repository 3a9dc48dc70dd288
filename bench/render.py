"""Benchmark of :class:`webseg.render.Renderer` on a data set of saved pages.

Usage::

    python bench/render.py --data ../shared/data/segmentation/kreuzer-random \
        [--concurrency 3] [--limit N] [--repeat 1] [--json out.json] \
        [--sweep-concurrency 1,2,3,4] [--chromium-arg=--flag ...]

What is measured, and why:

* **pages/s end-to-end**: wall clock of ``Renderer.render_many(paths, concurrency)`` over the
  whole set (after a warm-up that starts the browser and opens the pooled tabs), pages / seconds.
  This is what a user of the renderer gets: file read + decode, navigation, load, walk, JSON
  transfer and the Python ``Page`` build, with ``concurrency`` pages in flight.
* **per-stage time per page** (median and p95 over pages) from ``RenderResult.timings``:
  ``browser`` = navigation until the ``load`` event (plus ``settle_ms``), ``walk`` = the in-page
  DOM walk including the JSON transfer to Python, ``model`` = the Python ``Page`` build. These
  are latencies under concurrency: with more pages in flight than cores they include waiting for
  a CPU, so they add up to more than 1 / (pages/s) x concurrency suggests.
* **model build per 1,000 nodes**: ``timings["model"] / (n / 1000)`` under load, and a *clean*
  number: the raw walk strings of the same pages are captured in a separate untimed pass and
  ``webseg.render.page_from_walk`` is timed on them in a loop with the browser idle. The clean
  number is the cost of the Python code itself; the under-load number also shows CPU contention.
* **peak memory of the whole process tree**: this Python process, Playwright's node driver and
  every Chromium process, sampled every ~50 ms in a thread (RSS from ``/proc/<pid>/statm``).
  The peak of the *sum* of RSS over-counts, because pages shared between processes (Chromium's
  binary and shared memory, zygote-forked renderers) are counted once per process. PSS from
  ``/proc/<pid>/smaps_rollup`` splits each shared page between its users, so its sum does not
  double-count; it is reported when readable (sampled every ~1 s: reading it walks the
  page tables and costs CPU itself).
* **CPU seconds per page by process type** (python, node driver, chromium browser, renderer,
  gpu, utility ...) from ``/proc/<pid>/stat`` utime+stime, read every ~500 ms: shows where the
  CPU goes. A process that exits between two reads loses at most that much of its CPU time.
  Their sum is the number to compare between variants on a shared machine: wall clock moves
  with whatever else runs, CPU per page much less. ``cores / CPU s per page`` is the ceiling of
  pages/s on otherwise idle cores (printed). The sampler itself costs ~4 % of one core.
* number of pages rendered, failures (with their stage and reason).

``--sweep-concurrency 1,2,3,4`` renders the set once per concurrency with the same browser and
prints pages/s for each. ``--chromium-arg`` passes extra Chromium flags (repeatable) so flag
experiments are measured the same way.

Targets, printed next to the numbers: >= 8 pages/s, model build <= 20 ms per 1,000 nodes,
peak RSS of the tree <= 1.5 GB.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if importlib.util.find_spec("webseg") is None:  # not installed: use this checkout
    sys.path.insert(0, str(ROOT))

import webseg.render as wr  # noqa: E402
from webseg.render import Renderer, RenderResult  # noqa: E402

TARGET_PAGES_PER_S = 8.0
TARGET_MODEL_MS_PER_1K = 20.0
TARGET_PEAK_RSS_MB = 1536.0
CLK_TCK = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------- process tree sampling
def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def _stat(pid: int) -> tuple[int, int] | None:
    """(ppid, utime+stime ticks) of a process, or None if it is gone."""
    s = _read(f"/proc/{pid}/stat")
    if s is None:
        return None
    fields = s[s.rfind(")") + 2:].split()  # the comm field may contain spaces and parens
    return int(fields[1]), int(fields[11]) + int(fields[12])


def _kb(text: str | None, key: str) -> int:
    if not text:
        return 0
    for line in text.splitlines():
        if line.startswith(key):
            return int(line.split()[1])
    return 0


def process_kind(pid: int, me: int) -> str:
    """Short name of a process of the tree: python, node, chromium:<type>."""
    if pid == me:
        return "python"
    raw = _read(f"/proc/{pid}/cmdline") or ""
    argv = raw.replace("\0", " ").split()  # Chromium rewrites its title: argv joined by " "
    exe = os.path.basename(argv[0]) if argv else ""
    if "node" in exe:
        return "node"
    if "chrom" in exe or any(a.startswith("--type=") for a in argv):
        kind = "browser"
        for a in argv:
            if a.startswith("--type="):
                kind = a[7:]
            if a.startswith("--utility-sub-type="):
                kind = "utility:" + a.split("=", 1)[1].split(".")[-1]
        if kind == "zygote" and "--no-zygote-sandbox" in argv:
            kind = "zygote"
        return "chromium:" + kind
    return exe or "?"


def descendants(root: int) -> list[int]:
    """``root`` and all its descendant pids (one scan of /proc)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        st = _stat(int(name))
        if st is not None:
            children.setdefault(st[0], []).append(int(name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, ()))
    return out


class TreeSampler(threading.Thread):
    """Samples the memory and CPU of this process and all its descendants.

    RSS (``/proc/<pid>/statm``, cheap) of the known processes every ``interval`` seconds; every
    ``rescan_every`` samples the process tree is re-read from /proc and CPU ticks are taken, and
    every ``pss_every`` rescans PSS is summed (``smaps_rollup`` walks the page tables of
    Chromium's huge address spaces: ~25 ms of CPU per pass). Reading all of that every 50 ms
    would cost ~20 % of a core, which on a 2-core machine distorts the benchmark.
    """

    def __init__(self, interval: float = 0.05, rescan_every: int = 10, pss_every: int = 2
                 ) -> None:
        super().__init__(name="tree-sampler", daemon=True)
        self.interval = interval
        self.rescan_every = rescan_every
        self.pss_every = pss_every
        self.rescans = 0
        self.me = os.getpid()
        self.page_kb = os.sysconf("SC_PAGE_SIZE") // 1024
        self._halt = threading.Event()
        self.pids: list[int] = []
        self.peak_rss_kb = 0
        self.peak_rss_by_kind: dict[str, int] = {}
        self.peak_rss_nproc = 0
        self.peak_pss_kb = 0
        self.pss_readable = True
        self.samples = 0
        self.kinds: dict[int, str] = {}
        self.browsers: set[str] = set()  # executables of the main browser processes
        self.ticks0: dict[int, int] = {}
        self.ticks: dict[int, int] = {}

    def _rescan(self) -> None:
        self.pids = descendants(self.me)
        first = not self.ticks0
        for pid in self.pids:
            st = _stat(pid)
            if st is None:
                continue
            if pid not in self.kinds:
                self.kinds[pid] = process_kind(pid, self.me)
                if self.kinds[pid] == "chromium:browser":
                    argv = (_read(f"/proc/{pid}/cmdline") or "").replace("\0", " ").split()
                    self.browsers.add(argv[0] if argv else "?")
            self.ticks0.setdefault(pid, st[1] if first else 0)  # born later: count it all
            self.ticks[pid] = st[1]
        self.rescans += 1
        if self.pss_readable and (self.rescans - 1) % self.pss_every == 0:
            pss = 0
            for pid in self.pids:
                text = _read(f"/proc/{pid}/smaps_rollup")
                if text is None:
                    if pid == self.me:
                        self.pss_readable = False
                    continue
                pss += _kb(text, "Pss:")
            self.peak_pss_kb = max(self.peak_pss_kb, pss)

    def _sample(self) -> None:
        if self.samples % self.rescan_every == 0:
            self._rescan()
        self.samples += 1
        total = 0
        by_kind: dict[str, int] = {}
        for pid in self.pids:
            statm = _read(f"/proc/{pid}/statm")
            if not statm:
                continue
            rss = int(statm.split()[1]) * self.page_kb
            total += rss
            kind = self.kinds.get(pid, "?")
            by_kind[kind] = by_kind.get(kind, 0) + rss
        if total > self.peak_rss_kb:
            self.peak_rss_kb, self.peak_rss_by_kind = total, by_kind
            self.peak_rss_nproc = len(self.pids)

    def run(self) -> None:
        while not self._halt.is_set():
            t = time.perf_counter()
            self._sample()
            self._halt.wait(max(0.0, self.interval - (time.perf_counter() - t)))

    def stop(self) -> None:
        self._halt.set()
        self.join()
        self._rescan()  # final CPU ticks

    def cpu_by_kind(self) -> dict[str, float]:
        """CPU seconds spent while sampling, per process kind."""
        out: dict[str, float] = {}
        for pid, ticks in self.ticks.items():
            kind = self.kinds[pid]
            out[kind] = out.get(kind, 0.0) + (ticks - self.ticks0.get(pid, 0)) / CLK_TCK
        return dict(sorted(out.items(), key=lambda kv: -kv[1]))


# ---------------------------------------------------------------------- helpers
def load_manifest(data: Path, limit: int | None) -> list[Path]:
    text = (data / "manifest.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.split("\n") if line.strip()]  # not splitlines:
    # it also splits at U+2028 / U+0085, which JSON strings hold unescaped
    paths = [data / row["html"] for row in rows]
    return paths[:limit] if limit else paths


def pct(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); nan for no values."""
    if not values:
        return float("nan")
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(q / 100 * len(s) + 0.5) - 1))
    return s[k]


def med(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def mark(ok: bool) -> str:
    return "OK  " if ok else "MISS"


def run_batch(renderer: Renderer, paths: Sequence[Path], concurrency: int
              ) -> tuple[float, list[RenderResult]]:
    t0 = time.perf_counter()
    results = list(renderer.render_many(paths, concurrency=concurrency))
    return time.perf_counter() - t0, results


def warm_up(renderer: Renderer, paths: Sequence[Path], concurrency: int) -> None:
    """Start the browser and open ``concurrency`` pooled tabs (first pages of the set)."""
    run_batch(renderer, list(paths[:max(1, concurrency)]) * 2, concurrency)


def capture_walks(renderer: Renderer, paths: Sequence[Path], concurrency: int
                  ) -> list[tuple[str, Any]]:
    """Render ``paths`` once more (untimed) and keep every raw walk string with its job."""
    captured: list[tuple[str, Any]] = []
    original: Callable[..., Any] = wr.page_from_walk

    def capturing(raw: str, job: Any = None, **kw: Any) -> Any:
        captured.append((raw, job))
        return original(raw, job, **kw)

    wr.page_from_walk = capturing  # looked up as a module global by Renderer._render_job
    try:
        run_batch(renderer, paths, concurrency)
    finally:
        wr.page_from_walk = original
    return captured


def time_model_build(captured: list[tuple[str, Any]], rounds: int = 5) -> list[float]:
    """Best-of-``rounds`` seconds per 1,000 nodes of page_from_walk, one value per page."""
    out = []
    for raw, job in captured:
        best = float("inf")
        n = 0
        for _ in range(rounds):
            t = time.perf_counter()
            try:
                page = wr.page_from_walk(raw, job)
            except wr.RenderError:
                break
            best = min(best, time.perf_counter() - t)
            n = page.n
        if n:
            out.append(best / (n / 1000))
    return out


# ---------------------------------------------------------------------- main
def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True,
                    help="data set folder with manifest.jsonl (rows with an `html` path)")
    ap.add_argument("--concurrency", type=int, default=3)
    ap.add_argument("--limit", type=int, default=None, help="first N pages of the manifest")
    ap.add_argument("--repeat", type=int, default=1, help="render the set this many times")
    ap.add_argument("--json", type=Path, default=None, help="also write the results here")
    ap.add_argument("--sweep-concurrency", default=None,
                    help="comma-separated concurrencies, e.g. 1,2,3,4: pages/s for each")
    ap.add_argument("--chromium-arg", action="append", default=[],
                    help="extra Chromium flag (repeatable; use --chromium-arg=--flag)")
    ap.add_argument("--no-model-loop", action="store_true",
                    help="skip the untimed capture pass and the clean model-build loop")
    args = ap.parse_args(argv)

    paths = load_manifest(args.data, args.limit)
    if not paths:
        print("no pages", file=sys.stderr)
        return 2
    report: dict[str, Any] = {"data": str(args.data), "pages_in_set": len(paths),
                              "concurrency": args.concurrency, "repeat": args.repeat,
                              "chromium_args": args.chromium_arg, "cpus": os.cpu_count()}
    with Renderer(extra_args=tuple(args.chromium_arg)) as renderer:
        if args.sweep_concurrency:
            sweep = {}
            print(f"sweep over {len(paths)} pages x {args.repeat}:")
            for c in (int(x) for x in args.sweep_concurrency.split(",")):
                warm_up(renderer, paths, c)
                rates = []
                for _ in range(args.repeat):
                    secs, res = run_batch(renderer, paths, c)
                    rates.append(len(res) / secs)
                sweep[c] = rates
                print(f"  concurrency {c}: {max(rates):6.2f} pages/s (best of "
                      f"{args.repeat}: {', '.join(f'{r:.2f}' for r in rates)})  "
                      f"target >= {TARGET_PAGES_PER_S:g}  "
                      f"{mark(max(rates) >= TARGET_PAGES_PER_S)}")
            report["sweep"] = sweep

        warm_up(renderer, paths, args.concurrency)
        sampler = TreeSampler()
        sampler.start()
        results: list[RenderResult] = []
        wall = 0.0
        rates: list[float] = []
        for _ in range(args.repeat):
            secs, res = run_batch(renderer, paths, args.concurrency)
            wall += secs
            rates.append(len(res) / secs)
            results.extend(res)
        sampler.stop()
        captured = ([] if args.no_model_loop
                    else capture_walks(renderer, paths, args.concurrency))
        restarts = renderer.restarts

    ok = [r for r in results if r.ok]
    failed = [r for r in results if not r.ok]
    pages_per_s = len(results) / wall
    stage = {k: [r.timings[k] for r in ok if k in r.timings] for k in ("browser", "walk", "model")}
    stage["total"] = [r.seconds for r in ok]
    nodes = [r.page.n for r in ok if r.page is not None]
    model_per_1k = [r.timings["model"] / (r.page.n / 1000) for r in ok
                    if r.page is not None and r.page.n and "model" in r.timings]
    clean_per_1k = time_model_build(captured)
    raw_mb = [len(raw.encode("utf-8")) / 1e6 for raw, _ in captured]
    peak_rss_mb = sampler.peak_rss_kb / 1024
    peak_pss_mb = sampler.peak_pss_kb / 1024 if sampler.pss_readable else None
    cpu = sampler.cpu_by_kind()
    cpu_total = sum(cpu.values())

    print(f"\nwebseg render bench: {len(paths)} pages x {args.repeat}, concurrency "
          f"{args.concurrency}, {os.cpu_count()} CPUs"
          + (f", extra Chromium args {args.chromium_arg}" if args.chromium_arg else ""))
    print(f"renderer            {wr.__file__}; browser {', '.join(sorted(sampler.browsers))}")
    print(f"pages rendered      {len(results)} ({len(ok)} ok, {len(failed)} failed, "
          f"{restarts} browser restarts), nodes/page median {med(nodes):.0f}, "
          f"max {max(nodes, default=0)}")
    print(f"throughput          {pages_per_s:6.2f} pages/s end-to-end (wall {wall:.1f} s; per "
          f"repeat {', '.join(f'{r:.2f}' for r in rates)})   target >= {TARGET_PAGES_PER_S:g}  "
          f"{mark(pages_per_s >= TARGET_PAGES_PER_S)}")
    print("per-stage time/page   median      p95   (latency under concurrency)")
    for k, v in stage.items():
        print(f"  {k:<10}      {med(v) * 1000:8.1f} ms {pct(v, 95) * 1000:8.1f} ms")
    clean_med = med(clean_per_1k)
    print(f"model build / 1k nodes  median {med(model_per_1k) * 1000:6.2f} ms, p95 "
          f"{pct(model_per_1k, 95) * 1000:6.2f} ms under load; clean loop median "
          f"{clean_med * 1000:6.2f} ms, p95 {pct(clean_per_1k, 95) * 1000:6.2f} ms   "
          f"target <= {TARGET_MODEL_MS_PER_1K:g} ms  "
          + (mark(clean_med * 1000 <= TARGET_MODEL_MS_PER_1K) if clean_per_1k else "n/a"))
    if raw_mb:
        print(f"walk JSON size      median {med(raw_mb):.2f} MB, max {max(raw_mb):.2f} MB")
    print(f"peak RSS (tree)     {peak_rss_mb:7.0f} MB summed over {sampler.peak_rss_nproc} "
          f"processes (double-counts shared pages)   target <= {TARGET_PEAK_RSS_MB:g} MB  "
          f"{mark(peak_rss_mb <= TARGET_PEAK_RSS_MB)}")
    print("                    at peak: " + ", ".join(
        f"{k} {v / 1024:.0f}" for k, v in sorted(sampler.peak_rss_by_kind.items(),
                                                   key=lambda kv: -kv[1])))
    if peak_pss_mb is not None:
        print(f"peak PSS (tree)     {peak_pss_mb:7.0f} MB (shared pages split, no double count)")
    else:
        print("peak PSS (tree)     n/a (/proc/<pid>/smaps_rollup not readable)")
    print(f"CPU s/page          {cpu_total / len(results):.3f} total over the tree: " + ", ".join(
        f"{k} {v / len(results):.3f}" for k, v in cpu.items() if v > 0))
    ncpu = os.cpu_count() or 1
    if cpu_total > 0:
        print(f"ceiling             {ncpu * len(results) / cpu_total:6.2f} pages/s if all {ncpu} "
              f"CPUs were free for this (load average now {os.getloadavg()[0]:.1f})")
    for r in failed[:20]:
        err = r.error
        print(f"  FAILED {r.source}: [{getattr(err, 'stage', '?')}] {err}")

    report.update(
        renderer=wr.__file__, browsers=sorted(sampler.browsers),
        pages=len(results), ok=len(ok), failures=len(failed), restarts=restarts,
        failed=[{"source": r.source, "stage": getattr(r.error, "stage", ""),
                 "error": str(r.error)} for r in failed],
        wall_s=wall, pages_per_s=pages_per_s, pages_per_s_per_repeat=rates,
        stage_ms={k: {"median": med(v) * 1000, "p95": pct(v, 95) * 1000}
                  for k, v in stage.items()},
        model_ms_per_1k_nodes={
            "under_load": {"median": med(model_per_1k) * 1000,
                           "p95": pct(model_per_1k, 95) * 1000},
            "clean": {"median": clean_med * 1000, "p95": pct(clean_per_1k, 95) * 1000}},
        nodes={"median": med(nodes), "max": max(nodes, default=0)},
        walk_json_mb={"median": med(raw_mb), "max": max(raw_mb, default=0)},
        peak_rss_mb=peak_rss_mb, peak_rss_mb_by_kind={
            k: v / 1024 for k, v in sampler.peak_rss_by_kind.items()},
        peak_pss_mb=peak_pss_mb, cpu_s_per_page={k: v / len(results) for k, v in cpu.items()},
        loadavg=os.getloadavg(),
        targets={"pages_per_s": TARGET_PAGES_PER_S, "model_ms_per_1k": TARGET_MODEL_MS_PER_1K,
                 "peak_rss_mb": TARGET_PEAK_RSS_MB},
    )
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str))
        print(f"wrote {args.json}")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
