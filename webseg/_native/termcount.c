/*
 * The terms of a long document for the page-type model's text view: its words and word
 * pairs, counted, as vocabulary columns (classify.stacked._Vec._terms_by_ids, compiled).
 *
 * Why compiled: a page's text is ~2,000 words; the Python version counts them (Counter),
 * looks each distinct word up in the vocabulary, maps every token to its distinct word
 * through a second dictionary, and counts the word pairs with numpy's sort-based unique and
 * a binary search among the vocabulary's pairs: six passes and their arrays, about half a
 * millisecond. Here one pass over the tokens does the counting and the look-ups, and a
 * small hash table counts the pairs in their first-occurrence order; the vocabulary's pairs
 * are found in a hash table built once (a binary search among 40,000 sorted pairs took
 * half of the time).
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

/* the home slot of a pair code in a table of `mask + 1` slots (a power of two) */
static Py_ssize_t
slot_of(int64_t code, Py_ssize_t mask)
{
    return (Py_ssize_t)(((uint64_t)code * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

/* a table's size must be a power of two with at least one empty slot */
static int
check_table(Py_ssize_t size, Py_ssize_t n_keys)
{
    if (size < 1 || (size & (size - 1)) || size <= n_keys) {
        PyErr_SetString(PyExc_ValueError, "table size must be a power of two above the "
                                          "number of keys");
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(table_doc,
"table(keys, cols, t_codes, t_cols)\n"
"\n"
"Fill the open-addressing table (t_codes, t_cols: int64, writable, a power of two longer\n"
"than keys) with the pair codes keys (int64 >= 0) and their columns cols; a code given\n"
"twice keeps its first column (what a binary search of the sorted keys finds).");

static PyObject *
table(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer kb, cb, tcb, tlb;
    if (!PyArg_ParseTuple(args, "y*y*w*w*", &kb, &cb, &tcb, &tlb))
        return NULL;
    PyObject *result = NULL;
    const Py_ssize_t n = kb.len / (Py_ssize_t)sizeof(int64_t);
    const Py_ssize_t size = tcb.len / (Py_ssize_t)sizeof(int64_t);
    if (kb.len % sizeof(int64_t) || cb.len != kb.len || tlb.len != tcb.len ||
        tcb.len % sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "keys and cols, t_codes and t_cols: int64 pairs");
        goto done;
    }
    if (check_table(size, n) < 0)
        goto done;
    const int64_t *keys = (const int64_t *)kb.buf, *cols = (const int64_t *)cb.buf;
    int64_t *t_codes = (int64_t *)tcb.buf, *t_cols = (int64_t *)tlb.buf;
    for (Py_ssize_t s = 0; s < size; s++)
        t_codes[s] = -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (keys[k] < 0) {
            PyErr_SetString(PyExc_ValueError, "pair codes must be >= 0");
            goto done;
        }
        Py_ssize_t s = slot_of(keys[k], size - 1);
        while (t_codes[s] != -1 && t_codes[s] != keys[k])
            s = (s + 1) & (size - 1);
        if (t_codes[s] == -1) {
            t_codes[s] = keys[k];
            t_cols[s] = cols[k];
        }
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&kb);
    PyBuffer_Release(&cb);
    PyBuffer_Release(&tcb);
    PyBuffer_Release(&tlb);
    return result;
}

/*
 * The vocabulary's words as an open-addressing table of (hash, position in `keys`) pairs,
 * one int64 pair per slot (-1: empty), in place of a dictionary look-up: a slot holds the
 * hash next to the key's position, so a look-up reads one table line and the key itself,
 * where a dictionary reads its index, its entry, the key and the value's int object (a page's
 * ~800 distinct words missed the cache some five times each).
 */
static Py_ssize_t
vocab_find(PyObject *keys, const int64_t *tab, Py_ssize_t size, PyObject *tok, int *err)
{
    const Py_hash_t h = PyObject_Hash(tok);
    if (h == -1) {
        *err = 1;
        return -1;
    }
    Py_ssize_t s = slot_of((int64_t)h, size - 1);
    for (Py_ssize_t probes = 0; probes < size; probes++) {
        const int64_t k = tab[2 * s + 1];
        if (k < 0)
            return -1;
        if (tab[2 * s] == (int64_t)h) {
            if (k >= PyList_GET_SIZE(keys)) {
                PyErr_SetString(PyExc_ValueError, "vocabulary table does not fit its keys");
                *err = 1;
                return -1;
            }
            const int eq = PyObject_RichCompareBool(PyList_GET_ITEM(keys, k), tok, Py_EQ);
            if (eq < 0) {
                *err = 1;
                return -1;
            }
            if (eq)
                return (Py_ssize_t)k;
        }
        s = (s + 1) & (size - 1);
    }
    return -1;
}

PyDoc_STRVAR(vocab_doc,
"vocab(keys, tab)\n"
"\n"
"Fill tab (int64, writable, 2 * size for a power of two size above len(keys)) with the\n"
"table of the distinct str keys: a word's id is its position in keys.");

static PyObject *
vocab(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *keys;
    Py_buffer tb;
    if (!PyArg_ParseTuple(args, "O!w*", &PyList_Type, &keys, &tb))
        return NULL;
    PyObject *result = NULL;
    const Py_ssize_t n = PyList_GET_SIZE(keys);
    const Py_ssize_t size = tb.len / (Py_ssize_t)(2 * sizeof(int64_t));
    if (tb.len % (2 * sizeof(int64_t)) || check_table(size, n) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "tab must hold int64 pairs");
        goto done;
    }
    int64_t *tab = (int64_t *)tb.buf;
    for (Py_ssize_t s = 0; s < size; s++)
        tab[2 * s] = tab[2 * s + 1] = -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *key = PyList_GET_ITEM(keys, k);
        if (!PyUnicode_CheckExact(key)) {
            PyErr_SetString(PyExc_TypeError, "vocabulary keys must be str");
            goto done;
        }
        int err = 0;
        if (vocab_find(keys, tab, size, key, &err) >= 0 || err) {
            if (!err)
                PyErr_SetString(PyExc_ValueError, "vocabulary keys must be distinct");
            goto done;
        }
        const Py_hash_t h = PyObject_Hash(key);
        Py_ssize_t s = slot_of((int64_t)h, size - 1);
        while (tab[2 * s + 1] >= 0)
            s = (s + 1) & (size - 1);
        tab[2 * s] = (int64_t)h;
        tab[2 * s + 1] = k;
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&tb);
    return result;
}

PyDoc_STRVAR(terms_doc,
"terms(toks, keys, tab, uni_col, n_words, t_codes, t_cols, js, tf) -> m\n"
"\n"
"Write the first m columns and counts of the terms of the token list toks into js (int64)\n"
"and tf (float64), both of length >= 2 * len(toks). keys, tab: the vocabulary's words\n"
"(a word's id is its position in keys, < len(uni_col) <= n_words) and their table filled\n"
"by vocab(); uni_col: int64, a word id's column as a term (-1: none);\n"
"t_codes, t_cols: the vocabulary's pairs (codes first_id * n_words + second_id) and their\n"
"columns, as a table filled by table().");

static PyObject *
terms(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *toks, *keys;
    Py_buffer vtb, ucb, pkb, pcb, jsb, tfb;
    Py_ssize_t n_words;
    if (!PyArg_ParseTuple(args, "O!O!y*y*ny*y*w*w*", &PyList_Type, &toks, &PyList_Type,
                          &keys, &vtb, &ucb, &n_words, &pkb, &pcb, &jsb, &tfb))
        return NULL;

    PyObject *result = NULL, *local = NULL;
    int64_t *tok_wid = NULL, *wcount = NULL, *wcol = NULL, *slot_code = NULL;
    int64_t *pcode = NULL, *pcount = NULL;
    Py_ssize_t *slot_idx = NULL;
    const Py_ssize_t n = PyList_GET_SIZE(toks);
    const Py_ssize_t n_cols = ucb.len / (Py_ssize_t)sizeof(int64_t);
    const Py_ssize_t t_size = pkb.len / (Py_ssize_t)sizeof(int64_t);
    if (ucb.len % sizeof(int64_t) || pkb.len % sizeof(int64_t) || pcb.len != pkb.len ||
        jsb.len < 2 * n * (Py_ssize_t)sizeof(int64_t) ||
        tfb.len < 2 * n * (Py_ssize_t)sizeof(double) || n_cols > n_words ||
        n_words > ((int64_t)1 << 31)) {
        PyErr_SetString(PyExc_ValueError, "buffer sizes do not fit (see the docstring)");
        goto done;
    }
    const Py_ssize_t v_size = vtb.len / (Py_ssize_t)(2 * sizeof(int64_t));
    if (check_table(t_size, 0) < 0 || check_table(v_size, PyList_GET_SIZE(keys)) < 0)
        goto done;
    const int64_t *vtab = (const int64_t *)vtb.buf;
    const int64_t *uni_col = (const int64_t *)ucb.buf;
    const int64_t *t_codes = (const int64_t *)pkb.buf;
    const int64_t *t_cols = (const int64_t *)pcb.buf;
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
            int err = 0;
            const int64_t wid = vocab_find(keys, vtab, v_size, tok, &err);
            if (err)
                goto done;
            if (wid >= n_cols) {
                PyErr_SetString(PyExc_ValueError, "word id out of range");
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
        Py_ssize_t s = slot_of(code, size - 1);
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
        Py_ssize_t s = slot_of(pcode[k], t_size - 1);
        for (Py_ssize_t probes = 0; t_codes[s] != -1 && t_codes[s] != pcode[k]; probes++) {
            if (probes >= t_size) {  /* a full table (not filled by table()) */
                PyErr_SetString(PyExc_ValueError, "pair table has no empty slot");
                goto done;
            }
            s = (s + 1) & (t_size - 1);
        }
        if (t_codes[s] == pcode[k]) {
            js[m] = t_cols[s];
            tf[m] = (double)pcount[k];
            m++;
        }
    }
    result = PyLong_FromSsize_t(m);
done:
    PyBuffer_Release(&vtb);
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
    {"table", table, METH_VARARGS, table_doc},
    {"vocab", vocab, METH_VARARGS, vocab_doc},
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
