"""CPU of language identification as the parsed pipeline runs it, over the pages of a WARC,
and a digest of its answers (to check that a speed-up changes none).

    PYTHONPATH=. python bench/lang_warc.py /work/cache/runs/s36/w400.warc.gz \
        --inputs .cache/lang_inputs.json
    (with PYTHONPATH pointing at a checkout of other code: the same for that code, on the
    same inputs file; compare the digests and the CPU)

The inputs are the ``(text, hints)`` pairs the clean stage hands to
:func:`webseg.lang.identify`, one per page: the first run parses the WARC, cleans every page
as ``webseg pipeline --no-render`` does and records them into ``--inputs`` (not timed); later
runs read that file, so two checkouts time the very same calls. Then ``identify`` runs on
every pair ``--repeat`` times (the model loaded first, not timed). Prints the CPU per page
(``time.process_time``: total / pages / repeats, and the median of the per-repeat totals) and
one SHA-1 over every answer's code, source and confidence (the float's exact bits) and the
detector's merged probabilities (their bytes). Nothing asserts. The compiled walk runs when
webseg's C extensions are built (``WEBSEG_PURE_PYTHON=1`` for py3langid's Python walk).
``--pipeline``: the CPU per call of ``identify`` and of ``Segmentation.node_labels`` inside a
whole ``webseg pipeline --no-render`` run of the WARC (first call, the model's loading,
included), where the tables are mostly out of the caches.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import statistics
import time
from pathlib import Path


def record_inputs(warc: Path, out: Path) -> list[tuple[str, list[str]]]:
    """Clean every parsed page of ``warc`` and keep what ``identify`` was called with."""
    import webseg.lang as lang
    from webseg.clean import extract
    from webseg.inputs import iter_warc, parse_inputs_html

    seen: list[tuple[str, list[str]]] = []
    real = lang.identify

    def spy(text, hints=()):  # type: ignore[no-untyped-def]
        seen.append((text, list(hints)))
        return real(text, hints)

    lang.identify = spy
    try:
        for rec, page, _err, html in parse_inputs_html(iter_warc(warc)):
            if page is None:
                continue
            res = extract(page, html=html, url=rec.url)
            _ = res.language
    finally:
        lang.identify = real
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(seen, ensure_ascii=False), encoding="utf-8")
    return seen


def in_pipeline(warc: Path) -> int:
    """The CPU of ``identify`` and of ``Segmentation.node_labels`` inside a whole
    ``webseg pipeline --no-render`` run over ``warc`` (output in a temporary folder), where
    the other stages' work leaves the detector's tables out of the caches between pages (the
    hot loop of the default mode reads them from the caches)."""
    import sys
    import tempfile

    here = Path(__file__).resolve().parent  # holds a bench named ir.py, hiding the package
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    import webseg.lang as lang
    import webseg.segmentation as sg
    from webseg.cli import main as cli

    spent = {"identify": [0.0, 0], "node_labels": [0.0, 0]}

    def timed(name, fn):  # type: ignore[no-untyped-def]
        def run(*args, **kw):  # type: ignore[no-untyped-def]
            t0 = time.process_time()
            try:
                return fn(*args, **kw)
            finally:
                spent[name][0] += time.process_time() - t0
                spent[name][1] += 1
        return run

    lang.identify = timed("identify", lang.identify)
    sg.Segmentation.node_labels = timed("node_labels", sg.Segmentation.node_labels)
    with tempfile.TemporaryDirectory() as tmp, contextlib.suppress(SystemExit):
        cli(["pipeline", "--no-render", str(warc), "-o", str(Path(tmp) / "out"), "-q"])
    print("; ".join(f"{k}: {n} calls, {t * 1000 / max(n, 1):.3f} ms per call"
                    for k, (t, n) in spent.items()))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("warc", type=Path)
    ap.add_argument("--inputs", type=Path, default=Path(".cache/lang_inputs.json"),
                    help="the recorded (text, hints) pairs; written when missing")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--pipeline", action="store_true",
                    help="time identify (and the segmentation's node labels) inside a whole "
                         "parsed pipeline run instead (no digest)")
    a = ap.parse_args(argv)
    if a.pipeline:
        return in_pipeline(a.warc)
    if a.inputs.exists():
        pairs = [(t, h) for t, h in json.loads(a.inputs.read_text(encoding="utf-8"))]
    else:
        pairs = record_inputs(a.warc, a.inputs)
    if not pairs:
        print(f"no text to identify from {a.warc}")
        return 1
    from webseg.lang import _probs, identify

    identify("warm up the model", ())
    h = hashlib.sha1()
    for text, hints in pairs:
        lang = identify(text, hints)
        h.update(repr((lang.code, lang.source, float(lang.confidence).hex())).encode())
        if text:
            codes, probs = _probs(text[:500])
            h.update(repr(codes).encode() + probs.tobytes())
    per = []
    for _ in range(a.repeat):
        t0 = time.process_time()
        for text, hints in pairs:
            identify(text, hints)
        per.append(time.process_time() - t0)
    n = len(pairs)
    print(f"{n} texts x {a.repeat}: CPU {sum(per):.2f} s, "
          f"{sum(per) / n / a.repeat * 1000:.3f} ms per page "
          f"(median repeat {statistics.median(per) / n * 1000:.3f} ms); digest {h.hexdigest()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
