"""The default page-type model: one linear model per view, stacked under a second-level model.

Each *view* of a page (:func:`classify.pagefeatures.page_views`) has its own representation and
its own multinomial logistic regression:

=========  ====================================================================
view       representation
=========  ====================================================================
``text``   TF-IDF of words and word bigrams of the visible text (sublinear tf)
``chars``  TF-IDF of character 3-5-grams (inside words) of the first 3,000 characters of
           text: morphology of any language, no tokeniser needed
``title``  TF-IDF of title + h1-h3 words and bigrams
``url``    TF-IDF of URL path tokens (digits as ``0`` shapes) and bigrams
``dom``    TF-IDF of markup tokens (tags, class / id / role / name words, input types)
``head``   TF-IDF of structured-metadata tokens (og:type, JSON-LD @type, itemtype, meta names)
``struct`` standardised structure counts (:data:`classify.pagefeatures.STRUCT_NAMES`)
``blocks`` shares of text per block-function role (:mod:`webseg.blocks`), when available
``wps``    TF-IDF of the paper's WPS in-segment position texts, words tagged by position
=========  ====================================================================

Stacking (Wolpert 1992): the base models' decision values on *out-of-fold* pages (inner
K-fold **grouped by site**, so a site's template never predicts its own pages) plus the raw
structure counts are the inputs of the stacker, which learns which view to trust for which
type: a multinomial logistic regression (``stacker="lr"``) or gradient-boosted trees
(:class:`~sklearn.ensemble.HistGradientBoostingClassifier`, ``stacker="gbdt"``, which can also
use interactions of counts), each also with balanced class weights (``"lr-bal"``,
``"gbdt-bal"``: the rare types weigh as much as ``article``); by default (``"auto"``) the
inner CV picks one of the four (:func:`inner_score`: mean of accuracy and macro-F1).
Each base model's regularisation ``C`` is chosen from a small grid
by the same inner CV (accuracy), so nothing is tuned on the pages a caller evaluates on.
Finally a temperature ``T`` for the stacker's logits is fitted on its own out-of-fold outputs
(calibration: ``predict_proba`` gives probabilities that mean what they say).

Serialisation is JSON only: vocabularies + IDF weights, LR coefficients, and every tree's nodes
(:func:`_trees_to_dict`); prediction re-implements the tree walk in numpy, so a model never
unpickles anything and does not depend on scikit-learn's private tree classes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import chain, repeat
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import scipy.sparse as sp

from classify.pagefeatures import STRUCT_NAMES
from webseg import _native as native

# scikit-learn is imported where a model is trained (and for an analyzer the fast path does
# not cover), not at module level: a shipped model predicts with numpy alone, and importing
# scikit-learn costs about 1.3 CPU s, paid by every process that classifies pages

__all__ = ["ALL_VIEWS", "DEFAULT_VIEWS", "STACKERS", "StackedModel", "VIEW_SPECS", "sklearn_params",
           "wps_doc"]

_WORDS = r"(?u)\b\w\w+\b"
#: view -> (field of page_views, TfidfVectorizer parameters); ``None`` = dense view.
#: ``"tokens": "words"`` (our key, not scikit-learn's): words of every script from
#: :func:`classify.text.words` (unspaced scripts as character bigrams), where the earlier
#: ``token_pattern`` ``\w\w+`` made a whole Chinese clause one token; models saved with a
#: ``token_pattern`` keep it, so they predict exactly as they were trained
VIEW_SPECS: dict[str, tuple[str, dict[str, Any] | None]] = {
    "text": ("text", {"tokens": "words", "ngram_range": (1, 2), "min_df": 2,
                      "max_features": 60_000, "sublinear_tf": True, "dtype": np.float32}),
    "chars": ("text", {"analyzer": "char_wb", "ngram_range": (3, 5), "min_df": 3,
                       "max_features": 60_000, "sublinear_tf": True, "dtype": np.float32}),
    "title": ("title", {"tokens": "words", "ngram_range": (1, 2), "min_df": 2,
                        "max_features": 20_000, "sublinear_tf": True, "dtype": np.float32}),
    "url": ("url", {"token_pattern": r"\S+", "ngram_range": (1, 2), "min_df": 2,
                    "max_features": 20_000, "sublinear_tf": True, "dtype": np.float32}),
    "dom": ("dom", {"token_pattern": r"\S+", "ngram_range": (1, 1), "min_df": 2,
                    "max_features": 30_000, "sublinear_tf": True, "dtype": np.float32}),
    "head": ("head", {"token_pattern": r"\S+", "ngram_range": (1, 1), "min_df": 2,
                      "max_features": 5_000, "sublinear_tf": True, "dtype": np.float32}),
    "struct": ("struct", None),
    "blocks": ("blocks", None),
    # the paper's WPS in-segment position texts as position-tagged words (``wps_doc``)
    "wps": ("wps", {"token_pattern": r"\S+", "ngram_range": (1, 1), "min_df": 2,
                    "max_features": 40_000, "sublinear_tf": True, "dtype": np.float32}),
}
ALL_VIEWS = tuple(VIEW_SPECS)
#: what the shipped model uses: every view available without WPS or block functions, except
#: ``chars`` (the slowest view to compute and predict, and the weakest text view in the inner
#: CV of the first outer fold; available with ``--views``)
DEFAULT_VIEWS = ("text", "title", "url", "dom", "head", "struct")
CHARS_TEXT = 3000
C_GRID = (0.1, 0.5, 2.0)
#: stacker kinds ``"auto"`` chooses among: logistic regression / boosted trees, each with or
#: without balanced class weights (rare types count as much as ``article`` in the loss)
STACKERS = ("lr", "gbdt", "lr-bal", "gbdt-bal")


def wps_doc(texts: Sequence[str]) -> str:
    """The ``wps`` view of a page: its WPS position texts (:func:`classify.views.position_texts`,
    10 positions) as words tagged with their position index (``3:price``), so one linear model
    learns a weight per (position, word), as the paper's TF-ISF does; words of every script
    (:func:`classify.text.words`)."""
    from classify.text import words

    return " ".join(f"{k}:{w}" for k, t in enumerate(texts or ()) for w in words(t or ""))


def inner_score(y: np.ndarray, pred: np.ndarray) -> float:
    """What the inner CV maximises when it chooses the stacker: the mean of accuracy and
    macro-F1 (the two targets; macro-F1 alone would trade the majority type away)."""
    from sklearn.metrics import f1_score

    return 0.5 * (float(np.mean(y == pred)) + float(f1_score(y, pred, average="macro")))


def _field(views: dict[str, Any], view: str) -> Any:
    f = VIEW_SPECS[view][0]
    v = views.get(f, "" if VIEW_SPECS[view][1] is not None else {})
    if view == "chars":
        v = v[:CHARS_TEXT]
    return v


# ---------------------------------------------------------------------- base models
@dataclass
class _Dense:
    """Standardiser for a dict-valued view (names fixed at fit time)."""

    names: list[str]
    mean: np.ndarray = field(default_factory=lambda: np.zeros(0))
    scale: np.ndarray = field(default_factory=lambda: np.ones(0))

    def raw(self, docs: Sequence[dict[str, float]]) -> np.ndarray:
        return np.array([[float(d.get(n, 0.0)) for n in self.names] for d in docs],
                        dtype=np.float64).reshape(len(docs), len(self.names))

    def fit(self, docs: Sequence[dict[str, float]]) -> _Dense:
        X = self.raw(docs)
        self.mean = X.mean(axis=0)
        sd = X.std(axis=0)
        self.scale = np.where(sd > 1e-9, sd, 1.0)
        return self

    def transform(self, docs: Sequence[dict[str, float]]) -> np.ndarray:
        return (self.raw(docs) - self.mean) / self.scale

    def to_dict(self) -> dict[str, Any]:
        return {"names": self.names, "mean": self.mean.round(6).tolist(),
                "scale": self.scale.round(6).tolist()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> _Dense:
        return cls(list(d["names"]), np.asarray(d["mean"]), np.asarray(d["scale"]))


def _dense_names(view: str, docs: Sequence[dict[str, float]]) -> list[str]:
    if view == "struct":
        return list(STRUCT_NAMES)
    return sorted({k for d in docs for k in d})


class _Vec:
    """TF-IDF vectoriser whose fitted state is a vocabulary list and an IDF array.

    Fitted either on documents (:meth:`fit`) or, in cross-validation, on the rows of a count
    matrix over a larger vocabulary (:meth:`fit_counts`: keeps the columns with training
    document frequency >= ``min_df``, the ``max_features`` most frequent of them, and their
    IDF on the training rows, which is exactly what ``TfidfVectorizer.fit`` on those documents
    gives, without tokenising them again).
    """

    def __init__(self, params: dict[str, Any], vocab: list[str] | None = None,
                 idf: np.ndarray | None = None) -> None:
        self.params = params
        self.vocab = vocab
        self.idf = idf
        self.columns: np.ndarray | None = None  # into the count matrix (fit_counts only)
        self._v: Any = None

    def _build(self) -> None:
        """Forget the fitted state derived from ``vocab`` and ``idf`` (rebuilt on demand)."""
        self._v = None
        for k in ("_analyze", "_index", "_idf64", "_pairs", "_word_ids", "_pair_table",
                  "_scan"):
            self.__dict__.pop(k, None)

    def vectorizer(self) -> Any:
        """The equivalent scikit-learn ``TfidfVectorizer`` (built on first use: prediction
        needs it only for analyzers :func:`_fast_analyzer` does not cover, such as
        ``char_wb``)."""
        if self._v is None:
            from sklearn.feature_extraction.text import TfidfVectorizer

            p = sklearn_params(self.params, ("min_df", "max_features"))
            self._v = TfidfVectorizer(**p, vocabulary={t: i for i, t in enumerate(self.vocab)})
            self._v.idf_ = np.asarray(self.idf, dtype=np.float64)
        return self._v

    def fit(self, docs: Sequence[str]) -> _Vec:
        vocab, X = count_matrix(self.params, docs)
        return self.fit_counts(vocab, X)

    def fit_counts(self, vocab: Sequence[str], X: sp.csr_matrix) -> _Vec:
        n = X.shape[0]
        df = np.bincount(X.indices, minlength=X.shape[1]) if X.nnz else np.zeros(X.shape[1])
        cols = np.flatnonzero(df >= self.params.get("min_df", 1))
        mf = self.params.get("max_features")
        if mf and len(cols) > mf:
            tot = np.asarray(X[:, cols].sum(axis=0)).ravel()
            order = np.lexsort((cols, -tot))  # most frequent first, ties by column
            cols = np.sort(cols[order[:mf]])
        if not len(cols):  # nothing seen twice: one dummy column
            self.vocab, self.idf, self.columns = ["<none>"], np.ones(1), None
        else:
            self.columns = cols
            self.vocab = [vocab[c] for c in cols]
            self.idf = np.log((1.0 + n) / (1.0 + df[cols])) + 1.0
        self._build()
        return self

    def transform_counts(self, X: sp.csr_matrix) -> sp.csr_matrix:
        """TF-IDF rows from count rows of the matrix :meth:`fit_counts` saw."""
        import scipy.sparse as sp

        if self.columns is None:
            return sp.csr_matrix((X.shape[0], 1), dtype=np.float32)
        M = sp.csr_matrix(X[:, self.columns], dtype=np.float32)
        if self.params.get("sublinear_tf"):
            M.data = 1.0 + np.log(M.data)
        M = M @ sp.diags(self.idf.astype(np.float32))
        norms = np.sqrt(np.asarray(M.multiply(M).sum(axis=1)).ravel())
        norms[norms == 0] = 1.0
        return sp.csr_matrix(sp.diags(1.0 / norms) @ M, dtype=np.float32)

    def transform(self, docs: Sequence[str]) -> sp.csr_matrix:
        """TF-IDF rows of raw documents (the same numbers as ``TfidfVectorizer.transform``,
        without its per-call validation, which costs more than the work on one page)."""
        import scipy.sparse as sp

        rows = self.rows(docs)
        indptr = np.cumsum([0] + [len(c) for c, _ in rows])
        return sp.csr_matrix((np.concatenate([w for _, w in rows]) if rows else np.zeros(0),
                              np.concatenate([c for c, _ in rows]) if rows
                              else np.zeros(0, np.int64),
                              indptr), shape=(len(docs), len(self.vocab or [])),
                             dtype=np.float32)

    def rows(self, docs: Sequence[str]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per document, the columns and the TF-IDF values (float64, before :meth:`transform`
        stores them as float32) of its non-zero entries, in the order :meth:`transform` stores
        them."""
        assert self.vocab is not None and self.idf is not None
        if not hasattr(self, "_analyze"):
            self._analyze = _fast_analyzer(self.params) or self.vectorizer().build_analyzer()
            vocab = self.vocab or []  # the same dict as {t: i for i, t in enumerate(...)}
            self._index = dict(zip(vocab, range(len(vocab)), strict=True))
            self._idf64 = np.asarray(self.idf, dtype=np.float64)
            # words + word pairs (the text, title and url views): pairs are looked up as
            # (word, word) tuples, not joined strings (no string built and hashed per pair);
            # tokens never hold a space, so a vocabulary pair is its two words
            tokenize = _fast_tokenizer(self.params)
            self._pairs = None
            if tokenize is not None and tuple(self.params.get("ngram_range", (1, 1))) == (1, 2):
                self._pairs = ({tuple(t.split(" ")): i for t, i in self._index.items()
                                if t.count(" ") == 1}, tokenize)
        index_get = self._index.get
        fast = native.load("termcount")
        scan = self._scan_tables(fast) if fast is not None else None
        out = []
        for doc in docs:
            src = None
            if scan is not None:
                src = scan[0](doc)
            if src is not None:
                # compiled: tokens, counts and look-ups from the text's bytes (``scan``), the
                # known terms in the order of the Python path below
                assert scan is not None and fast is not None
                js, tf = np.empty(len(src) + 1, dtype=np.int64), np.empty(len(src) + 1)
                m = fast.scan(src, *scan[1:], js, tf)
                js, tf = js[:m], tf[:m]
            elif self._pairs is not None:
                # the same terms, counts and order as Counter(words + joined pairs): every
                # word before every pair, each in its first occurrence's order
                pair_index, tokenize = self._pairs
                toks = tokenize(doc)
                if len(toks) >= _MANY_TOKENS:
                    js, tf = self._terms_by_ids(toks)
                else:
                    uni, bi = Counter(toks), Counter(zip(toks, toks[1:], strict=False))
                    js = np.concatenate([
                        np.fromiter(map(index_get, uni.keys(), repeat(-1)), dtype=np.int64,
                                    count=len(uni)),
                        np.fromiter(map(pair_index.get, bi.keys(), repeat(-1)),
                                    dtype=np.int64, count=len(bi))])
                    tf = np.concatenate([
                        np.fromiter(uni.values(), dtype=np.float64, count=len(uni)),
                        np.fromiter(bi.values(), dtype=np.float64, count=len(bi))])
            else:
                counts = Counter(self._analyze(doc))
                # vocabulary lookups through C-level map (no Python loop per distinct token)
                js = np.fromiter(map(index_get, counts.keys(), repeat(-1)), dtype=np.int64,
                                 count=len(counts))
                tf = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
            keep = js >= 0
            cols, tf = js[keep], tf[keep]
            if self.params.get("sublinear_tf"):
                tf = 1.0 + np.log(tf)
            w = tf * self._idf64[cols]
            norm = float(np.sqrt(w @ w))
            out.append((cols, w / norm if norm > 0 else w))
        return out

    def _scan_tables(self, fast: Any) -> tuple[Any, ...] | None:
        """What :meth:`rows` passes to the compiled ``termcount.scan``, first the function
        giving a document's ASCII source (None: the document takes the Python path); None
        for a view it does not cover (another analyzer or token pattern, n-grams beyond
        pairs).

        Why: the text view's words were a list of ~2,000 Python strings, made and then
        counted and looked up one by one (the largest part of the page-type stage), the
        markup view's tokens the same through a Counter; ``scan`` reads the text's bytes
        once (``tests/test_classify_termcount.py`` checks both paths give the same rows)."""
        if "_scan" in self.__dict__:
            return self._scan
        self._scan = None
        ngrams = tuple(self.params.get("ngram_range", (1, 1)))
        tokenize = _fast_tokenizer(self.params)
        if tokenize is None or ngrams not in ((1, 1), (1, 2)):
            return None
        if self.params.get("tokens") == "words":
            from classify.text import ascii_form

            mode, source = 0, ascii_form
        elif self.params.get("token_pattern", _WORDS) == r"\S+":
            mode, source = 1, _ascii_or_none
        else:
            return None
        if ngrams == (1, 2):
            assert self._pairs is not None
            ids = self.__dict__.get("_word_ids")
            if ids is None:
                ids = self._word_ids = self._build_word_ids()
            word_id, uni_col, pair_keys, pair_cols, n_words = ids
            size = 1 << (2 * len(pair_keys) + 1).bit_length()
            p_codes, p_cols = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
            fast.table(pair_keys, pair_cols, p_codes, p_cols)
            keys = list(word_id)
        else:
            keys = list(self._index)
            uni_col = np.fromiter(self._index.values(), dtype=np.int64, count=len(keys))
            n_words = max(1, len(keys))
            p_codes = p_cols = np.full(1, -1, dtype=np.int64)
        # four int64 a slot (``termcount.ascii_vocab``), at most two thirds of them used
        vtab = np.empty(4 * (1 << (3 * len(keys) // 2 + 1).bit_length()), dtype=np.int64)
        try:
            fast.ascii_vocab(keys, vtab)
        except (TypeError, ValueError):  # a vocabulary the tables cannot hold
            return None
        self._scan = (source, mode, ngrams == (1, 2), keys, vtab, uni_col, n_words, p_codes,
                      p_cols)
        return self._scan

    def _terms_by_ids(self, toks: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """The columns and counts :meth:`rows` takes from a long document's words and word
        pairs (the same numbers in the same order), with the pairs counted and looked up as
        integers in numpy instead of as tuples in a dictionary.

        Why: on a page of 2,000 words the 1,600 distinct pairs were 1,600 tuples built,
        hashed and looked up in a dictionary of 60,000 tuples, each look-up a few cache
        misses (a tuple and two strings compared) - the largest part of the text view's
        cost in a crawl, where other stages evict the vocabulary between pages. Here each
        distinct word is looked up once (as before) in a dictionary of every vocabulary
        string and pair word, giving its id and column; the pairs of ids are then counted
        (``np.unique``, first occurrences for the order) and found by binary search among
        the vocabulary's sorted pair codes."""
        ids = self.__dict__.get("_word_ids")
        if ids is None:
            ids = self._word_ids = self._build_word_ids()
        word_id, uni_col, pair_keys, pair_cols, n_words = ids
        fast = native.load("termcount")
        if fast is not None and type(toks) is list:
            # compiled: one pass counts the words and looks them up (in a table of the
            # vocabulary's words, fewer cache misses than its dictionary), a hash table counts
            # the pairs; the same columns and counts in the same order
            tables = self.__dict__.get("_pair_table")
            if tables is None:
                # word ids are insertion positions (``_build_word_ids``): the keys in order
                keys = list(word_id)
                vocab = np.empty(2 * (1 << (3 * len(keys) // 2 + 1).bit_length()),
                                 dtype=np.int64)
                fast.vocab(keys, vocab)
                size = 1 << (2 * len(pair_keys) + 1).bit_length()
                pairs = (np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64))
                fast.table(pair_keys, pair_cols, *pairs)
                tables = self._pair_table = (keys, vocab, *pairs)
            keys, vocab, p_codes, p_cols = tables
            js, tf = np.empty(2 * len(toks), dtype=np.int64), np.empty(2 * len(toks))
            m = fast.terms(toks, keys, vocab, uni_col, n_words, p_codes, p_cols, js, tf)
            return js[:m], tf[:m]
        uni = Counter(toks)
        words = list(uni)  # first occurrences' order
        wid = np.fromiter(map(word_id.get, words, repeat(-1)), dtype=np.int64,
                          count=len(words))
        local = dict(zip(words, range(len(words)), strict=True))
        tok_wid = wid[np.fromiter(map(local.__getitem__, toks), dtype=np.int64,
                                  count=len(toks))]
        a, b = tok_wid[:-1], tok_wid[1:]
        both = (a >= 0) & (b >= 0)  # a pair with an unknown word is no vocabulary pair
        codes = a[both] * n_words + b[both]
        uniq, first, counts = np.unique(codes, return_index=True, return_counts=True)
        at = np.minimum(np.searchsorted(pair_keys, uniq), max(len(pair_keys) - 1, 0))
        found = pair_keys[at] == uniq if len(pair_keys) else np.zeros(len(uniq), bool)
        order = np.argsort(first[found], kind="stable")
        js = np.concatenate([np.where(wid >= 0, uni_col[np.maximum(wid, 0)], -1),
                             pair_cols[at[found]][order]])
        tf = np.concatenate([np.fromiter(uni.values(), dtype=np.float64, count=len(uni)),
                             counts[found][order].astype(np.float64)])
        return js, tf

    def _build_word_ids(self) -> tuple[dict[str, int], np.ndarray, np.ndarray, np.ndarray,
                                       int]:
        """Ids of every vocabulary string and of both words of every word-pair entry, each
        id's column as a term (-1: none), and the pair entries as sorted integer codes
        (first id * number of ids + second id) with their columns."""
        assert self._pairs is not None
        # the vocabulary's strings first (distinct: ids 0, 1, ... in order), then the pair
        # words not among them in first-occurrence order; built by C-level dictionary and
        # numpy steps, not a Python step per entry (this ran once a process, ~40 ms)
        word_id: dict[str, int] = dict(zip(self._index, range(len(self._index)),
                                           strict=True))
        pairs = self._pairs[0]
        firsts = [key[0] for key in pairs]
        seconds = [key[1] for key in pairs]
        extra = [w for w in dict.fromkeys(chain.from_iterable(pairs)) if w not in word_id]
        word_id.update(zip(extra, range(len(word_id), len(word_id) + len(extra)),
                           strict=True))
        uni_col = np.full(len(word_id), -1, dtype=np.int64)
        uni_col[:len(self._index)] = np.fromiter(self._index.values(), dtype=np.int64,
                                                 count=len(self._index))
        n = max(1, len(word_id))
        get = word_id.__getitem__
        codes = (np.fromiter(map(get, firsts), dtype=np.int64, count=len(firsts)) * n
                 + np.fromiter(map(get, seconds), dtype=np.int64, count=len(seconds)))
        cols = np.fromiter(pairs.values(), dtype=np.int64, count=len(pairs))
        order = np.argsort(codes, kind="stable")
        return word_id, uni_col, codes[order], cols[order], n

    def to_dict(self) -> dict[str, Any]:
        return {"params": {k: (list(v) if isinstance(v, tuple) else v)
                           for k, v in self.params.items() if k != "dtype"},
                "vocab": self.vocab, "idf": np.round(self.idf, 5).tolist()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> _Vec:
        params = dict(d["params"])
        if "ngram_range" in params:
            params["ngram_range"] = tuple(params["ngram_range"])
        params["dtype"] = np.float32
        return cls(params, list(d["vocab"]), np.asarray(d["idf"]))


def _ascii_or_none(doc: str) -> str | None:
    """``doc`` when it is ASCII (``termcount.scan`` splits and lower-cases it as
    ``str.split(doc.lower())`` would), else None."""
    return doc if doc.isascii() else None


#: a document of this many words or more takes :meth:`_Vec._terms_by_ids` (numpy's fixed
#: cost per call outweighs the tuple look-ups it saves on a title or a URL)
_MANY_TOKENS = 64


def sklearn_params(params: dict[str, Any], drop: Sequence[str] = ()) -> dict[str, Any]:
    """A view's vectoriser parameters as scikit-learn takes them: ``tokens`` resolved to a
    tokenizer, the keys in ``drop`` left out."""
    p = {k: v for k, v in params.items() if k not in drop and k != "tokens"}
    tokens = params.get("tokens")
    if tokens is not None:
        if tokens != "words":
            raise ValueError(f"unknown tokens {tokens!r} (known: words)")
        from classify.text import words

        p.update(tokenizer=words, token_pattern=None, lowercase=False)
    return p


def _fast_tokenizer(params: dict[str, Any]) -> Callable[[str], list[str]] | None:
    """The word tokens (before n-grams) of :func:`_fast_analyzer`'s analyzer for ``params``;
    None where it has none."""
    if params.get("tokens") == "words" and params.get("analyzer", "word") == "word":
        from classify.text import words

        return words
    if params.get("analyzer", "word") != "word" or not params.get("lowercase", True) or \
            params.get("strip_accents") or params.get("stop_words") or \
            params.get("preprocessor") or params.get("tokenizer"):
        return None
    pattern = params.get("token_pattern", r"(?u)\b\w\w+\b")
    rx = re.compile(pattern)
    if rx.groups > 1:
        return None
    # ``\S+`` runs are what str.split gives (both use Unicode whitespace), without a regex
    split = str.split if pattern == r"\S+" else rx.findall
    return lambda doc: split(doc.lower())


def _fast_analyzer(params: dict[str, Any]) -> Callable[[str], list[str]] | None:
    """The word analyzer ``TfidfVectorizer`` builds for ``params`` (lower-case, token
    pattern or :func:`classify.text.words`, word n-grams), without its per-token Python loop
    for n-grams (``map`` over ``zip``): the same tokens, for prediction's speed. None for
    other analyzers."""
    tokenize = _fast_tokenizer(params)
    if tokenize is None:
        return None
    lo, hi = params.get("ngram_range", (1, 1))

    def analyze(doc: str) -> list[str]:
        toks = tokenize(doc)
        out = toks if lo == 1 else []
        for n in range(max(2, lo), hi + 1):
            out = out + list(map(" ".join, zip(*(toks[k:] for k in range(n)), strict=False)))
        return out

    return analyze


def count_matrix(params: dict[str, Any], docs: Sequence[str]) -> tuple[list[str],
                                                                       sp.csr_matrix]:
    """(vocabulary, term counts) of ``docs`` under a view's analyzer, no pruning."""
    import scipy.sparse as sp
    from sklearn.feature_extraction.text import CountVectorizer

    cv = CountVectorizer(**sklearn_params(params, ("min_df", "max_features", "sublinear_tf")))
    try:
        X = cv.fit_transform(docs)
    except ValueError:  # no token at all
        return ["<none>"], sp.csr_matrix((len(docs), 1), dtype=np.int64)
    return cv.get_feature_names_out().tolist(), sp.csr_matrix(X)


def _svc(C: float) -> Any:
    from sklearn.svm import LinearSVC

    return LinearSVC(C=C, class_weight="balanced", dual="auto", max_iter=5000, random_state=0)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _fit_linear(X: Any, y: np.ndarray, C: float, classes: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """One-vs-rest linear SVM weights, one row per class of ``classes`` (a class absent from
    ``y`` gets zero weights and a very negative bias)."""
    m = _svc(C).fit(X, y)
    coef = np.zeros((len(classes), X.shape[1]))
    icpt = np.full(len(classes), -10.0)
    idx = np.searchsorted(classes, m.classes_)
    if len(m.classes_) == 2:
        coef[idx[1]], icpt[idx[1]] = m.coef_[0], m.intercept_[0]
        coef[idx[0]], icpt[idx[0]] = -m.coef_[0], -m.intercept_[0]
    else:
        coef[idx], icpt[idx] = m.coef_, m.intercept_
    return coef, icpt


@dataclass
class _ViewModel:
    """Representation + one-vs-rest linear SVM of one view; its output is the decision value
    of every class (what the stacker reads)."""

    view: str
    rep: Any  # _Vec or _Dense
    coef: np.ndarray
    intercept: np.ndarray
    C: float

    def decision(self, docs: Sequence[Any]) -> np.ndarray:
        if isinstance(self.rep, _Vec):
            return self._sparse_decision(self.rep.rows(docs))
        return self.decision_X(self.rep.transform(docs))

    def _sparse_decision(self, rows: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        """:meth:`decision_X` of the TF-IDF rows ``rows`` (:meth:`_Vec.rows`) without building
        a scipy matrix (nor importing scipy, a sixth of a CPU second: the page-type stage of
        a crawl predicts one page at a time). The same arithmetic as scipy's sparse-times-
        dense product, so the same bits: each value stored as float32 and widened, each
        product taken in float64 and added to a row starting at zero in the stored order
        (``np.add.reduce`` along the first axis adds row after row)."""
        coef_t = getattr(self, "_coef_t", None)
        if coef_t is None or coef_t.shape[0] != self.coef.shape[1]:
            coef_t = self._coef_t = np.ascontiguousarray(self.coef.T)
        out = np.zeros((len(rows), coef_t.shape[1]))
        fast = native.load("termcount")
        if fast is not None and coef_t.dtype == np.float64 and coef_t.shape[1]:
            # compiled: the same products and sums in the same order, in one pass
            for i, (cols, w) in enumerate(rows):
                fast.decide(np.ascontiguousarray(cols, dtype=np.int64),
                            np.ascontiguousarray(w, dtype=np.float64), coef_t,
                            coef_t.shape[1], out[i])
            return out + self.intercept
        for i, (cols, w) in enumerate(rows):
            terms = np.empty((len(cols) + 1, coef_t.shape[1]))
            terms[0] = 0.0
            np.multiply(w.astype(np.float32).astype(np.float64)[:, None], coef_t[cols],
                        out=terms[1:])
            out[i] = np.add.reduce(terms, axis=0)
        return out + self.intercept

    def decision_X(self, X: Any) -> np.ndarray:
        coef_t = getattr(self, "_coef_t", None)
        if coef_t is None or coef_t.shape[0] != self.coef.shape[1]:
            # contiguous once: ``X @ coef.T`` would copy the whole weight matrix per call
            coef_t = self._coef_t = np.ascontiguousarray(self.coef.T)
        return np.asarray(X @ coef_t) + self.intercept

    def to_dict(self) -> dict[str, Any]:
        cols = np.flatnonzero(np.any(np.abs(self.coef) > 0, axis=0))
        return {"view": self.view, "C": self.C, "rep": self.rep.to_dict(),
                "dense": isinstance(self.rep, _Dense), "n_features": int(self.coef.shape[1]),
                "columns": cols.tolist(), "coef": np.round(self.coef[:, cols], 5).tolist(),
                "intercept": np.round(self.intercept, 5).tolist()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> _ViewModel:
        rep = _Dense.from_dict(d["rep"]) if d["dense"] else _Vec.from_dict(d["rep"])
        icpt = np.asarray(d["intercept"], dtype=np.float64)
        coef = np.zeros((len(icpt), int(d["n_features"])))
        cols = np.asarray(d["columns"], dtype=np.int64)
        if len(cols):
            coef[:, cols] = np.asarray(d["coef"], dtype=np.float64).reshape(len(icpt), -1)
        return cls(d["view"], rep, coef, icpt, float(d["C"]))


def _folds(y: np.ndarray, groups: np.ndarray, k: int, seed: int) -> list[tuple[np.ndarray,
                                                                               np.ndarray]]:
    """Inner folds grouped by site (stratified when every class can be)."""
    from sklearn.model_selection import GroupKFold, StratifiedGroupKFold

    k = max(2, min(k, len(np.unique(groups))))
    try:
        cv = StratifiedGroupKFold(n_splits=k, shuffle=True, random_state=seed)
        return list(cv.split(np.zeros(len(y)), y, groups))
    except ValueError:
        return list(GroupKFold(n_splits=k).split(np.zeros(len(y)), y, groups))


def _logloss(p: np.ndarray, yi: np.ndarray) -> float:
    return float(-np.mean(np.log(np.clip(p[np.arange(len(yi)), yi], 1e-12, 1.0))))


@dataclass
class ViewCounts:
    """Term counts of one text view over a whole dataset (tokenised once for all folds)."""

    vocab: list[str]
    X: sp.csr_matrix


def fit_view(view: str, docs: Sequence[Any], y: np.ndarray, classes: np.ndarray,
             folds: Sequence[tuple[np.ndarray, np.ndarray]],
             counts: ViewCounts | None = None, params: dict[str, Any] | None = None
             ) -> tuple[_ViewModel, np.ndarray]:
    """Fit one view's model on all of ``docs``; also return its out-of-fold decision values
    (inner ``folds``), with ``C`` chosen among :data:`C_GRID` by out-of-fold accuracy.

    The representation (vocabulary, IDF, standardisation) is fitted once on all of ``docs``:
    it is unsupervised, so the inner held-out pages leak no labels through it.
    ``counts``: the count rows of ``docs`` (same order), to skip tokenising; ``params``: the
    vectoriser parameters instead of :data:`VIEW_SPECS`' (evaluations of other tokenisers).
    """
    params = params if params is not None else VIEW_SPECS[view][1]
    if params is None:
        rep: Any = _Dense(_dense_names(view, docs)).fit(docs)
        X = rep.transform(docs)
    elif counts is not None:
        rep = _Vec(dict(params)).fit_counts(counts.vocab, counts.X)
        X = rep.transform_counts(counts.X)
    else:
        vocab, Xc = count_matrix(params, docs)
        rep = _Vec(dict(params)).fit_counts(vocab, Xc)
        X = rep.transform_counts(Xc)
    best: tuple[float, float, np.ndarray] | None = None
    for C in C_GRID:
        oof = np.zeros((len(y), len(classes)))
        for tr, te in folds:
            coef, icpt = _fit_linear(X[tr], y[tr], C, classes)
            oof[te] = np.asarray(X[te] @ coef.T) + icpt
        acc = float(np.mean(classes[oof.argmax(1)] == y))
        if best is None or acc > best[0]:
            best = (acc, C, oof)
    assert best is not None
    _, C, oof = best
    coef, icpt = _fit_linear(X, y, C, classes)
    return _ViewModel(view, rep, coef, icpt, C), oof


# ---------------------------------------------------------------------- trees as JSON
def _trees_to_dict(hgb: Any) -> dict[str, Any]:
    """A fitted HistGradientBoostingClassifier as plain lists (numerical splits only)."""
    trees = []
    for it in hgb._predictors:
        row = []
        for tp in it:
            n = tp.nodes
            row.append({"f": n["feature_idx"].tolist(),
                        "t": np.round(n["num_threshold"], 7).tolist(),
                        "l": n["left"].tolist(), "r": n["right"].tolist(),
                        "leaf": n["is_leaf"].astype(int).tolist(),
                        "v": np.round(n["value"], 7).tolist(),
                        "m": n["missing_go_to_left"].astype(int).tolist()})
        trees.append(row)
    base = np.asarray(hgb._baseline_prediction, dtype=np.float64).ravel()
    return {"trees": trees, "baseline": base.tolist(),
            "classes": [str(c) for c in hgb.classes_]}


@dataclass
class _Trees:
    """Boosted trees as flat arrays: every tree's nodes concatenated, children re-indexed, so
    all trees are walked at once (one numpy step per tree level, not a Python loop per tree:
    a page is classified in well under a millisecond)."""

    trees: list[list[dict[str, np.ndarray]]]
    baseline: np.ndarray
    classes: list[str]

    def __post_init__(self) -> None:
        k = len(self.baseline)
        cols: dict[str, list[np.ndarray]] = {c: [] for c in ("f", "t", "l", "r", "leaf", "v",
                                                             "m")}
        roots, cls = [], []
        off = 0
        for it in self.trees:
            for c, tree in enumerate(it):
                roots.append(off)
                cls.append(c if k > 1 else 0)
                for key in cols:
                    a = np.asarray(tree[key])
                    cols[key].append(a + off if key in ("l", "r") else a)
                off += len(tree["f"])

        def cat(key: str, dt: Any) -> np.ndarray:
            return np.concatenate(cols[key]).astype(dt) if cols[key] else np.zeros(0, dt)

        self._f, self._t = cat("f", np.int64), cat("t", np.float64)
        self._l, self._r = cat("l", np.int64), cat("r", np.int64)
        self._leaf, self._v, self._m = cat("leaf", bool), cat("v", np.float64), cat("m", bool)
        self._roots = np.asarray(roots, dtype=np.int64)
        self._cls = np.asarray(cls, dtype=np.int64)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> _Trees:
        trees = [[{k: np.asarray(v, dtype=np.float64 if k in ("t", "v") else np.int64)
                   for k, v in tr.items()} for tr in it] for it in d["trees"]]
        return cls(trees, np.asarray(d["baseline"], dtype=np.float64), list(d["classes"]))

    def _one_row_walk(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """(feature, left, right, depth) for :meth:`raw`'s one-row walk: a leaf's children
        are the leaf itself and its feature 0, so every tree takes exactly ``depth`` steps
        (the deepest tree's) with no test for leaves."""
        walk = self.__dict__.get("_walk")
        if walk is None:
            ids = np.arange(len(self._f))
            left = np.where(self._leaf, ids, self._l)
            right = np.where(self._leaf, ids, self._r)
            node, depth = self._roots, 0
            while len(node) and not self._leaf[node].all():
                node = np.concatenate([left[node], right[node]])
                node = np.unique(node[~self._leaf[node]]) if depth < 64 else node[:0]
                depth += 1
            walk = self._walk = (np.where(self._leaf, 0, self._f), left, right, depth)
        return walk

    def _by_class(self) -> tuple[np.ndarray, int] | None:
        """The trees ordered by class (each class's in their order) and the number per
        class, when every class has as many (a boosted model's every iteration has one tree
        per class); None otherwise."""
        if "_by_class_cache" not in self.__dict__:
            k = len(self.baseline)
            counts = np.bincount(self._cls, minlength=k) if len(self._cls) else np.zeros(k)
            self._by_class_cache = None
            if k and len(counts) == k and (counts == counts[0]).all() and counts[0] > 0:
                order = np.concatenate([np.flatnonzero(self._cls == c) for c in range(k)])
                self._by_class_cache = (order, int(counts[0]))
        return self._by_class_cache

    def raw(self, X: np.ndarray) -> np.ndarray:
        """Raw scores (logits), one column per class."""
        X = np.asarray(X, dtype=np.float64)
        k = len(self.baseline)
        walk = native.load("treewalk")
        if walk is not None and X.ndim == 2 and len(X) and len(self._roots):
            # compiled (webseg._native.treewalk): the same split rule (x <= threshold goes
            # left, NaN goes the learned side, leaves by is_leaf), so the same leaves
            X = np.ascontiguousarray(X)
            leaves = np.empty((len(self._roots), len(X)), dtype=np.int64)
            walk.leaves(X, len(X), X.shape[1], self._f, self._t, self._m, self._l, self._r,
                        self._leaf, self._roots, leaves)
            node = leaves.T
        elif len(X) == 1 and len(self._roots) and not np.isnan(X).any():
            # one page (the pipeline's case), no missing value: the same leaves by a walk of
            # three gathers per level (feature value, then the child on each side)
            feat, left, right, depth = self._one_row_walk()
            x, t, n = X[0], self._t, self._roots
            for _ in range(depth):
                n = np.where(x[feat[n]] <= t[n], left[n], right[n])
            node = n[None, :]
        else:
            node = np.tile(self._roots, (len(X), 1))  # (rows, trees)
            rows = np.arange(len(X))[:, None]
            for _ in range(64):
                leaf = self._leaf[node]
                if leaf.all():
                    break
                x = X[rows, self._f[node]]
                go_left = np.where(np.isnan(x), self._m[node], x <= self._t[node])
                node = np.where(leaf, node, np.where(go_left, self._l[node], self._r[node]))
        by_class = self._by_class()
        if by_class is not None:
            # each class's trees side by side, summed in one call: the same sums (the same
            # trees in the same order, numpy's summation along a contiguous axis either way)
            order, m = by_class
            out = self.baseline + self._v[node[:, order]].reshape(len(X), k, m).sum(axis=2)
            if k == 1:
                return np.column_stack([np.zeros(len(X)), out[:, 0]])
            return out
        vals = self._v[node]  # (rows, trees)
        out = np.tile(self.baseline, (len(X), 1))
        for c in range(k):
            out[:, c] += vals[:, self._cls == c].sum(axis=1)
        if k == 1:  # binary: one logit for the second class
            return np.column_stack([np.zeros(len(X)), out[:, 0]])
        return out


def _hgb(seed: int) -> Any:
    from sklearn.ensemble import HistGradientBoostingClassifier

    # fixed a priori (not tuned): small trees, slow learning, strong leaf regularisation
    return HistGradientBoostingClassifier(learning_rate=0.1, max_iter=150, max_leaf_nodes=15,
                                          min_samples_leaf=10, l2_regularization=1.0,
                                          early_stopping=False, random_state=seed)


# ---------------------------------------------------------------------- the model
@dataclass
class StackedModel:
    """Per-view linear SVMs + a stacker + a temperature; see the module docstring.

    ``views``: the base views (:data:`ALL_VIEWS`); ``stacker``: ``"lr"`` (multinomial
    logistic regression over the standardised inputs), ``"gbdt"`` (gradient-boosted trees),
    either with ``-bal`` (balanced class weights), or ``"auto"`` (default: the kind of
    :data:`STACKERS` with the best :func:`inner_score` of its out-of-fold predictions);
    ``inner_folds``: the site-grouped inner CV that produces out-of-fold base outputs and
    chooses each view's ``C``.
    """

    views: tuple[str, ...] = DEFAULT_VIEWS
    stacker: str = "auto"
    inner_folds: int = 5
    seed: int = 0
    classes: np.ndarray = field(default_factory=lambda: np.array([], dtype=object))
    base: list[_ViewModel] = field(default_factory=list)
    struct_rep: _Dense | None = None
    trees: _Trees | None = None
    meta_lr: tuple[np.ndarray, np.ndarray] | None = None
    temperature: float = 1.0
    info: dict[str, Any] = field(default_factory=dict)

    # -------------------------------------------------------------- training
    def fit(self, docs: Sequence[dict[str, Any]], y: Sequence[str],
            groups: Sequence[str] | None = None, log: Callable[[str], None] = lambda m: None,
            counts: dict[str, ViewCounts] | None = None, calibrate: bool = True
            ) -> StackedModel:
        """Train on page views (``docs``), labels and site groups (for the inner CV).

        ``counts``: per text view, the count rows of ``docs`` (cross-validation reuses one
        tokenisation); ``calibrate=False`` skips the temperature (argmax unchanged).
        """
        y = np.asarray([str(v) for v in y], dtype=object)
        self.classes = np.unique(y)
        if len(self.classes) < 2:
            raise ValueError("need pages of at least two types to train")
        groups = np.asarray(groups if groups is not None else np.arange(len(y)).astype(str))
        folds = _folds(y, groups, self.inner_folds, self.seed)
        self.base, oofs = [], []
        for view in self.views:
            vm, oof = fit_view(view, [_field(d, view) for d in docs], y, self.classes, folds,
                               (counts or {}).get(view))
            self.base.append(vm)
            oofs.append(oof)
            log(f"    view {view:9s} C={vm.C:<5g} inner acc "
                f"{np.mean(self.classes[oof.argmax(1)] == y):.3f}")
        self.fit_stacker(np.hstack(oofs), [d.get("struct", {}) for d in docs], y, folds,
                         calibrate)
        log(f"    stack ({self.stacker}) T={self.temperature:.2f} {self.info}")
        return self

    def fit_stacker(self, base_out: np.ndarray, structs: Sequence[dict[str, float]],
                    y: np.ndarray, folds: Sequence[tuple[np.ndarray, np.ndarray]],
                    calibrate: bool = True, keep: bool = False) -> dict[str, Any]:
        """The stacker on out-of-fold base outputs (+ structure counts), and its temperature
        from its own out-of-fold logits over the same inner folds.

        ``stacker="auto"`` fits every kind of :data:`STACKERS` on the inner folds and keeps
        the one with the best :func:`inner_score`. ``keep``: also fit the final model of every
        candidate kind and return them (``{kind: meta}``, for evaluations that report each).
        """
        self.classes = np.unique(y)
        yi = np.searchsorted(self.classes, y)
        self.struct_rep = _Dense(list(STRUCT_NAMES)).fit(structs)
        Z = self._meta_features(base_out, structs)
        self.temperature = 1.0
        kinds = STACKERS if self.stacker == "auto" else (self.stacker,)
        if calibrate or len(kinds) > 1:
            # out-of-fold logits of each candidate stacker over the inner folds: they choose
            # the stacker ("auto": higher inner score) and fit its temperature
            best = None
            for kind in kinds:
                logits = np.zeros((len(y), len(self.classes)))
                for tr, te in folds:
                    logits[te] = self._meta_raw(self._fit_meta(Z[tr], y[tr], kind), Z[te])
                score = inner_score(yi, logits.argmax(1))
                self.info[f"inner_oof_accuracy_{kind}"] = round(
                    float(np.mean(logits.argmax(1) == yi)), 4)
                self.info[f"inner_oof_score_{kind}"] = round(score, 4)
                if best is None or score > best[0]:
                    best = (score, kind, logits)
            assert best is not None
            _, kind, logits = best
            if calibrate:
                self.temperature = _fit_temperature(logits, yi)
            p = _softmax(logits / self.temperature)
            self.info.update(stacker=kind, inner_oof_logloss=round(_logloss(p, yi), 4),
                             temperature=round(self.temperature, 4))
        else:
            kind = kinds[0]
        metas = {k: self._fit_meta(Z, y, k) for k in (kinds if keep else (kind,))}
        meta = metas[kind]
        self.trees, self.meta_lr = (meta, None) if isinstance(meta, _Trees) else (None, meta)
        return metas

    def _fit_meta(self, Z: np.ndarray, y: np.ndarray, kind: str) -> Any:
        if kind not in STACKERS:
            raise ValueError(f"unknown stacker {kind!r}; known: auto, {', '.join(STACKERS)}")
        balanced = kind.endswith("-bal")
        if kind.startswith("gbdt"):
            return self._fit_trees(Z, y, balanced)
        return self._fit_lr_meta(Z, y, balanced)

    def _meta_raw(self, meta: Any, Z: np.ndarray) -> np.ndarray:
        return meta.raw(Z) if isinstance(meta, _Trees) else self._lr_raw(meta, Z)

    def _meta_features(self, base_out: np.ndarray, structs: Sequence[dict[str, float]]
                       ) -> np.ndarray:
        assert self.struct_rep is not None
        return np.hstack([base_out, self.struct_rep.raw(structs)])

    def _fit_trees(self, Z: np.ndarray, y: np.ndarray, balanced: bool = False) -> _Trees:
        from threadpoolctl import threadpool_limits

        w = None
        if balanced:  # n / (k * n_class): what class_weight="balanced" gives linear models
            labs, inv, cnt = np.unique(y, return_inverse=True, return_counts=True)
            w = (len(y) / (len(labs) * cnt))[inv]
        # one OpenMP thread: on small data, threads only contend (badly so on a busy machine)
        with threadpool_limits(1, user_api="openmp"):
            hgb = _hgb(self.seed).fit(Z, y, sample_weight=w)
        t = _Trees.from_dict(_trees_to_dict(hgb))
        if list(t.classes) != [str(c) for c in self.classes]:  # a class absent from a fold
            t = _pad_classes(t, [str(c) for c in self.classes])
        return t

    def _fit_lr_meta(self, Z: np.ndarray, y: np.ndarray, balanced: bool = False
                     ) -> tuple[np.ndarray, np.ndarray]:
        mu, sd = Z.mean(0), Z.std(0)
        sd[sd < 1e-9] = 1.0
        from sklearn.linear_model import LogisticRegression

        lr = LogisticRegression(C=1.0, max_iter=3000,
                                class_weight="balanced" if balanced else None
                                ).fit((Z - mu) / sd, y)
        coef = np.zeros((len(self.classes), Z.shape[1]))
        icpt = np.full(len(self.classes), -30.0)
        idx = np.searchsorted(self.classes, lr.classes_)
        coef[idx], icpt[idx] = (lr.coef_, lr.intercept_) if len(lr.classes_) > 2 else \
            (np.vstack([-lr.coef_[0], lr.coef_[0]]) / 2, np.array([-1, 1]) * lr.intercept_[0] / 2)
        return coef / sd, icpt - (coef / sd) @ mu

    @staticmethod
    def _lr_raw(m: tuple[np.ndarray, np.ndarray], Z: np.ndarray) -> np.ndarray:
        return Z @ m[0].T + m[1]

    # -------------------------------------------------------------- prediction
    def predict_proba(self, docs: Sequence[dict[str, Any]]) -> np.ndarray:
        """Calibrated probabilities, one row per page, columns :attr:`classes`."""
        if not docs:
            return np.zeros((0, len(self.classes)))
        out = np.hstack([b.decision([_field(d, b.view) for d in docs]) for b in self.base])
        return self.proba_from_base(out, [d.get("struct", {}) for d in docs])

    def proba_from_base(self, base_out: np.ndarray, structs: Sequence[dict[str, float]]
                        ) -> np.ndarray:
        """Probabilities from the base models' outputs (hstacked in :attr:`views` order)."""
        Z = self._meta_features(base_out, structs)
        meta = self.trees if self.trees is not None else self.meta_lr
        assert meta is not None
        return _softmax(self._meta_raw(meta, Z) / self.temperature)

    def predict(self, docs: Sequence[dict[str, Any]]) -> np.ndarray:
        return self.classes[self.predict_proba(docs).argmax(axis=1)]

    # -------------------------------------------------------------- files
    def to_dict(self) -> dict[str, Any]:
        assert self.struct_rep is not None
        d: dict[str, Any] = {
            "views": list(self.views), "stacker": self.stacker,
            "inner_folds": self.inner_folds, "seed": self.seed,
            "classes": [str(c) for c in self.classes],
            "base": [b.to_dict() for b in self.base], "struct": self.struct_rep.to_dict(),
            "temperature": self.temperature, "info": self.info}
        if self.trees is not None:
            d["trees"] = {"trees": [[{k: (np.round(v, 7).tolist() if k in ("t", "v")
                                          else v.tolist()) for k, v in tr.items()}
                                     for tr in it] for it in self.trees.trees],
                          "baseline": self.trees.baseline.tolist(),
                          "classes": self.trees.classes}
        if self.meta_lr is not None:
            d["meta_lr"] = [np.round(self.meta_lr[0], 7).tolist(),
                            np.round(self.meta_lr[1], 7).tolist()]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> StackedModel:
        m = cls(tuple(d["views"]), d["stacker"], int(d["inner_folds"]), int(d["seed"]))
        m.classes = np.asarray(d["classes"], dtype=object)
        m.base = [_ViewModel.from_dict(b) for b in d["base"]]
        m.struct_rep = _Dense.from_dict(d["struct"])
        m.temperature = float(d["temperature"])
        m.info = dict(d.get("info", {}))
        if "trees" in d:
            m.trees = _Trees.from_dict(d["trees"])
        if "meta_lr" in d:
            m.meta_lr = (np.asarray(d["meta_lr"][0]), np.asarray(d["meta_lr"][1]))
        return m


def _pad_classes(t: _Trees, classes: list[str]) -> _Trees:
    """Trees trained without some class: give that class a constant very low logit."""
    idx = [t.classes.index(c) if c in t.classes else -1 for c in classes]
    k = len(classes)
    empty = {"f": np.zeros(1, np.int64), "t": np.zeros(1), "l": np.zeros(1, np.int64),
             "r": np.zeros(1, np.int64), "leaf": np.ones(1, np.int64), "v": np.zeros(1),
             "m": np.zeros(1, np.int64)}
    if len(t.baseline) == 1:  # binary: one logit for the second class, the first at 0
        t = _Trees([[empty, it[0]] for it in t.trees], np.array([0.0, t.baseline[0]]),
                   t.classes)
    base = np.array([t.baseline[i] if i >= 0 else -30.0 for i in idx])
    trees = [[it[i] if i >= 0 else empty for i in idx] for it in t.trees]
    assert len(base) == k
    return _Trees(trees, base, classes)


def _fit_temperature(logits: np.ndarray, yi: np.ndarray) -> float:
    """Temperature T minimising the log-loss of softmax(logits / T) (grid, then refine)."""
    grid = np.exp(np.linspace(np.log(0.25), np.log(4.0), 41))
    losses = [_logloss(_softmax(logits / t), yi) for t in grid]
    return float(grid[int(np.argmin(losses))])
