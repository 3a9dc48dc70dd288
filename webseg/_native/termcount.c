/*
 * The terms of a long document for the page-type model's text view: its words and word
 * pairs, counted, as vocabulary columns (classify.stacked._Vec._terms_by_ids, compiled).
 *
 * Why compiled: a page's text is ~2,000 words; the Python version counts them (Counter),
 * looks each distinct word up in the vocabulary, maps every token to its distinct word
 * through a second dictionary, and counts the word pairs with numpy's sort-based unique and
 * a binary search among the vocabulary's pairs: six passes and their arrays, about half a
 * millisecond. Here one pass over the tokens does the counting and the look-ups, and a
 * small hash table counts the pairs in their first-occurrence order.
 *
 * Output order (the same as the Python, which the tests check): every distinct word in
 * first-occurrence order (its column, -1 when it has none, and its count), then every
 * distinct known pair found in the vocabulary, in first-occurrence order (column, count).
 *
 * Checked: word ids against the column table, buffer sizes against each other; a bad
 * input raises ValueError or TypeError.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

static Py_ssize_t
lower_bound(const int64_t *a, Py_ssize_t n, int64_t x)
{
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

PyDoc_STRVAR(terms_doc,
"terms(toks, word_id, uni_col, n_words, pair_keys, pair_cols, js, tf) -> m\n"
"\n"
"Write the first m columns and counts of the terms of the token list toks into js (int64)\n"
"and tf (float64), both of length >= 2 * len(toks). word_id: str -> id (0 <= id <\n"
"len(uni_col) <= n_words); uni_col: int64, a word id's column as a term (-1: none);\n"
"pair_keys: sorted int64 codes first_id * n_words + second_id of the vocabulary's pairs;\n"
"pair_cols: their columns.");

static PyObject *
terms(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *toks, *word_id;
    Py_buffer ucb, pkb, pcb, jsb, tfb;
    Py_ssize_t n_words;
    if (!PyArg_ParseTuple(args, "O!O!y*ny*y*w*w*", &PyList_Type, &toks, &PyDict_Type,
                          &word_id, &ucb, &n_words, &pkb, &pcb, &jsb, &tfb))
        return NULL;

    PyObject *result = NULL, *local = NULL;
    int64_t *tok_wid = NULL, *wcount = NULL, *wcol = NULL, *slot_code = NULL;
    int64_t *pcode = NULL, *pcount = NULL;
    Py_ssize_t *slot_idx = NULL;
    const Py_ssize_t n = PyList_GET_SIZE(toks);
    const Py_ssize_t n_cols = ucb.len / (Py_ssize_t)sizeof(int64_t);
    const Py_ssize_t n_pairs = pkb.len / (Py_ssize_t)sizeof(int64_t);
    if (ucb.len % sizeof(int64_t) || pkb.len % sizeof(int64_t) || pcb.len != pkb.len ||
        jsb.len < 2 * n * (Py_ssize_t)sizeof(int64_t) ||
        tfb.len < 2 * n * (Py_ssize_t)sizeof(double) || n_cols > n_words ||
        n_words > ((int64_t)1 << 31)) {
        PyErr_SetString(PyExc_ValueError, "buffer sizes do not fit (see the docstring)");
        goto done;
    }
    const int64_t *uni_col = (const int64_t *)ucb.buf;
    const int64_t *pair_keys = (const int64_t *)pkb.buf;
    const int64_t *pair_cols = (const int64_t *)pcb.buf;
    int64_t *js = (int64_t *)jsb.buf;
    double *tf = (double *)tfb.buf;
    const Py_ssize_t cap = n ? n : 1;
    tok_wid = PyMem_Malloc(cap * sizeof(int64_t));   /* per token: its word id, -1 unknown */
    wcount = PyMem_Malloc(cap * sizeof(int64_t));    /* per distinct word: occurrences */
    wcol = PyMem_Malloc(cap * sizeof(int64_t));      /* per distinct word: its column */
    pcode = PyMem_Malloc(cap * sizeof(int64_t));     /* per distinct pair: its code */
    pcount = PyMem_Malloc(cap * sizeof(int64_t));    /* per distinct pair: occurrences */
    local = PyDict_New();                            /* token -> distinct word index */
    if (!tok_wid || !wcount || !wcol || !pcode || !pcount || !local) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }

    /* the distinct words in first-occurrence order, their counts and ids */
    Py_ssize_t n_distinct = 0;
    int64_t *wid_of = pcount;  /* scratch until the pairs: word id per distinct word */
    for (Py_ssize_t t = 0; t < n; t++) {
        PyObject *tok = PyList_GET_ITEM(toks, t);
        PyObject *k = PyDict_GetItemWithError(local, tok);
        Py_ssize_t d;
        if (k != NULL) {
            d = PyLong_AsSsize_t(k);
            if (d < 0 || d >= n_distinct) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_RuntimeError, "word index out of range");
                goto done;
            }
        } else {
            if (PyErr_Occurred())
                goto done;
            d = n_distinct++;
            PyObject *idx = PyLong_FromSsize_t(d);
            int r = idx ? PyDict_SetItem(local, tok, idx) : -1;
            Py_XDECREF(idx);
            if (r < 0)
                goto done;
            PyObject *w = PyDict_GetItemWithError(word_id, tok);
            int64_t wid = -1;
            if (w != NULL) {
                wid = PyLong_AsLongLong(w);
                if (wid == -1 && PyErr_Occurred())
                    goto done;
                if (wid < 0 || wid >= n_cols) {
                    PyErr_SetString(PyExc_ValueError, "word id out of range");
                    goto done;
                }
            } else if (PyErr_Occurred()) {
                goto done;
            }
            wid_of[d] = wid;
            wcount[d] = 0;
            wcol[d] = wid >= 0 ? uni_col[wid] : -1;
        }
        wcount[d]++;
        tok_wid[t] = wid_of[d];
    }
    for (Py_ssize_t d = 0; d < n_distinct; d++) {
        js[d] = wcol[d];
        tf[d] = (double)wcount[d];
    }
    Py_ssize_t m = n_distinct;

    /* the pairs of known words, counted in first-occurrence order (open addressing) */
    Py_ssize_t size = 16;
    while (size < 2 * cap)
        size *= 2;
    slot_code = PyMem_Malloc(size * sizeof(int64_t));
    slot_idx = PyMem_Malloc(size * sizeof(Py_ssize_t));
    if (!slot_code || !slot_idx) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t s = 0; s < size; s++)
        slot_code[s] = -1;
    Py_ssize_t n_pc = 0;
    for (Py_ssize_t t = 0; t + 1 < n; t++) {
        const int64_t a = tok_wid[t], b = tok_wid[t + 1];
        if (a < 0 || b < 0)
            continue;  /* a pair with an unknown word is no vocabulary pair */
        const int64_t code = a * (int64_t)n_words + b;
        uint64_t h = (uint64_t)code * 0x9E3779B97F4A7C15ull;
        Py_ssize_t s = (Py_ssize_t)(h >> 32) & (size - 1);
        while (slot_code[s] != -1 && slot_code[s] != code)
            s = (s + 1) & (size - 1);
        if (slot_code[s] == -1) {
            slot_code[s] = code;
            slot_idx[s] = n_pc;
            pcode[n_pc] = code;
            pcount[n_pc] = 0;
            n_pc++;
        }
        pcount[slot_idx[s]]++;
    }
    for (Py_ssize_t k = 0; k < n_pc; k++) {
        const Py_ssize_t at = lower_bound(pair_keys, n_pairs, pcode[k]);
        if (at < n_pairs && pair_keys[at] == pcode[k]) {
            js[m] = pair_cols[at];
            tf[m] = (double)pcount[k];
            m++;
        }
    }
    result = PyLong_FromSsize_t(m);
done:
    PyBuffer_Release(&ucb);
    PyBuffer_Release(&pkb);
    PyBuffer_Release(&pcb);
    PyBuffer_Release(&jsb);
    PyBuffer_Release(&tfb);
    PyMem_Free(tok_wid);
    PyMem_Free(wcount);
    PyMem_Free(wcol);
    PyMem_Free(pcode);
    PyMem_Free(pcount);
    PyMem_Free(slot_code);
    PyMem_Free(slot_idx);
    Py_XDECREF(local);
    return result;
}

static PyMethodDef methods[] = {
    {"terms", terms, METH_VARARGS, terms_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "termcount",
    "Compiled term counts of the page-type text view (see classify.stacked).", -1, methods,
};

PyMODINIT_FUNC
PyInit_termcount(void)
{
    return PyModule_Create(&module);
}
