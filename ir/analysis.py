"""Text analysis: the one place that turns text into index terms.

Both backends index the *output* of :class:`Analyzer` (the Lucene backend stores pre-tokenised
text and queries with a whitespace analyzer), so tokenisation, stop words and stemming are
identical across backends by construction; only the ranking formula differs.

English (any Latin-script token, by default) is analysed exactly as before every script was
supported, following the shared data's BM25 sanity check (``../shared/data/ir/README.md``):
lower case, accents folded to ASCII, ``[a-z0-9]+`` tokens, NLTK's English stop words, stemming
``porter`` (Porter 1980, the algorithm Lucene's ``PorterStemFilter`` implements) through
PyStemmer, or ``none``. An ASCII text takes that path unchanged, so English collections
(cacm, cranfield, med) get the same terms, token for token (``tests/test_analysis_scripts.py``).

Every other script (``scheme="unicode"``, the default for new indexes):

* the text is NFKC-normalised (full-width Latin and half-width kana become ordinary letters)
  and split into runs of letters, digits and combining marks of one script
  (:data:`_RUNS`, through the ``regex`` module's Unicode script properties);
* Chinese, Japanese and Korean runs (Han, Hiragana, Katakana, Hangul) become overlapping
  character bigrams, a lone character a unigram, as Lucene's ``CJKAnalyzer`` does; Thai,
  Lao, Khmer and Myanmar runs too (ICU word breaks would be better there, but PyICU has no
  wheel on PyPI, so it cannot be a dependency); traditional Chinese is converted to
  simplified first (OpenCC ``t2s``), so the two spellings match;
* a run of another script is case-folded and analysed in the language its script names
  (:data:`SCRIPT_LANGUAGE`: Cyrillic -> Russian, Greek -> Greek, Arabic -> Arabic, ...): that
  language's stop words (the ``stop-words`` package, :func:`stopwords_for`) and Snowball
  stemmer (PyStemmer);
  Greek, Arabic and Hebrew lose their accents/vowel points first, as Lucene's Greek and Arabic
  normalisers do;
* Latin runs are analysed in the ``latin`` language: ``en`` (default) as above; another
  Snowball language (``Analyzer(latin="de")``, for a collection in that language) with its stop
  words and stemmer, the stem then folded to ASCII.

Why the script and not the page's detected language chooses the analysis: a query has to be
analysed the same way as the pages it should find, and a 4-word query's language cannot be
identified reliably (``python -m eval.multilingual.langid``: 59% of 20-character snippets get
no confident answer). The script of a word is certain, and within one script the analysis is
fixed, so a query matches every language in the index with no detection at all, and an
English collection's terms cannot change because a detector was unsure about a title.

``scheme="ascii"`` is the analysis of indexes made before (their stored analyzer config has no
``scheme`` key, :meth:`Analyzer.from_dict`): ``[a-z0-9]+`` after ASCII folding, every other
script dropped. Such indexes keep working exactly as they were; rebuild them (``webseg index
--overwrite``) to make non-Latin text searchable.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from typing import Any

try:  # the counting loop of collections.Counter, in C (CPython); a plain loop elsewhere
    from collections import _count_elements  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - other Python implementations
    def _count_elements(mapping: dict[str, int], iterable: Iterable[str]) -> None:
        get = mapping.get
        for t in iterable:
            mapping[t] = get(t, 0) + 1

from webseg._native import load as load_native

__all__ = ["NLTK_ENGLISH", "LUCENE_ENGLISH", "SCHEMES", "SCRIPT_LANGUAGE", "SNOWBALL",
           "Analyzer", "float_counts", "stemmer_available", "stopwords_for", "term_counts"]


def term_counts(tokens: Iterable[str]) -> dict[str, int]:
    """``dict(Counter(tokens))`` without building the :class:`~collections.Counter`: the same
    counts in the same first-occurrence order, through the C helper ``Counter`` itself uses
    (a page counts the terms of hundreds of blocks and leaves; the ``Counter`` around each
    cost more than the counting)."""
    counts: dict[str, int] = {}
    _count_elements(counts, tokens)
    return counts


def float_counts(tokens: Iterable[str]) -> dict[str, float]:
    """:func:`term_counts` as floats (a field's soft counts), in first-occurrence order."""
    if type(tokens) is list:  # a leaf's tokens: mostly all distinct, each counted once
        once = dict.fromkeys(tokens, 1.0)
        if len(once) == len(tokens):
            return once
    counts: dict[str, int] = {}
    _count_elements(counts, tokens)
    return dict(zip(counts, map(float, counts.values()), strict=True))


def _words(s: str) -> list[str]:
    return s.split()


#: NLTK's English stop-word list (nltk.corpus.stopwords.words("english"), 179 words), the list
#: the shared data's BM25 sanity numbers were computed with. Embedded so NLTK is not needed.
NLTK_ENGLISH = frozenset(_words("""
i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself
yourselves he him his himself she she's her hers herself it it's its itself they them their
theirs themselves what which who whom this that that'll these those am is are was were be been
being have has had having do does did doing a an the and but if or because as until while of at
by for with about against between into through during before after above below to from up down
in out on off over under again further then once here there when where why how all any both each
few more most other some such no nor not only own same so than too very s t can will just don
don't should should've now d ll m o re ve y ain aren aren't couldn couldn't didn didn't doesn
doesn't hadn hadn't hasn hasn't haven haven't isn isn't ma mightn mightn't mustn mustn't needn
needn't shan shan't shouldn shouldn't wasn wasn't weren weren't won won't wouldn wouldn't
"""))

#: Lucene's EnglishAnalyzer default stop set (33 words), for comparison runs.
LUCENE_ENGLISH = frozenset(_words("""
a an and are as at be but by for if in into is it no not of on or such that the their then there
these they this to was will with
"""))

_STOPSETS = {"nltk": NLTK_ENGLISH, "lucene": LUCENE_ENGLISH, "none": frozenset()}
_TOKEN = re.compile(r"[a-z0-9]+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")

#: ``unicode``: every script (default); ``ascii``: Latin only, the analysis of older indexes.
SCHEMES = ("unicode", "ascii")

#: ISO 639-1 code -> PyStemmer (Snowball) algorithm name.
SNOWBALL = {"ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "cs": "czech",
            "da": "danish", "nl": "dutch", "en": "english", "eo": "esperanto",
            "et": "estonian", "fi": "finnish", "fr": "french", "de": "german", "el": "greek",
            "hi": "hindi", "hu": "hungarian", "id": "indonesian", "ga": "irish",
            "it": "italian", "lt": "lithuanian", "ne": "nepali", "no": "norwegian",
            "fa": "persian", "pl": "polish", "pt": "portuguese", "ro": "romanian",
            "ru": "russian", "sr": "serbian", "st": "sesotho", "es": "spanish",
            "sv": "swedish", "ta": "tamil", "tr": "turkish", "yi": "yiddish"}

#: The language a run of a (non-Latin, non-CJK) script is analysed in. A script missing here
#: is case-folded only (no stop words, no stemming).
SCRIPT_LANGUAGE = {"Cyrillic": "ru", "Greek": "el", "Arabic": "ar", "Armenian": "hy",
                   "Devanagari": "hi", "Tamil": "ta", "Hebrew": "he"}

#: Languages whose accents / vowel points (combining marks) are removed before stemming.
_STRIP_MARKS = frozenset({"el", "ar", "he"})

_UNSPACED = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\u30fc\uff70"
_SEA = r"\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}"
_RUNS_SRC = (rf"(?P<cjk>[{_UNSPACED}]+)"
             rf"|(?P<sea>[{_SEA}]+)"
             r"|(?P<latin>[\p{Latin}\p{Nd}][\p{Latin}\p{Nd}\p{M}]*)"
             rf"|(?P<other>[[\p{{L}}\p{{N}}]--[\p{{Latin}}\p{{Nd}}{_UNSPACED}{_SEA}]]"
             rf"[[\p{{L}}\p{{N}}\p{{M}}]--[\p{{Latin}}\p{{Nd}}{_UNSPACED}{_SEA}]]*)")

#: Letters NFKD does not decompose that ASCII folding should still keep (Lucene's
#: ASCIIFoldingFilter maps them the same way); ß is handled by case folding (-> ss).
_LATIN_EXTRA = str.maketrans({"ł": "l", "ø": "o", "æ": "ae", "œ": "oe", "đ": "d", "ð": "d",
                              "þ": "th", "ı": "i", "ħ": "h", "ŧ": "t", "ŀ": "l"})


def stemmer_available(name: str) -> bool:
    """Whether the stemmer ``name`` can be built here (``none`` always can)."""
    try:
        _stemmer(name)
    except (ImportError, ValueError):
        return False
    return True


@lru_cache(maxsize=64)
def _stemmer(name: str) -> Callable[[str], str] | None:
    if name == "none":
        return None
    import Stemmer  # PyStemmer (Snowball C implementation); 'english' is Porter2

    if name not in ("porter", "english") and name not in SNOWBALL.values():
        raise ValueError(f"unknown stemmer {name!r}: use none, porter or english")
    if name not in Stemmer.algorithms():
        raise ValueError(f"stemmer {name!r} is not in this PyStemmer ({Stemmer.version()})")

    st = Stemmer.Stemmer(name)
    cache: dict[str, str] = {}

    def stem(w: str) -> str:
        s = cache.get(w)
        if s is None:
            s = cache[w] = st.stemWord(w)
        return s

    return stem


def _strip_marks(w: str) -> str:
    """``w`` without combining marks (Greek tonos, Arabic harakat, Hebrew niqqud)."""
    d = unicodedata.normalize("NFD", w)
    return unicodedata.normalize("NFC", "".join(c for c in d if not unicodedata.combining(c)))


def _normal(w: str, lang: str | None) -> str:
    """Case-folded form of a word of ``lang`` before stop words and stemming."""
    w = w.casefold()
    return _strip_marks(w) if lang in _STRIP_MARKS else w


@lru_cache(maxsize=64)
def stopwords_for(lang: str | None) -> frozenset[str]:
    """The ``stop-words`` package's list for ``lang`` (ISO 639-1), normalised as
    :func:`_normal` does; empty for a language it has no list for. (English uses NLTK's list,
    see :class:`Analyzer`.)

    Why this package: its lists are moderate (Russian 421 words, Polish 335, Greek 74).
    stopwords-iso, the larger collection, puts content words in them (its Russian list has
    "москва" and "россия"), which would make a page about Moscow unfindable by that word.
    """
    if not lang or lang in ("zh", "ja", "ko"):  # unspaced scripts are bigrams, not words
        return frozenset()
    from stop_words import LANGUAGE_MAPPING, get_stop_words

    if lang not in LANGUAGE_MAPPING:
        return frozenset()
    return frozenset(_normal(unicodedata.normalize("NFKC", w), lang)
                     for w in get_stop_words(lang))


def _language_stemmer(lang: str | None) -> Callable[[str], str] | None:
    """The Snowball stemmer of ``lang``, or None (no such stemmer in this PyStemmer)."""
    name = SNOWBALL.get(lang or "")
    if name is None or not stemmer_available(name):
        return None
    return _stemmer(name)


#: Latin runs (and English tokens) whose terms are remembered per analyzer: a page repeats
#: its words; a memo is emptied when full, so memory stays bounded on any collection.
_LATIN_MEMO_SIZE = 200_000
_UNSEEN = object()


def _word_memo(an: Analyzer) -> dict[str, str | None]:
    """The memo of English tokens -> terms (None: dropped) of one analyzer: one dictionary
    look-up per token instead of the stop list, the length test and the stemmer's own cache.
    Kept on the instance (hashing the dataclass for a global table cost more than it saved)."""
    memo = an.__dict__.get("_word_memo")
    if memo is None:
        memo = {}
        object.__setattr__(an, "_word_memo", memo)
    return memo


def _word_miss(an: Analyzer) -> Callable[[str], str | None]:
    """What the compiled token loop (:mod:`webseg._native.asciiwords`) calls for a token not
    in :func:`_word_memo`: its term, stored in the memo as the Python loop stores it (the memo
    emptied when full). One function per analyzer, made once."""
    miss = an.__dict__.get("_word_miss_memo")
    if miss is None:
        memo = _word_memo(an)
        # Analyzer._english_word with the analyzer's (frozen) settings looked up once
        stop, limit, stem = _STOPSETS[an.stopwords], an.max_token_len, _stemmer(an.stemmer)

        def miss(t: str) -> str | None:
            w = None if t in stop or len(t) > limit else stem(t) if stem else t
            if len(memo) >= _LATIN_MEMO_SIZE:
                memo.clear()
            memo[t] = w
            return w

        object.__setattr__(an, "_word_miss_memo", miss)
    return miss


def _latin_memo(an: Analyzer) -> dict[str, list[str]]:
    """The memo of Latin runs -> terms of one analyzer (the lists it holds are never handed
    out: callers extend their own lists from them)."""
    memo = an.__dict__.get("_latin_memo")
    if memo is None:
        memo = {}
        object.__setattr__(an, "_latin_memo", memo)
    return memo


def _other_memo(an: Analyzer) -> dict[str, str | None]:
    """The memo of runs of other scripts (Cyrillic, Greek...) -> term (None: dropped) of one
    analyzer, bounded like :func:`_latin_memo`: each such run is one word, and a page
    repeats its words."""
    memo = an.__dict__.get("_other_memo")
    if memo is None:
        memo = {}
        object.__setattr__(an, "_other_memo", memo)
    return memo


@lru_cache(maxsize=1)
def _wordy_non_ascii() -> Any:
    """A non-ASCII letter, digit or mark: a character that can be (part of) a word other
    than an ASCII one, so the text needs the script-run analysis."""
    import regex

    return regex.compile(r"[[\p{L}\p{N}\p{M}]--[\x00-\x7f]]", regex.V1)


#: What :func:`_separators` holds for a code point: not decided yet, a separator, not one.
_UNKNOWN, _SEPARATOR, _NOT_SEPARATOR = 0, 1, 2


@lru_cache(maxsize=1)
def _separators() -> bytearray:
    """Per code point, whether the character is a mere separator for the English analysis
    (:func:`_separator`), decided the first time a text has it: the table the compiled token
    loop reads (:mod:`webseg._native.asciiwords`), 1.1 MB."""
    return bytearray(sys.maxunicode + 1)


def _separator(ch: str) -> bool:
    """Whether the non-ASCII character ``ch`` only separates words in the English analysis
    of a text (:meth:`Analyzer._unicode_tokens`, ``latin="en"``), wherever it stands: then
    a text whose every non-ASCII character is one has the ``[a-z0-9]+`` tokens of the text
    lower-cased, read as ASCII (curly quotes, dashes, no-break spaces, ©, emoji).

    It is when its NFKC form has no letter, digit or mark (the text then takes the English
    path, not the script runs), lower-cases to no ``[a-z0-9]`` (™ -> "TM" makes a token, ² ->
    "2" too) and holds only characters of combining class 0 that are no letter or mark:
    such a character neither composes with nor reorders around its neighbours (every
    character that is the second of a canonical composition is a mark or a Hangul jamo
    letter), so NFKC of the text is NFKC of its pieces, and each such piece is a separator."""
    n = unicodedata.normalize("NFKC", ch)
    return (_wordy_non_ascii().search(n) is None and _TOKEN.search(n.lower()) is None
            and all(unicodedata.combining(c) == 0 and unicodedata.category(c)[0] not in "LMN"
                    for c in n if not c.isascii()))


def _separated_words(an: Analyzer, native: Any, texts: list[str]) -> list[list[str] | None]:
    """``native.words_many`` of ``texts`` with the separator table (:func:`_separators`):
    the tokens of each ASCII text and of each text whose non-ASCII characters are all
    separators, None for the others. A character the table does not know yet is decided
    (:func:`_separator`) and its text asked again."""
    table = _separators()
    memo, miss = _word_memo(an), _word_miss(an)
    got = native.words_many(texts, memo, miss, table)
    for k, g in enumerate(got):
        while type(g) is int:
            if g >= len(table) or table[g] != _UNKNOWN:  # nothing left to decide
                g = None
                break
            table[g] = _SEPARATOR if _separator(chr(g)) else _NOT_SEPARATOR
            g = native.words_many([texts[k]], memo, miss, table)[0]
        got[k] = g
    return got


@lru_cache(maxsize=1)
def _runs() -> Any:
    import regex

    return regex.compile(_RUNS_SRC, regex.V1)


@lru_cache(maxsize=4096)
def _script_language(ch: str) -> str | None:
    import regex

    for script, lang in SCRIPT_LANGUAGE.items():
        if regex.match(rf"\p{{{script}}}", ch):
            return lang
    return None


def _fold_ascii(w: str) -> str:
    """Accents folded away, as the English analysis always did (café -> cafe, łódź -> lodz)."""
    if w.isascii():
        return w
    w = w.translate(_LATIN_EXTRA)
    if not w.isascii() and any(c.isdecimal() and not c.isascii() for c in w):
        w = "".join(str(unicodedata.decimal(c)) if c.isdecimal() and not c.isascii() else c
                    for c in w)  # ٢٠١٢ -> 2012
    return unicodedata.normalize("NFKD", w).encode("ascii", "ignore").decode("ascii")


@lru_cache(maxsize=1)
def _t2s() -> Any:
    import opencc  # OpenCC: the reference converter, its dictionaries inside the wheel

    return opencc.OpenCC("t2s")


def _to_simplified(run: str) -> str:
    """Traditional Chinese mapped to simplified (OpenCC ``t2s``, phrase-aware), so a page in
    one spelling is found by a query in the other. A run with no Han character is returned
    as is (kana, Hangul)."""
    if all(c < "\u3400" or c >= "\uac00" for c in run):  # kana / Hangul only: nothing to map
        return run
    return _t2s().convert(run)


def _bigrams(run: str) -> list[str]:
    """Overlapping character bigrams of an unspaced run (a lone character stays a unigram)."""
    if len(run) == 1:
        return [run]
    return [run[i:i + 2] for i in range(len(run) - 1)]


@dataclass(frozen=True)
class Analyzer:
    """Text to index terms, every script (module doc for the rules).

    ``stopwords``: the English list, ``nltk`` (default), ``lucene`` or ``none`` (``none`` also
    turns off the other languages' lists). ``stemmer``: the English stemmer, ``porter``
    (default), ``english`` (Porter2/Snowball) or ``none`` (``none`` also turns off the other
    languages' stemmers). ``max_token_len`` drops longer tokens (base64 blobs, URLs glued
    together) that would only bloat the vocabulary. ``scheme``: ``unicode`` (every script) or
    ``ascii`` (the older Latin-only analysis). ``latin``: the language of Latin-script words,
    ``en`` (default) or any key of :data:`SNOWBALL`. ``t2s``: traditional Chinese converted
    to simplified (default), so the two spellings match. ``surface_t2s``: whether the
    :meth:`unstemmed` twin (an index's surface field of exact forms) converts too; by default
    it keeps each page's own spelling, so a query written as the page is written ranks it above
    a converted copy in the other spelling (the stemmed terms still match both).
    """

    stopwords: str = "nltk"
    stemmer: str = "porter"
    max_token_len: int = 64
    scheme: str = "unicode"
    latin: str = "en"
    t2s: bool = True
    surface_t2s: bool = False

    def __post_init__(self) -> None:
        if self.stopwords not in _STOPSETS:
            raise ValueError(f"unknown stop-word list {self.stopwords!r}: "
                             f"use one of {sorted(_STOPSETS)}")
        if self.scheme not in SCHEMES:
            raise ValueError(f"unknown analysis scheme {self.scheme!r}: use one of {SCHEMES}")
        if self.latin != "en" and self.latin not in SNOWBALL:
            raise ValueError(f"unknown language for Latin-script words {self.latin!r}: "
                             f"use one of {sorted(SNOWBALL)}")
        if not isinstance(self.t2s, bool) or not isinstance(self.surface_t2s, bool):
            raise ValueError("t2s and surface_t2s must be true or false")
        if self.stemmer not in ("none", "porter", "english"):
            raise ValueError(f"unknown stemmer {self.stemmer!r}: use none, porter or english "
                             "(other languages' stemmers follow their script, or latin=...)")
        _stemmer(self.stemmer)  # fail now, not at the first document
        # the script-run pattern is compiled on the first text that needs it (0.24 s of CPU:
        # the whole cost of a process that indexes only ASCII text would be this)

    def tokens(self, text: str) -> list[str]:
        """Index terms of ``text`` in order (repeats kept)."""
        if not text:
            return []
        if text.isascii() and (self.latin == "en" or self.scheme == "ascii"):
            # the compiled loop straight away once the memos exist (a page analyses
            # hundreds of short texts: the calls in between cost more than their words)
            native = load_native("asciiwords")
            d = self.__dict__
            memo, miss = d.get("_word_memo"), d.get("_word_miss_memo")
            if native is not None and memo is not None and miss is not None:
                return native.words(text, memo, miss, True)
            return self._ascii_tokens(text)
        if self.scheme == "ascii":
            return self._ascii_tokens(text)
        return self._unicode_tokens(text)

    def tokens_many(self, texts: list[str]) -> list[list[str]]:
        """``[self.tokens(t) for t in texts]``, with the ASCII texts analysed in one call of
        the compiled loop (:mod:`webseg._native.asciiwords`) when it is built: a page's
        leaves are hundreds of short texts, where the calls cost more than the words."""
        native = (load_native("asciiwords") if self.scheme == "ascii" or self.latin == "en"
                  else None)
        if native is None:
            return [self.tokens(t) for t in texts]
        got = (_separated_words(self, native, texts)
               if self.scheme == "unicode" and self.latin == "en"
               and getattr(native, "SEPARATOR_TABLE", 0)
               else native.words_many(texts, _word_memo(self), _word_miss(self)))
        tokens = self.tokens
        return [tokens(t) if g is None else g for g, t in zip(got, texts, strict=True)]

    def _ascii_tokens(self, text: str) -> list[str]:
        """The English analysis: fold to ASCII, ``[a-z0-9]+``, stop words, stem."""
        if text.isascii():
            native = load_native("asciiwords")
            if native is not None:  # lower-cases as it scans: no copy of the text
                return native.words(text, _word_memo(self), _word_miss(self), True)
        low = text.lower()
        if not low.isascii():  # fold accents: café -> cafe, as Lucene's ASCIIFolding would
            low = unicodedata.normalize("NFKD", low).encode("ascii", "ignore").decode("ascii")
        return self._english_words(low)

    def _english_words(self, low: str) -> list[str]:
        """``[a-z0-9]+`` tokens of lower-cased ``low``, stop words and long tokens dropped,
        stemmed."""
        memo = _word_memo(self)
        native = load_native("asciiwords")
        if native is not None:  # the same loop, compiled (webseg/_native/asciiwords.c)
            return native.words(low, memo, _word_miss(self), False)
        out = []
        for t in _TOKEN.findall(low):
            w = memo.get(t, _UNSEEN)
            if w is _UNSEEN:
                w = self._english_word(t)
                if len(memo) >= _LATIN_MEMO_SIZE:
                    memo.clear()
                memo[t] = w
            if w is not None:
                out.append(w)
        return out

    def _english_word(self, t: str) -> str | None:
        """The term of one ``[a-z0-9]+`` token: None for a stop word or a too long token,
        else its stem."""
        if t in _STOPSETS[self.stopwords] or len(t) > self.max_token_len:
            return None
        stem = _stemmer(self.stemmer)
        return stem(t) if stem else t

    def _unicode_tokens(self, text: str) -> list[str]:
        """Every script: NFKC, script runs, then each run analysed by its script."""
        if self.latin == "en":  # English text with typographic punctuation: as ASCII text
            native = load_native("asciiwords")
            if native is not None and getattr(native, "SEPARATOR_TABLE", 0):
                got = _separated_words(self, native, [text])[0]
                if got is not None:
                    return got
        text = unicodedata.normalize("NFKC", text)
        # the word characters sought are non-ASCII: searched among those alone (a curly quote
        # in a long paragraph otherwise costs a scan of the whole paragraph)
        if self.latin == "en" and _wordy_non_ascii().search(
                "".join(_NON_ASCII.findall(text))) is None:
            # Only ASCII letters and digits make words here (the other characters are
            # punctuation, spaces, symbols: curly quotes, dashes, no-break spaces): every run
            # is an ASCII ``latin`` run, one ``[a-z0-9]+`` token each, so the English path over
            # the whole text gives the same terms in the same order, five times faster.
            return self._english_words(text.lower())
        out: list[str] = []
        latin = _latin_memo(self)
        words = _other_memo(self)
        # one tuple of the four groups per run, exactly one of them matched (not empty)
        for cjk, sea, run, word in _runs().findall(text):
            if run:  # Latin
                got = latin.get(run)
                if got is None:
                    got = self._latin(run)
                    if len(latin) >= _LATIN_MEMO_SIZE:
                        latin.clear()
                    latin[run] = got
                out += got
            elif word:  # another script's word
                w = words.get(word, _UNSEEN)
                if w is _UNSEEN:
                    w = self._other(word)
                    if len(words) >= _LATIN_MEMO_SIZE:
                        words.clear()
                    words[word] = w
                if w is not None:
                    out.append(w)
            elif cjk:
                run = cjk.casefold()
                out += _bigrams(_to_simplified(run) if self.t2s else run)
            else:
                out += _bigrams(sea)
        return out

    def _other(self, run: str) -> str | None:
        """The term of a run of another script (Cyrillic, Greek, Arabic...): analysed in
        the language its script names; None for a stop word or a too long word."""
        lang = _script_language(run[0])
        w = _normal(run, lang)
        if len(w) > self.max_token_len or (self.stopwords != "none"
                                           and w in stopwords_for(lang)):
            return None
        stem = _language_stemmer(lang) if self.stemmer != "none" else None
        return stem(w) if stem else w

    def _latin(self, run: str) -> list[str]:
        """A Latin-script run: the English analysis, or the ``latin`` language's."""
        if self.latin == "en":
            folded = _fold_ascii(run.casefold())
            stop = _STOPSETS[self.stopwords]
            stem = _stemmer(self.stemmer)
            return [stem(t) if stem else t for t in _TOKEN.findall(folded)
                    if t not in stop and len(t) <= self.max_token_len]
        w = _normal(run, self.latin)
        if len(w) > self.max_token_len:
            return []
        if self.stopwords != "none" and (w in stopwords_for(self.latin)
                                         or _fold_ascii(w) in stopwords_for(self.latin)):
            return []
        stem = _language_stemmer(self.latin) if self.stemmer != "none" else None
        return [t for t in _TOKEN.findall(_fold_ascii(stem(w) if stem else w))]

    def unstemmed(self) -> Analyzer:
        """This analyzer without stemming (same tokens, case folding and stop words) and,
        unless ``surface_t2s``, without converting traditional Chinese: the exact word forms
        of an index's surface field. The same object on every call, so its memos of analysed
        words last from one document to the next."""
        if self.stemmer == "none" and self.t2s == self.surface_t2s:
            return self
        twin = self.__dict__.get("_unstemmed_memo")
        if twin is None:
            twin = replace(self, stemmer="none", t2s=self.surface_t2s)
            object.__setattr__(self, "_unstemmed_memo", twin)
        return twin

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (Spark ships analyzers to executors) without the memos."""
        return {k: v for k, v in self.__dict__.items() if not k.endswith("_memo")}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Analyzer:
        """The analyzer an index was built with. A config without ``scheme`` comes from an
        index made before every script was analysed: it keeps its ``ascii`` analysis; one
        without ``surface_t2s``, from before the surface field kept Chinese as written: its
        surface terms were converted, so its queries' are too."""
        kw = {k: d[k] for k in ("stopwords", "stemmer", "max_token_len", "scheme", "latin",
                                "t2s", "surface_t2s") if k in d}
        kw.setdefault("scheme", "ascii")
        kw.setdefault("surface_t2s", True)
        return cls(**kw)
