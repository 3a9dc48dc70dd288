/*
 * The English analysis's inner loop: the [a-z0-9]+ tokens of a text, each mapped through
 * the analyzer's memo of token -> term (ir.analysis.Analyzer._english_words).
 *
 * Why compiled: the index stage analyses every leaf of every page; in Python the loop costs
 * a regex match object or a findall list, a dictionary look-up and an append per token
 * (about 3,000 tokens a page), a third of the stage's time. Here one pass over the text's
 * characters makes each token and looks it up, with no intermediate list.
 *
 * What a token is: a maximal run of [a-z0-9] (every other character, ASCII or not,
 * separates tokens, as the regular expression's character class does). With lower=True, a
 * maximal run of [A-Za-z0-9] with capitals made small letters: for ASCII text, exactly the
 * [a-z0-9]+ tokens of text.lower() (which only maps A-Z there), without making that copy.
 * (Not for other text: str.lower then NFKD folding can leave capitals, "\u2122" -> "TM",
 * which [a-z0-9]+ splits off; the Python side passes lower=False there.)
 *
 * What a token becomes: memo[token] when the token is in the memo (None: dropped, a stop
 * word or a too long token); otherwise miss(token), which the Python side defines: it
 * computes the term, stores it in the memo (and empties a full memo, as the pure Python
 * loop does) and returns it. The policy (stop words, length limit, stemmer) is therefore
 * the Python code's alone; this loop only replaces the per-token interpreter work.
 *
 * Text with other characters (words_many with a table): a text whose every non-ASCII
 * character is a separator (the table, a bytes-like object indexed by code point, holds 1
 * for it; the Python side decides which characters are, ir.analysis._separator) is scanned
 * as ASCII text is: curly quotes, dashes and no-break spaces in English text then cost no
 * Unicode analysis. A text with a character the table marks 2 (not a separator) is left to
 * the caller (None); one with a character still unknown there (0, or past the table's end)
 * gives that character's code point, for the caller to decide it and ask again.
 *
 * Bad input raises TypeError (not a str, memo not a dict); nothing is read out of bounds
 * (every index is below the string's or the table's length).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static inline int
is_word_char(Py_UCS4 c, int lower)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           (lower && c >= 'A' && c <= 'Z');
}

/* Append the terms of text's tokens to out; 0 on success, -1 with an exception set. */
static int
scan_text(PyObject *text, PyObject *memo, PyObject *miss, int lower, PyObject *out)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "words: texts must be str");
        return -1;
    }
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t i = 0;
    while (i < n) {
        if (!is_word_char(PyUnicode_READ(kind, data, i), lower)) {
            i++;
            continue;
        }
        Py_ssize_t j = i + 1;
        while (j < n && is_word_char(PyUnicode_READ(kind, data, j), lower))
            j++;
        /* the token: characters i..j-1, all ASCII (capitals only with lower) */
        PyObject *tok = PyUnicode_New(j - i, 127);
        if (tok == NULL)
            return -1;
        Py_UCS1 *dst = PyUnicode_1BYTE_DATA(tok);
        for (Py_ssize_t k = i; k < j; k++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, k);
            dst[k - i] = (Py_UCS1)((c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c);
        }
        i = j;
        PyObject *term = PyDict_GetItemWithError(memo, tok);  /* borrowed */
        if (term != NULL) {
            Py_INCREF(term);
        }
        else {
            if (PyErr_Occurred()) {
                Py_DECREF(tok);
                return -1;
            }
            term = PyObject_CallOneArg(miss, tok);  /* new reference */
            if (term == NULL) {
                Py_DECREF(tok);
                return -1;
            }
        }
        Py_DECREF(tok);
        int rc = term == Py_None ? 0 : PyList_Append(out, term);
        Py_DECREF(term);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int
check_args(PyObject *memo, PyObject *miss)
{
    if (!PyDict_Check(memo)) {
        PyErr_SetString(PyExc_TypeError, "words: memo must be a dict");
        return -1;
    }
    if (!PyCallable_Check(miss)) {
        PyErr_SetString(PyExc_TypeError, "words: miss must be callable");
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(words_doc,
"words(text, memo, miss, lower) -> list\n"
"\n"
"The terms of text's [a-z0-9]+ tokens in order ([A-Za-z0-9]+ lower-cased when lower):\n"
"memo[token] when the token is in memo, else miss(token); None terms are dropped.");

static PyObject *
words(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "words(text, memo, miss, lower) takes 4 arguments");
        return NULL;
    }
    if (check_args(args[1], args[2]) < 0)
        return NULL;
    const int lower = PyObject_IsTrue(args[3]);
    if (lower < 0)
        return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    if (scan_text(args[0], args[1], args[2], lower, out) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

/* The first non-ASCII character of text that the table does not mark as a separator:
   -1 when there is none, else its code point (table[c] or the end of the table says why). */
static Py_ssize_t
first_non_separator(PyObject *text, const unsigned char *table, Py_ssize_t table_len)
{
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 128)
            continue;
        if ((Py_ssize_t)c >= table_len || table[c] != 1)
            return (Py_ssize_t)c;
    }
    return -1;
}

PyDoc_STRVAR(words_many_doc,
"words_many(texts, memo, miss, table=None) -> list\n"
"\n"
"For each str of the list texts: words(text, memo, miss, True) when the text is ASCII,\n"
"or (with table) when its every non-ASCII character c has table[c] == 1 (a separator);\n"
"else None (the caller analyses it another way), or with table the code point of its\n"
"first character that the table does not know (table[c] == 0 or c past its end).\n"
"One call for a page's leaves.");

static PyObject *
words_many(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 && nargs != 4) {
        PyErr_SetString(PyExc_TypeError,
                        "words_many(texts, memo, miss, table=None) takes 3 or 4 arguments");
        return NULL;
    }
    PyObject *texts = args[0];
    if (!PyList_Check(texts)) {
        PyErr_SetString(PyExc_TypeError, "words_many: texts must be a list");
        return NULL;
    }
    if (check_args(args[1], args[2]) < 0)
        return NULL;
    /* the separator table, held (a read-only view) until the end of the call */
    Py_buffer view;
    int has_table = nargs == 4 && args[3] != Py_None;
    if (has_table && PyObject_GetBuffer(args[3], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *table = has_table ? (const unsigned char *)view.buf : NULL;
    const Py_ssize_t table_len = has_table ? view.len : 0;
    const Py_ssize_t n = PyList_GET_SIZE(texts);
    PyObject *result = PyList_New(n);
    if (result == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        /* the list may change under a miss callback: read each item by index, checked,
           holding a reference while it is scanned */
        if (i >= PyList_GET_SIZE(texts)) {
            PyErr_SetString(PyExc_RuntimeError, "words_many: texts changed size");
            goto fail;
        }
        PyObject *text = PyList_GET_ITEM(texts, i);
        if (!PyUnicode_Check(text)) {
            PyErr_SetString(PyExc_TypeError, "words: texts must be str");
            goto fail;
        }
        if (!PyUnicode_IS_ASCII(text)) {
            Py_ssize_t c = has_table ? first_non_separator(text, table, table_len) : 0;
            if (c >= 0) {  /* not all separators: None, or the character to decide */
                PyObject *item = (c < table_len && table[c] == 2) || !has_table
                                 ? Py_NewRef(Py_None) : PyLong_FromSsize_t(c);
                if (item == NULL)
                    goto fail;
                PyList_SET_ITEM(result, i, item);
                continue;
            }
        }
        PyObject *out = PyList_New(0);
        if (out == NULL)
            goto fail;
        PyList_SET_ITEM(result, i, out);  /* result owns it; filled below */
        Py_INCREF(text);
        int rc = scan_text(text, args[1], args[2], 1, out);
        Py_DECREF(text);
        if (rc < 0)
            goto fail;
    }
    goto done;
fail:
    /* the items not set yet are NULL, which list deallocation skips */
    Py_DECREF(result);
    result = NULL;
done:
    if (has_table)
        PyBuffer_Release(&view);
    return result;
}

static PyMethodDef methods[] = {
    {"words", (PyCFunction)(void (*)(void))words, METH_FASTCALL, words_doc},
    {"words_many", (PyCFunction)(void (*)(void))words_many, METH_FASTCALL, words_many_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "asciiwords",
    "Compiled [a-z0-9]+ tokens mapped through a memo (see ir.analysis).", -1, methods,
};

PyMODINIT_FUNC
PyInit_asciiwords(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    /* words_many takes the separator table: a build from before it did not (the Python side
       checks this, so a stale build is used without the table rather than failing) */
    if (PyModule_AddIntConstant(m, "SEPARATOR_TABLE", 1) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
