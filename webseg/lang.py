"""Language identification of a page: declared hints checked against the main text.

A page declares its language in up to three places (the ``<html lang>`` attribute, the HTTP
``Content-Language`` header, ``<meta http-equiv="content-language">``), and the declarations are
often wrong: a site template says ``lang="en"`` on every page whatever the article is written
in. So a declaration is only a *hint*, which the main text confirms or overrules:

``identify(text, hints)`` returns a :class:`Language` whose ``source`` says how it was decided:

``"hint+text"``
    The detector, restricted to nothing, ranks a hinted language first on the text: both agree.
``"text"``
    The text decides: no usable hint, or a hint the text contradicts clearly (the text is long
    enough to judge, at least :data:`MIN_LETTERS` letters, and the detector is at least
    :data:`OVERRULE` sure of another language).
``"hint"``
    The text is too short to judge (under :data:`MIN_LETTERS` letters: a bare title, a caption)
    or the detector is not sure enough to overrule: the first hint is kept, with confidence
    :data:`HINT_CONFIDENCE` (a declaration nobody checked).
``"none"``
    Nothing to go on: no hint and no text the detector is sure of (``code`` is ``None``).

Short text without a hint: the detector's guess is returned only when it reaches
:data:`SHORT_TEXT_MIN_CONFIDENCE`; below that ``code`` is ``None`` (source ``"none"``), because
on 20-character snippets the detector is wrong about one time in nine (measured on the
daniel-dev gold texts, ``python -m eval.multilingual.langid``).

The detector is ``py3langid`` (a modernised langid.py: a naive Bayes model over byte
n-grams, 142 languages and varieties, the model inside the wheel, 4.5 MB installed, numpy
only). Measured on the 664 daniel-dev gold texts (zh, ru, el, pl, en): 664/664 right at 1.4 ms
per page on a busy machine; ``lingua-language-detector`` also got 664/664 but took 7.9 ms per
page in its low-accuracy mode in the same run (15 ms in high-accuracy mode) and installs 96 MB.
Before the mapping below py3langid missed one page, saying ``wuu`` (Wu Chinese) for a Mandarin
text: codes of varieties without an ISO 639-1 code are mapped to their macrolanguage (``wuu``,
``yue`` -> ``zh``; ``arz``, ``ary`` -> ``ar``), so ``code`` is ISO 639-1 where one exists and
ISO 639-3 otherwise. Only the first :data:`MAX_CHARS` characters are read: a page's language
is settled long before that, and detection stays under 2 ms a page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = ["HINT_CONFIDENCE", "MAX_CHARS", "MIN_LETTERS", "OVERRULE",
           "SHORT_TEXT_MIN_CONFIDENCE", "Language", "identify", "normalize_hint"]

#: Letters a text needs before it can overrule a declared language.
MIN_LETTERS = 40
#: Detector probability needed to overrule a declared language.
OVERRULE = 0.9
#: Detector probability a short text (under MIN_LETTERS letters) needs without any hint.
SHORT_TEXT_MIN_CONFIDENCE = 0.9
#: Confidence given to a declared language the text could not check.
HINT_CONFIDENCE = 0.5
#: Characters of the text the detector reads.
MAX_CHARS = 3000

#: Language varieties the detector knows that have no ISO 639-1 code of their own, mapped to
#: the macrolanguage's code; ``zxx`` ("no linguistic content") means "no language".
_MACRO = {"wuu": "zh", "yue": "zh", "arz": "ar", "ary": "ar", "gug": "gn", "uzs": "uz",
          "sdh": "ku", "fuv": "ff", "zxx": None}
#: Deprecated ISO 639-1 codes still seen in ``lang`` attributes.
_DEPRECATED = {"iw": "he", "in": "id", "ji": "yi", "jw": "jv", "mo": "ro"}
_SUBTAG = re.compile(r"[a-z]{2,3}")


@dataclass(frozen=True)
class Language:
    """A page's language: ISO 639-1 ``code`` (``None`` when unknown), ``confidence`` in
    [0, 1], and ``source``: ``"hint+text"``, ``"text"``, ``"hint"`` or ``"none"`` (module
    doc)."""

    code: str | None
    confidence: float
    source: str

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "confidence": round(self.confidence, 4),
                "source": self.source}


UNKNOWN = Language(None, 0.0, "none")


def normalize_hint(value: str | None) -> list[str]:
    """Language codes in one declared value: ``"en-US"`` -> ``["en"]``, ``"de, fr"`` ->
    ``["de", "fr"]``, ``"zh-Hant-TW"`` -> ``["zh"]``; ``"und"``, ``"x-..."``, ``"*"`` and
    junk give nothing. Three-letter codes are kept when they are not ``mul``/``und``/``zxx``."""
    if not value:
        return []
    out: list[str] = []
    for part in re.split(r"[,;\s]+", value.strip().lower()):
        primary = re.split(r"[-_]", part, maxsplit=1)[0]
        if not _SUBTAG.fullmatch(primary) or primary in ("und", "mul", "zxx", "mis"):
            continue
        code = _MACRO.get(primary, primary)
        code = _DEPRECATED.get(code, code)
        if code and code not in out:
            out.append(code)
    return out


@lru_cache(maxsize=1)
def _identifier() -> Any:
    """The py3langid model, loaded once (0.5 s) with probabilities normalised."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def _code(label: str) -> str | None:
    return _MACRO.get(label, label)


def _ranked(text: str) -> list[tuple[str | None, float]]:
    """Detector's languages best first, varieties merged into their macrolanguage."""
    merged: dict[str | None, float] = {}
    for label, p in _identifier().rank(text):
        c = _code(label)
        merged[c] = merged.get(c, 0.0) + float(p)
    return sorted(merged.items(), key=lambda kv: kv[1], reverse=True)


def _letters(text: str) -> int:
    return sum(1 for ch in text if ch.isalpha())


def identify(text: str, hints: Sequence[str] | Iterable[str] = ()) -> Language:
    """The language of ``text`` (a page's main text), checking the declared ``hints``.

    ``hints``: raw declared values in priority order (``<html lang>`` first, then
    ``Content-Language``, then meta), e.g. ``["en-US", "en"]``; they are normalised by
    :func:`normalize_hint`. Never raises on odd input: unknown hints are ignored, and an
    empty text with no hint gives ``Language(None, 0.0, "none")``.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, got {type(text).__name__}")
    declared: list[str] = []
    for h in hints or ():
        for c in normalize_hint(h):
            if c not in declared:
                declared.append(c)
    sample = text[:MAX_CHARS]
    n = _letters(sample)
    if n == 0:
        return Language(declared[0], HINT_CONFIDENCE, "hint") if declared else UNKNOWN
    ranked = _ranked(sample)
    best, p = ranked[0]
    if declared:
        probs = dict(ranked)
        if best in declared:
            return Language(best, p, "hint+text")
        if n >= MIN_LETTERS and p >= OVERRULE and best is not None:
            return Language(best, p, "text")
        # the text does not overrule: keep the declared language the text likes best
        hint = max(declared, key=lambda c: (probs.get(c, 0.0), -declared.index(c)))
        return Language(hint, HINT_CONFIDENCE, "hint")
    if best is None:
        return UNKNOWN
    if n < MIN_LETTERS and p < SHORT_TEXT_MIN_CONFIDENCE:
        return UNKNOWN
    return Language(best, p, "text")
