"""Language identification on daniel-dev gold texts: accuracy per language and ms per page.

``python -m eval.multilingual.langid [--data DIR]`` scores :func:`webseg.lang.identify` (py3langid)
on each page's whole gold text and on snippets of 200, 60 and 20 characters from its middle (the
short-text cases: titles, captions, queries), and ``lingua-language-detector`` the same way when
it is installed (it is not a dependency; it is the peer the choice was made against).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from eval.multilingual import DANIEL


def load_gold(data: Path) -> list[tuple[str, str]]:
    """(lang, gold text) of every daniel-dev page."""
    rows = [json.loads(line) for line in (data / "manifest.jsonl").open(encoding="utf-8")]
    return [(r["lang"], (data / r["gold"]).read_text(encoding="utf-8")) for r in rows if r["gold"]]


def snippet(text: str, n: int | None) -> str:
    if n is None:
        return text
    mid = len(text) // 2
    return text[max(0, mid - n // 2): mid - n // 2 + n]


def score(name: str, detect: Callable[[str], str | None], pages: list[tuple[str, str]]) -> dict:
    detect(pages[0][1])  # load the model outside the clock
    ok: Counter[str] = Counter()
    tot: Counter[str] = Counter()
    abstained = 0
    t0 = time.perf_counter()
    for lang, text in pages:
        tot[lang] += 1
        got = detect(text)
        ok[lang] += got == lang
        abstained += got is None
    ms = 1000 * (time.perf_counter() - t0) / len(pages)
    row = {"detector": name, "accuracy": round(sum(ok.values()) / len(pages), 4),
           "ms_per_page": round(ms, 3), "abstained": abstained,
           **{k: f"{ok[k]}/{tot[k]}" for k in sorted(tot)}}
    print(json.dumps(row, ensure_ascii=False), flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.multilingual.langid", description=__doc__)
    ap.add_argument("--data", type=Path, default=Path(DANIEL))
    args = ap.parse_args(argv)
    from webseg.lang import identify

    gold = load_gold(args.data)
    detectors: dict[str, Callable[[str], str | None]] = {"webseg.lang": lambda t: identify(t).code}
    try:
        from lingua import LanguageDetectorBuilder

        det = LanguageDetectorBuilder.from_all_languages().with_low_accuracy_mode().build()

        def lingua_low(t: str) -> str | None:
            lang = det.detect_language_of(t)
            return lang.iso_code_639_1.name.lower() if lang else None

        detectors["lingua-low"] = lingua_low
    except ImportError:
        print("lingua-language-detector not installed: its rows are skipped")
    for n in (None, 200, 60, 20):
        pages = [(lang, snippet(t, n)) for lang, t in gold]
        for name, f in detectors.items():
            score(f"{name}[{'full' if n is None else f'{n} chars'}]", f, pages)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
