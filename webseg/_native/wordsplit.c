/*
 * The words of many texts at once (webseg.blocks.align.words_many).
 *
 * Why compiled: the block model splits every visible text leaf of a page into its
 * lower-cased words (a few hundred leaves, a few thousand words a page); the Python path
 * pays a regular-expression call and a list per leaf, most of a millisecond a page.
 *
 * The rule, exactly as webseg.blocks.align.words has it:
 *   - lower-case the text with str.lower() itself (called here for a text that is not pure
 *     ASCII; for ASCII, lower-casing is A-Z -> a-z), so Unicode's mappings and the final
 *     sigma are Python's;
 *   - a word character is what \w matches in Python's re for str patterns: Py_UNICODE_ISALNUM
 *     or the underscore (re's own definition, SRE_UNI_IS_WORD);
 *   - a word character of an unspaced script (the code-point ranges `ranges`, the ones of
 *     align._UNSPACED_RANGES) is a word of its own; a maximal run of the other word
 *     characters is a word. (align's pattern (?=\w)[R]|[^\W R]+, whose matches are exactly
 *     these; on text without unspaced letters it gives the \w+ runs, which is what words()
 *     takes for an ASCII text.)
 * `ranges` arrives as a buffer of uint32 pairs (lo, hi), sorted, inclusive; its length is
 * checked.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

typedef struct {
    const uint32_t *r; /* lo0, hi0, lo1, hi1, ... sorted */
    Py_ssize_t n;      /* number of pairs */
} Ranges;

static int
in_ranges(const Ranges *rg, Py_UCS4 c)
{
    Py_ssize_t lo = 0, hi = rg->n; /* binary search for the last pair with lo <= c */
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (rg->r[2 * mid] <= c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && c <= rg->r[2 * (lo - 1) + 1];
}

static inline int
is_word(Py_UCS4 c)
{
    if (c < 128)
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
            || c == '_';
    return Py_UNICODE_ISALNUM(c);
}

static int
append_token(PyObject *out, PyObject *tok)
{
    if (tok == NULL)
        return -1;
    int rc = PyList_Append(out, tok);
    Py_DECREF(tok);
    return rc;
}

/* the words of one pure-ASCII str (lower-cased here), a new list */
static PyObject *
ascii_tokens(PyObject *text)
{
    const unsigned char *s = (const unsigned char *)PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    Py_ssize_t i = 0;
    while (i < n) {
        while (i < n && !is_word(s[i]))
            i++;
        if (i >= n)
            break;
        Py_ssize_t start = i;
        while (i < n && is_word(s[i]))
            i++;
        PyObject *tok = PyUnicode_New(i - start, 127);
        if (tok != NULL) {
            Py_UCS1 *d = PyUnicode_1BYTE_DATA(tok);
            for (Py_ssize_t k = start; k < i; k++) {
                unsigned char c = s[k];
                d[k - start] = (c >= 'A' && c <= 'Z') ? (Py_UCS1)(c - 'A' + 'a') : c;
            }
        }
        if (append_token(out, tok) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

/* the words of a str that is already lower-cased, a new list */
static PyObject *
unicode_tokens(PyObject *low, const Ranges *rg)
{
    int kind = PyUnicode_KIND(low);
    const void *data = PyUnicode_DATA(low);
    Py_ssize_t n = PyUnicode_GET_LENGTH(low);
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    Py_ssize_t i = 0;
    while (i < n) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (!is_word(c)) {
            i++;
            continue;
        }
        Py_ssize_t start = i;
        if (c >= 128 && in_ranges(rg, c)) {
            i++; /* an unspaced-script letter: a word of its own */
        } else {
            i++;
            while (i < n) {
                Py_UCS4 d = PyUnicode_READ(kind, data, i);
                if (!is_word(d) || (d >= 128 && in_ranges(rg, d)))
                    break;
                i++;
            }
        }
        if (append_token(out, PyUnicode_Substring(low, start, i)) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

PyDoc_STRVAR(words_doc,
"words(texts, ranges) -> list of lists of str\n"
"\n"
"The words of every str of the sequence `texts` (webseg.blocks.align.words), in order.\n"
"ranges: the unspaced-script code points as uint32 (lo, hi) pairs, sorted, inclusive.");

static PyObject *
words(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "words takes 2 arguments (texts, ranges)");
        return NULL;
    }
    Py_buffer rb;
    if (PyObject_GetBuffer(args[1], &rb, PyBUF_SIMPLE) < 0)
        return NULL;
    if (rb.len % (Py_ssize_t)(2 * sizeof(uint32_t)) != 0) {
        PyErr_SetString(PyExc_ValueError, "words: ranges must be uint32 (lo, hi) pairs");
        PyBuffer_Release(&rb);
        return NULL;
    }
    Ranges rg = {(const uint32_t *)rb.buf, rb.len / (Py_ssize_t)(2 * sizeof(uint32_t))};
    /* a tuple copy: str.lower() is Python code, which must not change what we walk */
    PyObject *items = PySequence_Tuple(args[0]);
    if (items == NULL) {
        PyBuffer_Release(&rb);
        return NULL;
    }
    Py_ssize_t m = PyTuple_GET_SIZE(items);
    PyObject *out = PyList_New(m);
    for (Py_ssize_t k = 0; out != NULL && k < m; k++) {
        PyObject *t = PyTuple_GET_ITEM(items, k);
        PyObject *toks = NULL;
        if (!PyUnicode_Check(t)) {
            PyErr_SetString(PyExc_TypeError, "words: texts must be str");
        } else if (PyUnicode_IS_ASCII(t)) {
            toks = ascii_tokens(t);
        } else {
            PyObject *low = PyObject_CallMethod(t, "lower", NULL);
            if (low != NULL && !PyUnicode_Check(low))
                PyErr_SetString(PyExc_TypeError, "words: lower() must return a str");
            else if (low != NULL)
                toks = unicode_tokens(low, &rg);
            Py_XDECREF(low);
        }
        if (toks == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, k, toks);
    }
    Py_DECREF(items);
    PyBuffer_Release(&rb);
    return out;
}

/* sentence ends: a sentence end when a space or the end of the text follows (END), or
   anywhere (MARK); webseg.blocks.features._SENT_END and _SENT_MARK */
static int
is_end(Py_UCS4 c)
{
    return c == '.' || c == '!' || c == '?' || c == 0x061F || c == 0x0964;
}

static int
is_mark(Py_UCS4 c)
{
    return c == 0x3002 || c == 0xFF01 || c == 0xFF1F || c == 0xFF61;
}

PyDoc_STRVAR(counts_doc,
"counts(texts, out) -> None\n"
"\n"
"Per str of the sequence `texts` (m of them), into out (float64, 3 * m, written as rows of\n"
"m): the characters that are neither word characters nor white space (re's \\w, \\s),\n"
"the sentence ends (. ! ? and the Arabic and Devanagari ones followed by white space or\n"
"the text's end; the full-width and half-width ideographic ones anywhere), and the\n"
"decimal digits (re's \\d): webseg.blocks.features._char_counts.");

static PyObject *
counts(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "counts takes 2 arguments (texts, out)");
        return NULL;
    }
    PyObject *items = PySequence_Tuple(args[0]);
    if (items == NULL)
        return NULL;
    Py_buffer ob;
    if (PyObject_GetBuffer(args[1], &ob, PyBUF_WRITABLE) < 0) {
        Py_DECREF(items);
        return NULL;
    }
    PyObject *result = NULL;
    Py_ssize_t m = PyTuple_GET_SIZE(items);
    if (ob.len != 3 * m * (Py_ssize_t)sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "counts: out must hold 3 * len(texts) float64");
        goto done;
    }
    double *punct = ob.buf, *sents = punct + m, *digits = punct + 2 * m;
    for (Py_ssize_t k = 0; k < m; k++) {
        PyObject *t = PyTuple_GET_ITEM(items, k);
        if (!PyUnicode_Check(t)) {
            PyErr_SetString(PyExc_TypeError, "counts: texts must be str");
            goto done;
        }
        int kind = PyUnicode_KIND(t);
        const void *data = PyUnicode_DATA(t);
        Py_ssize_t n = PyUnicode_GET_LENGTH(t);
        long long p = 0, se = 0, d = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            if (!is_word(c) && !Py_UNICODE_ISSPACE(c))
                p++;
            if (c >= 128 ? Py_UNICODE_ISDECIMAL(c) : (c >= '0' && c <= '9'))
                d++;
            if (is_mark(c) || (is_end(c) && (i + 1 == n
                                               || Py_UNICODE_ISSPACE(
                                                   PyUnicode_READ(kind, data, i + 1)))))
                se++;
        }
        punct[k] = (double)p;
        sents[k] = (double)se;
        digits[k] = (double)d;
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&ob);
    Py_DECREF(items);
    return result;
}

/*
 * The block features' "stop words" of a page (webseg.blocks.features._leaf_text): its k
 * commonest short tokens (at most maxlen code points), ties going to the token seen first,
 * and per leaf how many of its tokens are among them. Exactly what the Python path does
 * with Counter(all tokens), the short ones kept in first-seen order, most_common(k) (a
 * stable sort by count) and a sum per leaf; here without a Python step per token.
 */
typedef struct {
    Py_ssize_t count, first;
} Seen;

static int
by_count_then_first(const void *a, const void *b)
{
    const Seen *x = (const Seen *)a, *y = (const Seen *)b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->first < y->first ? -1 : (x->first > y->first);
}

PyDoc_STRVAR(stops_doc,
"stops(tokens, k, maxlen, out) -> None\n"
"\n"
"tokens: list of lists of str (a page's leaves' words). Writes into out (float64, one per\n"
"leaf) how many of the leaf's tokens are among the k commonest tokens of at most maxlen\n"
"code points (count descending, ties: first seen first).");

static PyObject *
stops(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "stops takes 4 arguments");
        return NULL;
    }
    PyObject *tokens = args[0];
    if (!PyList_Check(tokens)) {
        PyErr_SetString(PyExc_TypeError, "stops: tokens must be a list of lists of str");
        return NULL;
    }
    const Py_ssize_t k = PyLong_AsSsize_t(args[1]);
    if (k == -1 && PyErr_Occurred())
        return NULL;
    const Py_ssize_t maxlen = PyLong_AsSsize_t(args[2]);
    if (maxlen == -1 && PyErr_Occurred())
        return NULL;
    Py_buffer out;
    if (PyObject_GetBuffer(args[3], &out, PyBUF_WRITABLE) < 0)
        return NULL;
    PyObject *result = NULL, *index = NULL;
    Seen *seen = NULL;
    unsigned char *is_stop = NULL;
    const Py_ssize_t m = PyList_GET_SIZE(tokens);
    if (out.len != m * (Py_ssize_t)sizeof(double)) {
        PyErr_Format(PyExc_ValueError, "out: expected %zd bytes, got %zd",
                     m * (Py_ssize_t)sizeof(double), out.len);
        goto done;
    }
    /* pass 1: every short token's number in first-seen order, and its count */
    index = PyDict_New();
    if (index == NULL)
        goto done;
    Py_ssize_t n_seen = 0, cap = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *toks = PyList_GET_ITEM(tokens, i);
        if (!PyList_Check(toks)) {
            PyErr_SetString(PyExc_TypeError, "stops: tokens must be a list of lists of str");
            goto done;
        }
        for (Py_ssize_t j = 0; j < PyList_GET_SIZE(toks); j++) {
            PyObject *t = PyList_GET_ITEM(toks, j);
            if (!PyUnicode_CheckExact(t)) {
                PyErr_SetString(PyExc_TypeError, "stops: a token is not a str");
                goto done;
            }
            if (PyUnicode_GET_LENGTH(t) > maxlen)
                continue;
            PyObject *num = PyDict_GetItemWithError(index, t); /* borrowed */
            if (num != NULL) {
                seen[PyLong_AsSsize_t(num)].count++;
                continue;
            }
            if (PyErr_Occurred())
                goto done;
            if (n_seen == cap) {
                cap = cap ? 2 * cap : 256;
                Seen *grown = PyMem_Realloc(seen, (size_t)cap * sizeof(Seen));
                if (grown == NULL) {
                    PyErr_NoMemory();
                    goto done;
                }
                seen = grown;
            }
            PyObject *v = PyLong_FromSsize_t(n_seen);
            if (v == NULL || PyDict_SetItem(index, t, v) < 0) {
                Py_XDECREF(v);
                goto done;
            }
            Py_DECREF(v);
            seen[n_seen].count = 1;
            seen[n_seen].first = n_seen;
            n_seen++;
        }
    }
    /* the k commonest (a stable order: count, then first seen) are the stop words */
    is_stop = PyMem_Calloc((size_t)(n_seen ? n_seen : 1), 1);
    if (is_stop == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (n_seen)
        qsort(seen, (size_t)n_seen, sizeof(Seen), by_count_then_first);
    for (Py_ssize_t r = 0; r < k && r < n_seen; r++)
        is_stop[seen[r].first] = 1;
    /* pass 2: per leaf, its tokens among them */
    double *dst = (double *)out.buf;
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *toks = PyList_GET_ITEM(tokens, i);
        Py_ssize_t c = 0;
        for (Py_ssize_t j = 0; j < PyList_GET_SIZE(toks); j++) {
            PyObject *t = PyList_GET_ITEM(toks, j);
            if (PyUnicode_GET_LENGTH(t) > maxlen)
                continue;
            PyObject *num = PyDict_GetItemWithError(index, t);
            if (num == NULL) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_RuntimeError, "stops: tokens changed");
                goto done;
            }
            c += is_stop[PyLong_AsSsize_t(num)];
        }
        dst[i] = (double)c;
    }
    result = Py_NewRef(Py_None);
done:
    Py_XDECREF(index);
    PyMem_Free(seen);
    PyMem_Free(is_stop);
    PyBuffer_Release(&out);
    return result;
}

PyDoc_STRVAR(title_hits_doc,
"title_hits(tokens, index, hits, distinct) -> list\n"
"\n"
"tokens: list of lists of str (a page's leaves' words); index: dict str -> int, the title's\n"
"words numbered 0..len(index)-1. Writes per leaf (float64) how many of its tokens are title\n"
"words (hits) and how many different title words it holds (distinct); returns the flat\n"
"list [leaf, word, leaf, word, ...] of every (leaf, title word) it holds, once each.");

static PyObject *
title_hits(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "title_hits takes 4 arguments");
        return NULL;
    }
    PyObject *tokens = args[0], *index = args[1];
    if (!PyList_Check(tokens) || !PyDict_Check(index)) {
        PyErr_SetString(PyExc_TypeError, "title_hits: a list of token lists and a dict");
        return NULL;
    }
    Py_buffer hb, db;
    if (PyObject_GetBuffer(args[2], &hb, PyBUF_WRITABLE) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[3], &db, PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&hb);
        return NULL;
    }
    PyObject *pairs = NULL, *result = NULL;
    Py_ssize_t *stamp = NULL;
    const Py_ssize_t m = PyList_GET_SIZE(tokens), nw = PyDict_GET_SIZE(index);
    if (hb.len != m * (Py_ssize_t)sizeof(double) || db.len != m * (Py_ssize_t)sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "title_hits: hits and distinct need one float64 "
                        "per leaf");
        goto done;
    }
    /* the leaf that last held each title word (-1: none yet) */
    stamp = PyMem_Malloc((size_t)(nw ? nw : 1) * sizeof(Py_ssize_t));
    pairs = PyList_New(0);
    if (stamp == NULL || pairs == NULL) {
        if (stamp == NULL)
            PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t w = 0; w < nw; w++)
        stamp[w] = -1;
    double *hits = (double *)hb.buf, *distinct = (double *)db.buf;
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *toks = PyList_GET_ITEM(tokens, i);
        if (!PyList_Check(toks)) {
            PyErr_SetString(PyExc_TypeError, "title_hits: tokens must be lists of str");
            goto done;
        }
        Py_ssize_t h = 0, d = 0;
        for (Py_ssize_t j = 0; j < PyList_GET_SIZE(toks); j++) {
            PyObject *t = PyList_GET_ITEM(toks, j);
            if (!PyUnicode_CheckExact(t)) {
                PyErr_SetString(PyExc_TypeError, "title_hits: a token is not a str");
                goto done;
            }
            PyObject *num = PyDict_GetItemWithError(index, t); /* borrowed */
            if (num == NULL) {
                if (PyErr_Occurred())
                    goto done;
                continue;
            }
            const Py_ssize_t w = PyLong_AsSsize_t(num);
            if (w < 0 || w >= nw) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "title_hits: a word number outside "
                                    "0..len(index)-1");
                goto done;
            }
            h++;
            if (stamp[w] != i) {
                stamp[w] = i;
                d++;
                PyObject *a = PyLong_FromSsize_t(i);
                if (a == NULL || PyList_Append(pairs, a) < 0 || PyList_Append(pairs, num) < 0) {
                    Py_XDECREF(a);
                    goto done;
                }
                Py_DECREF(a);
            }
        }
        hits[i] = (double)h;
        distinct[i] = (double)d;
    }
    result = Py_NewRef(pairs);
done:
    Py_XDECREF(pairs);
    PyMem_Free(stamp);
    PyBuffer_Release(&hb);
    PyBuffer_Release(&db);
    return result;
}

static PyMethodDef methods[] = {
    {"title_hits", (PyCFunction)(void (*)(void))title_hits, METH_FASTCALL, title_hits_doc},
    {"stops", (PyCFunction)(void (*)(void))stops, METH_FASTCALL, stops_doc},
    {"words", (PyCFunction)(void (*)(void))words, METH_FASTCALL, words_doc},
    {"counts", (PyCFunction)(void (*)(void))counts, METH_FASTCALL, counts_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "wordsplit",
    "Lower-cased words of many texts (webseg.blocks.align.words_many), compiled.", -1,
    methods,
};

PyMODINIT_FUNC
PyInit_wordsplit(void)
{
    return PyModule_Create(&module);
}
