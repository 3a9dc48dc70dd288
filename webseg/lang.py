"""Language identification of a page: declared hints checked against the main text.

A page declares its language in up to three places (the ``<html lang>`` attribute, the HTTP
``Content-Language`` header, ``<meta http-equiv="content-language">``), and the declarations are
often wrong: a site template says ``lang="en"`` on every page whatever the article is written
in. So a declaration is only a *hint*, which the main text confirms or overrules:

``identify(text, hints)`` returns a :class:`Language` whose ``source`` says how it was decided:

``"hint+text"``
    The detector's first choice on the text is a declared language: both agree.
``"text"``
    The text decides: no usable hint, or a hint the text contradicts clearly (the text is long
    enough to judge, at least :data:`MIN_LETTERS` letters, and the detector is at least
    :data:`OVERRULE` sure of another language).
``"hint"``
    The text is too short to judge (under :data:`MIN_LETTERS` letters: a bare title, a caption)
    or the detector is not sure enough to overrule: the declared language the detector scores
    highest is kept (the first declared one on a tie), with confidence
    :data:`HINT_CONFIDENCE` (a declaration nobody checked).
``"none"``
    Nothing to go on: no hint and no text the detector is sure of (``code`` is ``None``).

Short text without a hint: the detector's guess is returned only when it reaches
:data:`SHORT_TEXT_MIN_CONFIDENCE`; below that ``code`` is ``None`` (source ``"none"``), because
on 20-character snippets the detector is wrong about one time in nine (measured on the
daniel-dev gold texts, ``python -m eval.multilingual.langid``).

The detector is ``py3langid`` (a modernised langid.py: a naive Bayes model over byte
n-grams, 142 languages and varieties, the model inside the wheel, 4.5 MB installed, numpy
only). Measured on the 664 daniel-dev gold texts (zh, ru, el, pl, en; ``python -m
eval.multilingual.langid``): 664/664 right from the first :data:`MAX_CHARS` characters at 0.3
ms CPU per page; on 200-character snippets both it and ``lingua-language-detector`` (low
accuracy mode) got 664/664, lingua 4 times slower (0.61 vs 0.15 ms CPU); lingua installs 96 MB
and takes 5.6 ms on whole texts. Before the mapping below py3langid missed one page,
saying ``wuu`` (Wu Chinese) for a Mandarin text: codes of varieties without an ISO 639-1 code
are mapped to their macrolanguage (``wuu``, ``yue`` -> ``zh``; ``arz``, ``ary`` -> ``ar``), so
``code`` is ISO 639-1 where one exists and ISO 639-3 otherwise. Only the first
:data:`MAX_CHARS` characters are read: a page's language is settled long before that, and the
cost per page stays bounded (the detector walks every byte in Python). Loading the wheel's
compressed model costs about 0.4-0.7 s of CPU; it is decompressed once into the user's cache
directory and mapped from there by later processes (:func:`model_cache_dir`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["HINT_CONFIDENCE", "MAX_CHARS", "MIN_LETTERS", "OVERRULE",
           "SHORT_TEXT_MIN_CONFIDENCE", "Language", "declared_languages", "identify",
           "identify_many", "normalize_hint"]

#: Letters a text needs before it can overrule a declared language (a CJK character counts 3).
MIN_LETTERS = 40
#: Detector probability needed to overrule a declared language.
OVERRULE = 0.9
#: Detector probability a short text (under MIN_LETTERS letters) needs without any hint.
SHORT_TEXT_MIN_CONFIDENCE = 0.9
#: Confidence given to a declared language the text could not check.
HINT_CONFIDENCE = 0.5
#: Characters of the text the detector reads.
MAX_CHARS = 500

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
    if not isinstance(value, str):  # not kept (and fails as it always did)
        return list(_normalized.__wrapped__(value))
    return list(_normalized(value))


@lru_cache(maxsize=4096)
def _normalized(value: str) -> tuple[str, ...]:
    """:func:`normalize_hint`'s codes, kept per value: a crawl's pages repeat a handful of
    declarations (``en``, ``en-US``) thousands of times."""
    out: list[str] = []
    for part in re.split(r"[,;\s]+", value.strip().lower()):
        primary = re.split(r"[-_]", part, maxsplit=1)[0]
        if not _SUBTAG.fullmatch(primary) or primary in ("und", "mul", "zxx", "mis"):
            continue
        code = _MACRO.get(primary, primary)
        code = _DEPRECATED.get(code, code)
        if code and code not in out:
            out.append(code)
    return tuple(out)


_HEAD_BYTES = 65536
_HTML_TAG = re.compile(r"<html\b[^>]*>", re.I)
_META_TAG = re.compile(r"<meta\b[^>]*>", re.I)
_ATTR = re.compile(r"""([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")
_META_KEYS = ("content-language", "language", "dc.language", "og:locale")


def _attrs(tag: str) -> dict[str, str]:
    return {m.group(1).lower(): next(g for g in m.groups()[1:] if g is not None)
            for m in _ATTR.finditer(tag)}


def declared_languages(html: str | bytes | None,
                       headers: dict[str, str] | None = None) -> list[str]:
    """The languages a page declares, raw, in the priority order :func:`identify` takes as
    ``hints``: ``<html lang>`` (or ``xml:lang``), the HTTP ``Content-Language`` header, then
    ``<meta http-equiv="content-language">``, ``<meta name="language">``, ``dc.language``
    and ``og:locale``. Only the first 64 KB of the page are read (the head)."""
    out: list[str] = []
    if html:
        head = html[:_HEAD_BYTES]
        text = head.decode("utf-8", "replace") if isinstance(head, bytes) else head
        m = _HTML_TAG.search(text)
        if m:
            a = _attrs(m.group())
            out += [a[k] for k in ("lang", "xml:lang") if a.get(k)]
    for k, v in (headers or {}).items():
        if k.lower() == "content-language" and v:
            out.append(v)
    if html:
        for m in _META_TAG.finditer(text):
            a = _attrs(m.group())
            key = (a.get("http-equiv") or a.get("name") or a.get("property") or "").lower()
            if key in _META_KEYS and a.get("content"):
                out.append(a["content"])
    return out


@lru_cache(maxsize=1)
def _identifier() -> Any:
    """The py3langid model, loaded once per process with probabilities normalised.

    The wheel ships the model LZMA-compressed (4.5 MB); decompressing it costs about 0.4-0.7
    s of CPU in every process, more than identifying a few thousand short texts. So the first
    process writes the decompressed arrays once into the user's cache directory
    (:func:`model_cache_dir`, 68 MB) and later processes map them from there (about 25 ms:
    the arrays are the wheel's, bit for bit, so every result is the same). When the cache
    cannot be written (read-only home, full disk) the wheel's file is read as before."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    cls = LanguageIdentifier
    arrays = _cached_arrays()
    if arrays is None:
        return cls.from_model_file(MODEL_FILE, norm_probs=True)
    import numpy as np
    from py3langid.modelio import _to_array

    # a plain array over the mapped file (a memmap's own indexing costs more per page)
    return cls(arrays["ptc"].view(np.ndarray), np.array(arrays["pc"]),
               arrays["classes"].tolist(), _to_array(arrays["nextmove"]),
               arrays["out_feat"].tolist(), norm_probs=True,
               tk_row=_to_array(arrays["nextmove_row"]))


#: The arrays of a py3langid model file (``py3langid.modelio.save_model``'s names).
_MODEL_ARRAYS = ("ptc", "pc", "classes", "nextmove", "nextmove_row", "out_feat")


def model_cache_dir() -> Path | None:
    """Where the decompressed language model is kept: ``$XDG_CACHE_HOME/webseg`` (else
    ``~/.cache/webseg``), one folder per py3langid model file (its version, size and
    modification time name it, so an upgraded wheel gets a fresh copy); None when the
    shipped model file cannot be found."""
    import os

    import py3langid
    from py3langid.langid import MODEL_DIR, MODEL_FILE

    model = Path(MODEL_DIR) / MODEL_FILE
    try:
        st = model.stat()
    except OSError:
        return None
    # the package's own version string: asking the installed distributions instead
    # (importlib.metadata) cost about 14 ms of every run that identifies a language
    ver = getattr(py3langid, "__version__", None) or _dist_version()
    if ver is None:
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "webseg" / f"py3langid-{ver}-{st.st_size}-{st.st_mtime_ns}"


def _dist_version() -> str | None:
    """py3langid's installed version from its distribution's metadata (None when unknown)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("py3langid")
    except PackageNotFoundError:
        return None


def _cached_arrays() -> dict[str, Any] | None:
    """The model's arrays from the cache (memory-mapped), writing the cache first when it is
    missing; None when neither works (the caller reads the wheel's file)."""
    import numpy as np

    folder = model_cache_dir()
    if folder is None:
        return None
    try:
        if not (folder / "complete").exists():
            _write_cache(folder)
        return {k: np.load(folder / f"{k}.npy", mmap_mode="r", allow_pickle=False)
                for k in _MODEL_ARRAYS}
    except (OSError, ValueError):
        return None


def _write_cache(folder: Path) -> None:
    """Decompress the wheel's model into ``folder`` (atomically: a process that finds the
    folder finds it whole, and two processes writing at once both succeed)."""
    import io
    import lzma
    import os
    import shutil
    import tempfile

    import numpy as np
    from py3langid.langid import MODEL_DIR, MODEL_FILE

    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=folder.parent))
    try:
        with lzma.open(Path(MODEL_DIR) / MODEL_FILE) as src:
            raw = io.BytesIO(src.read())
        with np.load(raw, allow_pickle=False) as data:
            for k in _MODEL_ARRAYS:
                np.save(tmp / f"{k}.npy", data[k], allow_pickle=False)
        (tmp / "complete").write_text("")
        try:
            os.rename(tmp, folder)
        except OSError:  # another process was first: its copy is the same
            if not (folder / "complete").exists():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _code(label: str) -> str | None:
    return _MACRO.get(label, label)


@lru_cache(maxsize=1)
def _columns() -> tuple[list[str | None], Any]:
    """The detector's output columns grouped by language code: (codes, column -> code index),
    so the probabilities of one language's varieties add up in one ``bincount``."""
    import numpy as np

    codes: list[str | None] = []
    index: dict[str | None, int] = {}
    cols = []
    from webseg.langscore import _model

    for label in _model().classes:
        c = _code(label)
        if c not in index:
            index[c] = len(codes)
            codes.append(c)
        cols.append(index[c])
    return codes, np.asarray(cols, dtype=np.int64)


def _probs(text: str) -> tuple[list[str | None], Any]:
    """(language codes, their probabilities) for ``text``, varieties merged into their
    macrolanguage: the identifier's per-class probabilities (py3langid's ``_decide``, what its
    public ``classify`` and ``rank`` call, computed by :mod:`webseg.langscore`, bit for bit)."""
    from webseg.langscore import encode, scores

    return _merged(scores(encode(text)))


def _merged(scores: Any) -> tuple[list[str | None], Any]:
    import numpy as np

    codes, cols = _columns()
    return codes, np.bincount(cols, weights=scores, minlength=len(codes))


_ASCII_LETTERS = re.compile(r"[A-Za-z]+")


def _letters(text: str, enough: int) -> int:
    """Letters in ``text``, counted up to ``enough`` (all the caller needs to know). A Han,
    kana or Hangul character counts 3: it carries about as much as a short word (on
    20-character snippets the detector got every Chinese page right, and a third of the
    others)."""
    if text.isascii():  # every letter counts 1: the count, capped where the loop stops
        return min(len(text) - len(_ASCII_LETTERS.sub("", text)), max(enough, 1))
    n = 0
    for ch in text:
        if ch.isalpha():
            n += 3 if ch >= "\u2e80" else 1
            if n >= enough:
                break
    return n


def _declared(hints: Sequence[str] | Iterable[str] | None) -> list[str]:
    declared: list[str] = []
    for h in hints or ():
        if not isinstance(h, str):
            continue
        for c in normalize_hint(h):
            if c not in declared:
                declared.append(c)
    return declared


def identify(text: str, hints: Sequence[str] | Iterable[str] = ()) -> Language:
    """The language of ``text`` (a page's main text), checking the declared ``hints``.

    ``hints``: raw declared values in priority order (``<html lang>`` first, then
    ``Content-Language``, then meta), e.g. ``["en-US", "en"]``; they are normalised by
    :func:`normalize_hint`. Never raises on odd input: unknown or non-string hints are
    ignored, and an empty text with no hint gives ``Language(None, 0.0, "none")``; ``text``
    that is not a string raises ``TypeError``.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, got {type(text).__name__}")
    declared = _declared(hints)
    sample = text[:MAX_CHARS]
    n = _letters(sample, MIN_LETTERS)
    if n == 0:
        return Language(declared[0], HINT_CONFIDENCE, "hint") if declared else UNKNOWN
    codes, probs = _probs(sample)
    return _decide(declared, n, codes, probs, int(probs.argmax()))


def identify_many(texts: Sequence[str],
                  hints: Sequence[Sequence[str] | Iterable[str] | None] | None = None
                  ) -> list[Language]:
    """:func:`identify` of every text (``hints``: one hint list per text, or None), the
    same results; many short texts (a text collection's abstracts) cost about half as much
    as one call each, because the detector reads all their bytes in one vectorised pass
    (:func:`webseg.langscore.scores_many`)."""
    import numpy as np

    from webseg.langscore import encode, scores, scores_many

    if hints is not None and len(hints) != len(texts):
        raise ValueError(f"{len(hints)} hint lists for {len(texts)} texts")
    prep = []
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"text must be str, got {type(text).__name__}")
        sample = text[:MAX_CHARS]
        prep.append((_declared(hints[i] if hints is not None else ()), sample,
                     _letters(sample, MIN_LETTERS)))
    need = [i for i, (_, _, n) in enumerate(prep) if n]
    data = [encode(prep[i][1]) for i in need]
    if len(data) > 1:
        codes, merged = _merged_rows(scores_many(data))
    else:
        codes, merged = _merged_rows(np.stack([scores(d) for d in data]) if data
                                     else np.zeros((0, len(_columns()[1]))))
    row = dict(zip(need, range(len(need)), strict=True))
    best = merged.argmax(axis=1) if len(need) else np.zeros(0, dtype=np.int64)
    out = []
    for i, (declared, _, n) in enumerate(prep):
        if not n:
            out.append(Language(declared[0], HINT_CONFIDENCE, "hint") if declared else UNKNOWN)
            continue
        r = row[i]
        out.append(_decide(declared, n, codes, merged[r], int(best[r])))
    return out


def _merged_rows(scores: Any) -> tuple[list[str | None], Any]:
    """:func:`_merged` of every row: each code's probability the float64 sum of its
    columns' in column order, as ``bincount`` adds them (the same numbers)."""
    import numpy as np

    codes, cols = _columns()
    s64 = scores.astype(np.float64)
    seen: set[int] = set()
    first, extra = [], []
    for j, c in enumerate(cols.tolist()):
        (extra if c in seen else first).append(j)
        seen.add(c)
    out = s64[:, first]  # codes are numbered by their first column (0.0 + x is x)
    for j in extra:
        out[:, cols[j]] += s64[:, j]
    return codes, out


def _decide(declared: list[str], n: int, codes: list[str | None], probs: Any,
            i: int) -> Language:
    """The language from the detector's merged probabilities (``i``: the first best) and the
    declared codes (module doc: which wins when)."""
    best, p = codes[i], float(probs[i])
    if declared:
        if best in declared:
            return Language(best, p, "hint+text")
        if n >= MIN_LETTERS and p >= OVERRULE and best is not None:
            return Language(best, p, "text")
        # the text does not overrule: keep the declared language the text likes best
        prob = {c: float(probs[j]) for j, c in enumerate(codes) if c in declared}
        hint = max(declared, key=lambda c: (prob.get(c, 0.0), -declared.index(c)))
        return Language(hint, HINT_CONFIDENCE, "hint")
    if best is None:
        return UNKNOWN
    if n < MIN_LETTERS and p < SHORT_TEXT_MIN_CONFIDENCE:
        return UNKNOWN
    return Language(best, p, "text")


@lru_cache(maxsize=1)
def _unspaced_letter() -> Any:
    import regex  # Unicode script properties (the re module has none)

    return regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}"
                         r"\p{Myanmar}]")


#: A superset of :func:`_unspaced_letter`'s characters as plain code-point ranges (Thai, Lao,
#: Myanmar, Khmer, the CJK blocks, kana, every astral plane), which the standard ``re`` module
#: scans for about ten times faster than the ``regex`` module tests script properties (the
#: curly quotes, dashes and accents of a European page are not in it)
_MAYBE_UNSPACED = re.compile("[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff"
                             "\u2e80-\u2fff\u3005-\u30ff\u31f0-\u31ff\u32d0-\u4dbf"
                             "\u4e00-\u9fff\ua9e0-\ua9ff\uaa60-\uaa7f\uf900-\ufaff"
                             "\uff66-\uff9f\U00010000-\U0010ffff]")


def has_unspaced_letter(text: str) -> bool:
    """Whether ``text`` holds a letter of a script written without spaces between words
    (Chinese, Japanese kana, Thai, Lao, Khmer, Myanmar; not Korean, which uses spaces): such
    text cannot be cut into words at white space, so shingles and windows count characters.
    The script test runs only from the first character of :data:`_MAYBE_UNSPACED` on: most
    texts have none, and their answer is one quick scan."""
    if text.isascii():
        return False
    m = _MAYBE_UNSPACED.search(text)
    return m is not None and _unspaced_letter().search(text, m.start()) is not None

