"""Tokenisation and stop words shared by every classification feature, for every script.

Two tokenisers, both built on the project's one analysis of every script
(:class:`ir.analysis.Analyzer`: NFKC, runs of one script, Chinese / Japanese / Korean / Thai
runs as overlapping character bigrams, other scripts as case-folded Unicode words), so nothing
here has its own idea of what a word is:

* :func:`words` - the stacked model's text and title views: every word of every language, no
  stop words and no stemming (the function words of a language carry genre - "you", "your" on
  a service page, "I" in a forum post - and dropping one language's list but not another's
  would treat languages unequally). One-character tokens are dropped except unspaced-script
  characters (a lone Han character is a word).
* :func:`tokenize` - the paper's method ("basic preprocessing such as stop word removal", not
  specified further): the terms it always had (lower-cased runs of letters and digits that
  start with a letter, 2-30 characters, minus scikit-learn's English stop words; digits-only
  tokens are page-specific noise; ASCII text is tokenised exactly as before), except that runs
  of unspaced scripts become character bigrams (:func:`words`; a Chinese clause was one
  over-long, dropped "word") and the stop words of the text's language
  (:func:`webseg.lang.identify`, lists of :func:`ir.analysis.stopwords_for`) and of the
  Cyrillic and Greek scripts are removed too, as the English ones are.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import lru_cache
from typing import Any

__all__ = ["STOP_WORDS", "term_counts", "tokenize", "words"]  # noqa: F822 - module __getattr__


@lru_cache(maxsize=1)
def _english_stop() -> frozenset[str]:
    """scikit-learn's English stop words, imported on first use: the page-type pipeline that
    never tokenises this way does not pay for importing scikit-learn."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def __getattr__(name: str) -> Any:
    """``STOP_WORDS`` (scikit-learn's English list), loaded lazily (see :func:`_english_stop`)."""
    if name == "STOP_WORDS":
        return _english_stop()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

_TOKEN = re.compile(r"(?<![^\W_])[^\W\d_][^\W_]{1,29}(?![^\W_])")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
#: :func:`words` of ASCII text: whole ``[a-z0-9]`` runs of 2 to 64 characters (the analysis'
#: tokens of :func:`_analyzer`, which drops longer ones, without the one-character ones).
_ASCII_WORD = re.compile(r"(?<![a-z0-9])[a-z0-9]{2,64}(?![a-z0-9])")
#: bytes -> lower-case ASCII letters and digits kept, every other byte a space
_WORD_BYTES = bytes((c | 0x20) if chr(c).isascii() and chr(c).isalnum() else 0x20
                    for c in range(256))


def _ascii_words(text: str) -> list[str]:
    """``_ASCII_WORD.findall(text.lower())`` of an ASCII ``text``: its maximal ``[a-z0-9]``
    runs of 2 to 64 characters, by one byte translation and a split (C loops) and a length
    test, in half the time of the regular expression with its look-arounds."""
    return [w for w in text.encode("ascii").translate(_WORD_BYTES).decode("ascii").split()
            if 1 < len(w) <= 64]


_MAX_LEN = 30


@lru_cache(maxsize=64)
def _analyzer(stopwords: str = "none", latin: str = "en") -> Any:
    from ir.analysis import Analyzer

    return Analyzer(stopwords=stopwords, stemmer="none", latin=latin)


def _unspaced(tok: str) -> bool:
    """Whether a token comes from an unspaced script (its characters are CJK / Thai ...)."""
    from webseg.lang import has_unspaced_letter

    return ord(tok[0]) >= 0x0E00 and (has_unspaced_letter(tok) or "\uac00" <= tok[0] <= "\ud7af")


def words(text: str) -> list[str]:
    """Word tokens of ``text`` in any script (module doc): Unicode words of two or more
    characters, unspaced scripts as character bigrams.

    >>> words("Москва — столица России. 北京是中国的首都")
    ['москва', 'столица', 'россии', '北京', '京是', '是中', '中国', '国的', '的首', '首都']
    """
    if not text:
        return []
    t = ascii_form(text)
    if t is not None:
        return _ascii_words(t)
    return [t for t in _analyzer().tokens(text) if len(t) > 1 or _unspaced(t)]


def ascii_form(text: str) -> str | None:
    """An ASCII text whose :func:`_ascii_words` are the :func:`words` of ``text``, or None
    when ``text`` needs the analysis' script runs (letters beyond Latin, non-ASCII digits).

    Why apart: a caller that counts words in compiled code (``webseg._native.termcount``'s
    ``scan``) takes this text and its bytes, never the list of word strings."""
    text = _spaced_out(text)
    if text.isascii():
        # the analysis' English path with no stop words and no stemming: its ``[a-z0-9]+``
        # tokens up to the analyzer's 64 characters, of which :func:`_ascii_words` keeps
        # those of two or more (no ASCII token is of an unspaced script)
        return text
    return _latin_ascii(text)


@lru_cache(maxsize=1)
def _latin_patterns() -> tuple[Any, Any]:
    """(a character that makes a text more than Latin words, a non-ASCII character that is
    no part of any word): the analysis' own script classes, so the two cannot drift apart."""
    import regex

    from ir.analysis import _SEA, _UNSPACED

    beyond = regex.compile(rf"[{_UNSPACED}{_SEA}[[\p{{L}}\p{{N}}]--[\p{{Latin}}\p{{Nd}}]]]",
                           regex.V1)
    return beyond, regex.compile(r"[^\x00-\x7f\p{L}\p{N}\p{M}]")


_NON_ASCII_DIGIT = re.compile(r"(?![0-9])\d")
#: a character outside ASCII, Latin letters with their marks, and the common punctuation,
#: symbol and emoji blocks: only where the standard ``re`` module finds one does the slower
#: script test of :func:`_latin_patterns` run (``tests/test_classify_words_fast.py`` checks
#: that no character of these blocks is one that test refuses)
_MAYBE_BEYOND_LATIN = re.compile("[^\x00-\xb1\xbf-\u02b8\u02ef-\u036f\u1dc0-\u1eff"
                                 "\u1ffd-\u206f\u2090-\u2101\u218a-\u245f\u2500-\u2775"
                                 "\u2794-\u2bff\U0001f300-\U0001faff]")


def _latin_words(text: str) -> list[str] | None:
    """:func:`words` of a Latin-script text (:func:`_latin_ascii`), None for another."""
    t = _latin_ascii(text)
    return None if t is None else _ascii_words(t)


def _latin_ascii(text: str) -> str | None:
    """The ASCII text whose :func:`_ascii_words` are the :func:`words` of a text whose words
    are all Latin-script (accented letters, marks, digits; French, German, Polish, an English
    page with a "café"), computed on the whole text at once; None for any other text
    (Greek, Cyrillic, CJK ... letters, or non-ASCII digits), which the analysis' script runs
    take.

    Why it gives the analysis' tokens: the analysis cuts the NFKC text into runs of Latin
    letters, digits and marks, and folds each run (case fold, :data:`ir.analysis._LATIN_EXTRA`,
    NFKD, ASCII only) into ``[a-z0-9]+`` tokens. Every step is character by character, and
    what separates two runs is a character of no run; replaced by a space (the non-ASCII
    ones) or kept (ASCII punctuation), it still separates them after folding the whole text,
    so the tokens are the same, in the same order, without a Python step per run (an
    accented English page took three times longer than its ASCII neighbour)."""
    beyond, non_word = _latin_patterns()
    t = unicodedata.normalize("NFKC", text)
    odd = _MAYBE_BEYOND_LATIN.search(t)
    if odd is not None and (beyond.search(t, odd.start()) is not None
                            or _NON_ASCII_DIGIT.search(t, odd.start()) is not None):
        return None
    t = non_word.sub(" ", t).casefold()
    if not t.isascii():
        from ir.analysis import _LATIN_EXTRA

        for k, v in _LATIN_EXTRA.items():
            c = chr(k)
            if c in t:
                t = t.replace(c, v)
        t = unicodedata.normalize("NFKD", t).encode("ascii", "ignore").decode("ascii")
    return t


@lru_cache(maxsize=4096)
def _inert(ch: str) -> bool:
    """Whether a non-ASCII character can never be part of a word: punctuation, a separator or
    a symbol whose NFKC form has no letter or digit (``—``, ``’``, ``©``, no-break space; not
    ``™``, which NFKC makes ``TM``)."""
    return unicodedata.category(ch)[0] in "PZS" and \
        not any(c.isalnum() for c in unicodedata.normalize("NFKC", ch))


def _spaced_out(text: str) -> str:
    """``text`` with its non-ASCII characters replaced by spaces when every one of them is
    :func:`_inert`: the analysis then takes its ASCII path (one regular expression) instead of
    its per-word one, with the same tokens (an English page's curly quotes and dashes would
    otherwise make its text ~8x slower to tokenise); other texts unchanged."""
    if text.isascii():
        return text
    # the distinct non-ASCII characters, found by a C-level scan and looked at once each;
    # the first that is not inert settles it (an English page's few quotes and dashes, or a
    # Russian page's first letter), instead of hashing every character of the text
    odd: set[str] = set()
    for m in _NON_ASCII.finditer(text):
        c = m.group()
        if c not in odd:
            if not _inert(c):
                return text
            odd.add(c)
    # one C-level replace per distinct character (a handful): ``str.translate`` with a dict
    # looks every character of the text up in it, ten times slower on a 20,000-character text
    for c in odd:
        text = text.replace(c, " ")
    return text


def tokenize(text: str) -> list[str]:
    """Terms of ``text`` in order for the paper's method (module doc): word tokens without
    stop words.

    >>> tokenize("Reply to this POST - posted 2 days ago in the Forum")
    ['reply', 'post', 'posted', 'days', 'ago', 'forum']
    >>> tokenize("Это новости дня. 北京是首都")
    ['новости', 'дня', '北京', '京是', '是首', '首都']
    """
    if not text:
        return []
    low = text.lower()
    if text.isascii():  # English and every other ASCII text: exactly the original terms
        english = _english_stop()
        return [t for t in _TOKEN.findall(low) if t not in english]
    stop = _stop_words(_language(text))
    english = _english_stop()
    out: list[str] = []
    for k, part in enumerate(_unspaced_runs().split(low)):
        if k % 2:  # an unspaced run (the split's captured group): character bigrams
            out.extend(words(part))
        else:
            out.extend(t for t in _TOKEN.findall(part)
                       if t not in english and _unmarked(t.casefold()) not in stop)
    return out


def _language(text: str) -> str | None:
    from webseg.lang import identify

    return identify(text[:2000]).code


@lru_cache(maxsize=64)
def _stop_words(lang: str | None) -> frozenset[str]:
    """The stop words of ``lang`` (the project's lists, :func:`ir.analysis.stopwords_for`)
    plus those of the scripts they cannot be confused with (Russian for Cyrillic words,
    Greek for Greek), all without accents: a page's words are tested accent-free."""
    from ir.analysis import stopwords_for

    out = set(stopwords_for(lang))
    for other in ("ru", "el"):
        out |= stopwords_for(other)
    return frozenset(_unmarked(w) for w in out)


def _unmarked(w: str) -> str:
    """``w`` without combining marks (accents), for stop-word tests only."""
    if w.isascii():
        return w
    d = unicodedata.normalize("NFD", w)
    return "".join(c for c in d if not unicodedata.combining(c))


@lru_cache(maxsize=1)
def _unspaced_runs() -> Any:
    import regex

    return regex.compile(r"([\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\p{Thai}\p{Lao}"
                         r"\p{Khmer}\p{Myanmar}\u30fc]+)")


def term_counts(text: str) -> Counter[str]:
    """Term frequencies of ``text`` (:func:`tokenize`)."""
    return Counter(tokenize(text))
