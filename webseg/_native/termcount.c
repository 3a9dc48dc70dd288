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
#include <string.h>

/* the home slot of a pair code in a table of `mask + 1` slots (a power of two) */
static Py_ssize_t
slot_of(int64_t code, Py_ssize_t mask)
{
    return (Py_ssize_t)(((uint64_t)code * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

/* the slot holding `code` in a vocabulary pair table of `size` slots (table()'s), -1 when
   the code is not in it, -2 (an error set) when the table has no empty slot to stop at */
static Py_ssize_t
find_pair(const int64_t *t_codes, Py_ssize_t size, int64_t code)
{
    Py_ssize_t s = slot_of(code, size - 1);
    for (Py_ssize_t probes = 0; t_codes[s] != -1 && t_codes[s] != code; probes++) {
        if (probes >= size) {  /* a full table (not filled by table()) */
            PyErr_SetString(PyExc_ValueError, "pair table has no empty slot");
            return -2;
        }
        s = (s + 1) & (size - 1);
    }
    return t_codes[s] == code ? s : -1;
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
        const Py_ssize_t s = find_pair(t_codes, t_size, pcode[k]);
        if (s == -2)
            goto done;
        if (s >= 0) {
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

/* ------------------------------------------------------------------------------------------
 * Terms straight from an ASCII text (scan): tokenised, counted and looked up in one pass, no
 * Python string per token.
 *
 * Why: the text view's ~2,000 words were first made a list of Python strings (translate,
 * decode, split, a length filter) and then counted by terms() above, each distinct word
 * hashed and compared as a Python object: about 0.6 ms a page, the largest part of the
 * page-type stage. The markup view's ~4,000 tokens were lower-cased, split and counted by a
 * Counter (0.3 ms). Here the tokens are runs of the text's bytes, hashed as bytes (FNV-1a)
 * and compared with the vocabulary's ASCII words in place; the same terms in the same order
 * as the Python path (tests/test_classify_termcount.py checks it).
 * ------------------------------------------------------------------------------------------ */

/* FNV-1a over bytes: the table's own hash (str's hash is not computable from bytes) */
static int64_t
fnv1a(const unsigned char *s, Py_ssize_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (Py_ssize_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0x100000001b3ull;
    }
    return (int64_t)(h & 0x7fffffffffffffffull);  /* >= 0: -1 marks an empty slot */
}

/*
 * The table of ascii_vocab(): four int64 a slot (32 bytes): the key's hash, its length and
 * id ((length << 32) | id; -1: an empty slot), and its first 16 bytes (zero-padded). A
 * look-up of a word of up to 16 letters (nearly all) reads its slot alone, not the key's
 * str object too: one cache miss a distinct word of a page instead of two.
 */
#define SLOT 4
#define INLINE 16

/* the id of the ASCII bytes s[0:n] among keys (table of ascii_vocab), -1 when none */
static Py_ssize_t
ascii_find(PyObject *keys, const int64_t *tab, Py_ssize_t size, int64_t h,
           const unsigned char *s, Py_ssize_t n)
{
    Py_ssize_t s_at = slot_of(h, size - 1);
    const Py_ssize_t n_keys = PyList_GET_SIZE(keys);
    const size_t head = (size_t)(n < INLINE ? n : INLINE);
    for (Py_ssize_t probes = 0; probes < size; probes++) {
        const int64_t *slot = tab + SLOT * s_at;
        const int64_t lk = slot[1];
        if (lk < 0)
            return -1;
        const Py_ssize_t k = (Py_ssize_t)(lk & 0x7fffffff), len = (Py_ssize_t)(lk >> 32);
        if (slot[0] == h && len == n && k < n_keys &&
            memcmp((const unsigned char *)(slot + 2), s, head) == 0) {
            if (n <= INLINE)
                return k;
            PyObject *key = PyList_GET_ITEM(keys, k);  /* the rest of a longer key */
            if (PyUnicode_CheckExact(key) && PyUnicode_IS_ASCII(key) &&
                PyUnicode_GET_LENGTH(key) == n &&
                memcmp(PyUnicode_1BYTE_DATA(key) + INLINE, s + INLINE,
                       (size_t)(n - INLINE)) == 0)
                return k;
        }
        s_at = (s_at + 1) & (size - 1);
    }
    return -1;
}

PyDoc_STRVAR(ascii_vocab_doc,
"ascii_vocab(keys, tab)\n"
"\n"
"Fill tab (int64, writable, 4 * size for a power of two size above len(keys)) with the\n"
"table of the ASCII str among keys (distinct str; the others can match no ASCII token and\n"
"are left out), hashed as bytes for scan(): a word's id is its position in keys.");

static PyObject *
ascii_vocab(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *keys;
    Py_buffer tb;
    if (!PyArg_ParseTuple(args, "O!w*", &PyList_Type, &keys, &tb))
        return NULL;
    PyObject *result = NULL;
    const Py_ssize_t n = PyList_GET_SIZE(keys);
    const Py_ssize_t size = tb.len / (Py_ssize_t)(SLOT * sizeof(int64_t));
    if (tb.len % (SLOT * sizeof(int64_t)) || check_table(size, n) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "tab must hold slots of four int64");
        goto done;
    }
    if (n >= ((Py_ssize_t)1 << 31)) {
        PyErr_SetString(PyExc_ValueError, "too many keys");
        goto done;
    }
    int64_t *tab = (int64_t *)tb.buf;
    memset(tab, 0, (size_t)size * SLOT * sizeof(int64_t));
    for (Py_ssize_t s = 0; s < size; s++)
        tab[SLOT * s + 1] = -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *key = PyList_GET_ITEM(keys, k);
        if (!PyUnicode_CheckExact(key)) {
            PyErr_SetString(PyExc_TypeError, "vocabulary keys must be str");
            goto done;
        }
        if (!PyUnicode_IS_ASCII(key))
            continue;
        const unsigned char *data = PyUnicode_1BYTE_DATA(key);
        const Py_ssize_t len = PyUnicode_GET_LENGTH(key);
        if (len >= ((Py_ssize_t)1 << 30)) {
            PyErr_SetString(PyExc_ValueError, "vocabulary key too long");
            goto done;
        }
        const int64_t h = fnv1a(data, len);
        if (ascii_find(keys, tab, size, h, data, len) >= 0) {
            PyErr_SetString(PyExc_ValueError, "vocabulary keys must be distinct");
            goto done;
        }
        Py_ssize_t s = slot_of(h, size - 1);
        while (tab[SLOT * s + 1] >= 0)
            s = (s + 1) & (size - 1);
        int64_t *slot = tab + SLOT * s;
        slot[0] = h;
        slot[1] = ((int64_t)len << 32) | (int64_t)k;
        memcpy((unsigned char *)(slot + 2), data, (size_t)(len < INLINE ? len : INLINE));
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&tb);
    return result;
}

/* ASCII classes of the two tokenisers */
static int
is_word_byte(unsigned char c)  /* classify.text._WORD_BYTES: ASCII letters and digits */
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
is_split_space(unsigned char c)  /* str.split()'s white space among ASCII characters */
{
    return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
}

PyDoc_STRVAR(scan_doc,
"scan(text, mode, pairs, keys, tab, uni_col, n_words, t_codes, t_cols, js, tf) -> m\n"
"\n"
"The terms of the ASCII str text, as terms() gives them for its token list, without the\n"
"unknown words (column -1): the first m columns and counts are written to js (int64) and\n"
"tf (float64), both of length >= len(text) + 1.\n"
"mode 0: classify.text._ascii_words' tokens (runs of ASCII letters and digits, lower-cased,\n"
"2 to 64 characters); mode 1: text.lower().split(). pairs: also count the word pairs.\n"
"keys, tab: the vocabulary's words and their table filled by ascii_vocab(); uni_col,\n"
"n_words, t_codes, t_cols: as for terms() (the pair tables are read only when pairs).");

/*
 * Scratch arrays of scan(), kept between calls and grown as needed: a fresh allocation of a
 * page's worth (hundreds of kB) each call came from the system as new pages, whose first
 * touches cost more than the scan itself. scan() holds the GIL throughout, so one set
 * serves every call.
 */
static struct {
    int64_t *i64;     /* 7 arrays of cap int64 (see scan()) */
    unsigned char *low;
    Py_ssize_t cap, low_cap;
} scratch;

static int
scratch_fit(Py_ssize_t n_i64, Py_ssize_t n_low)
{
    if (n_i64 > scratch.cap) {
        int64_t *p = PyMem_Realloc(scratch.i64, 7 * n_i64 * sizeof(int64_t));
        if (!p) {
            PyErr_NoMemory();
            return -1;
        }
        scratch.i64 = p;
        scratch.cap = n_i64;
    }
    if (n_low > scratch.low_cap) {
        unsigned char *p = PyMem_Realloc(scratch.low, n_low);
        if (!p) {
            PyErr_NoMemory();
            return -1;
        }
        scratch.low = p;
        scratch.low_cap = n_low;
    }
    return 0;
}

static PyObject *
scan(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *text, *keys;
    int mode, pairs;
    Py_buffer vtb, ucb, pkb, pcb, jsb, tfb;
    Py_ssize_t n_words;
    if (!PyArg_ParseTuple(args, "U" "ip" "O!y*y*ny*y*w*w*", &text, &mode, &pairs,
                          &PyList_Type, &keys, &vtb, &ucb, &n_words, &pkb, &pcb, &jsb, &tfb))
        return NULL;

    PyObject *result = NULL;
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const Py_ssize_t n_cols = ucb.len / (Py_ssize_t)sizeof(int64_t);
    const Py_ssize_t t_size = pkb.len / (Py_ssize_t)sizeof(int64_t);
    const Py_ssize_t v_size = vtb.len / (Py_ssize_t)(SLOT * sizeof(int64_t));
    if (!PyUnicode_IS_ASCII(text)) {
        PyErr_SetString(PyExc_ValueError, "scan() takes ASCII text only");
        goto done;
    }
    if ((mode != 0 && mode != 1) || ucb.len % sizeof(int64_t) || pkb.len % sizeof(int64_t) ||
        pcb.len != pkb.len || vtb.len % (SLOT * sizeof(int64_t)) ||
        jsb.len < (n + 1) * (Py_ssize_t)sizeof(int64_t) ||
        tfb.len < (n + 1) * (Py_ssize_t)sizeof(double) || n_cols > n_words ||
        n_words > ((int64_t)1 << 31)) {
        PyErr_SetString(PyExc_ValueError, "arguments do not fit (see the docstring)");
        goto done;
    }
    if (check_table(v_size, PyList_GET_SIZE(keys)) < 0 ||
        (pairs && check_table(t_size, 0) < 0))
        goto done;
    const unsigned char *src = PyUnicode_1BYTE_DATA(text);
    const int64_t *vtab = (const int64_t *)vtb.buf;
    const int64_t *uni_col = (const int64_t *)ucb.buf;
    const int64_t *t_codes = (const int64_t *)pkb.buf;
    const int64_t *t_cols = (const int64_t *)pcb.buf;
    int64_t *js = (int64_t *)jsb.buf;
    double *tf = (double *)tfb.buf;

    /* tokens <= (n + 1) / 2 (a token and its separator take two bytes); the hash tables
       below have the power of two at or above 4 * (tokens + 1) slots, at most t_cap */
    const Py_ssize_t cap = n / 2 + 1;
    Py_ssize_t t_cap = 16;
    while (t_cap < 4 * (cap + 1))
        t_cap *= 2;
    if (scratch_fit(t_cap, n + 1) < 0)
        goto done;
    int64_t *tok_off = scratch.i64;                  /* per token: offset, length, hash */
    int64_t *tok_len = tok_off + scratch.cap;
    int64_t *tok_hash = tok_len + scratch.cap;
    int64_t *tok_wid = tok_hash + scratch.cap;       /* per token: word id, -1 unknown */
    int64_t *slot_key = tok_wid + scratch.cap;       /* hash table: key (-1 empty) */
    int64_t *slot_idx = slot_key + scratch.cap;      /* hash table: what the key indexes */
    int64_t *d_wid = slot_idx + scratch.cap;         /* distinct words, then pair codes */
    int64_t *d_count = tok_off;                      /* reuses tok_off after pass 1 */
    unsigned char *low = scratch.low;

    /* pass 1: the tokens, lower-cased into low, and their hashes */
    Py_ssize_t n_tok = 0;
    for (Py_ssize_t i = 0; i < n;) {
        Py_ssize_t j = i;
        if (mode == 0) {
            if (!is_word_byte(src[i])) {
                i++;
                continue;
            }
            while (j < n && is_word_byte(src[j])) {
                low[j] = src[j] | 0x20;  /* digits have the bit already */
                j++;
            }
            if (j - i < 2 || j - i > 64) {  /* what _ascii_words drops */
                i = j;
                continue;
            }
        } else {
            if (is_split_space(src[i])) {
                i++;
                continue;
            }
            while (j < n && !is_split_space(src[j])) {
                const unsigned char c = src[j];
                low[j] = (c >= 'A' && c <= 'Z') ? (unsigned char)(c | 0x20) : c;
                j++;
            }
        }
        if (n_tok >= cap) {
            PyErr_SetString(PyExc_RuntimeError, "token count out of range");
            goto done;
        }
        tok_off[n_tok] = i;
        tok_len[n_tok] = j - i;
        tok_hash[n_tok] = fnv1a(low + i, j - i);
        n_tok++;
        i = j;
    }
    Py_ssize_t size = 16;
    while (size < 4 * (n_tok + 1))
        size *= 2;
    if (size > t_cap) {
        PyErr_SetString(PyExc_RuntimeError, "table size out of range");
        goto done;
    }

    /* pass 2: each token's word id; the distinct tokens are found first in a table of this
       text's own (keyed by a token's first occurrence), so the vocabulary's table (megabytes,
       a cache miss a look-up) is read once per distinct token, not once per token */
    for (Py_ssize_t s = 0; s < size; s++)
        slot_key[s] = -1;
    for (Py_ssize_t t = 0; t < n_tok; t++) {
        const int64_t h = tok_hash[t], len = tok_len[t];
        const unsigned char *w = low + tok_off[t];
        Py_ssize_t s = slot_of(h, size - 1);
        for (;;) {
            const int64_t f = slot_key[s];
            if (f == -1) {  /* a new distinct token: its word id from the vocabulary */
                const Py_ssize_t wid = ascii_find(keys, vtab, v_size, h, w, len);
                if (wid >= n_cols) {
                    PyErr_SetString(PyExc_ValueError, "word id out of range");
                    goto done;
                }
                slot_key[s] = t;
                tok_wid[t] = wid;
                break;
            }
            if (tok_hash[f] == h && tok_len[f] == len &&
                memcmp(low + tok_off[f], w, (size_t)len) == 0) {
                tok_wid[t] = tok_wid[f];
                break;
            }
            s = (s + 1) & (size - 1);
        }
    }

    /* pass 3: the distinct known words in first-occurrence order with their counts, then
       the distinct pairs of known words (as terms() does), in one table keyed by word id or
       pair code (a pair's key is offset past every word id, so the two never collide) */
    for (Py_ssize_t s = 0; s < size; s++)
        slot_key[s] = -1;
    Py_ssize_t n_d = 0;
    for (Py_ssize_t t = 0; t < n_tok; t++) {
        const int64_t w = tok_wid[t];
        if (w < 0)
            continue;
        Py_ssize_t s = slot_of(w, size - 1);
        while (slot_key[s] != -1 && slot_key[s] != w)
            s = (s + 1) & (size - 1);
        if (slot_key[s] == -1) {
            slot_key[s] = w;
            slot_idx[s] = n_d;
            d_wid[n_d] = w;
            d_count[n_d] = 0;
            n_d++;
        }
        d_count[slot_idx[s]]++;
    }
    Py_ssize_t m = 0;
    for (Py_ssize_t d = 0; d < n_d; d++) {
        const int64_t col = uni_col[d_wid[d]];
        if (col >= 0) {
            js[m] = col;
            tf[m] = (double)d_count[d];
            m++;
        }
    }
    if (pairs) {
        const Py_ssize_t first_pair = n_d;
        for (Py_ssize_t t = 0; t + 1 < n_tok; t++) {
            const int64_t a = tok_wid[t], b = tok_wid[t + 1];
            if (a < 0 || b < 0)
                continue;  /* a pair with an unknown word is no vocabulary pair */
            const int64_t code = a * (int64_t)n_words + b;
            const int64_t key = code + (int64_t)n_words;  /* past every word id */
            Py_ssize_t s = slot_of(key, size - 1);
            while (slot_key[s] != -1 && slot_key[s] != key)
                s = (s + 1) & (size - 1);
            if (slot_key[s] == -1) {
                slot_key[s] = key;
                slot_idx[s] = n_d;
                d_wid[n_d] = code;
                d_count[n_d] = 0;
                n_d++;
            }
            d_count[slot_idx[s]]++;
        }
        for (Py_ssize_t k = first_pair; k < n_d; k++) {
            const Py_ssize_t s = find_pair(t_codes, t_size, d_wid[k]);
            if (s == -2)
                goto done;
            if (s >= 0) {
                if (m > n) {
                    PyErr_SetString(PyExc_RuntimeError, "term count out of range");
                    goto done;
                }
                js[m] = t_cols[s];
                tf[m] = (double)d_count[k];
                m++;
            }
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
    return result;
}

PyDoc_STRVAR(decide_doc,
"decide(cols, w, coef_t, n_classes, out)\n"
"\n"
"out[c] = the sum over j, in order from 0.0, of float64(float32(w[j])) * coef_t[cols[j], c]\n"
"for every class c: a linear model's decision values (before the intercept) of one sparse\n"
"TF-IDF row. cols: int64, each in [0, rows of coef_t); w: float64, as long as cols; coef_t:\n"
"float64, C order, n_classes columns; out: float64, n_classes, writable.");

/*
 * Why compiled: the numpy version (classify.stacked._ViewModel._sparse_decision) gathers
 * the rows of coef_t, multiplies and reduces them, six array operations a view; here one
 * pass. The same arithmetic, so the same bits: each value rounded to float32 and widened
 * (what storing the row as float32 gives), each product in float64, added row after row to
 * a sum starting at zero (numpy's reduction along the first axis adds rows in order).
 */
#if defined(__GNUC__) && !defined(__clang__)
/* a product and a sum are two roundings, as in numpy: no fused multiply-add even where the
   target has one (clang fuses only within one expression, which the loop never writes) */
__attribute__((optimize("fp-contract=off")))
#endif
static PyObject *
decide(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer cb, wb, kb, ob;
    Py_ssize_t k;
    if (!PyArg_ParseTuple(args, "y*y*y*nw*", &cb, &wb, &kb, &k, &ob))
        return NULL;
    PyObject *result = NULL;
    const Py_ssize_t n = cb.len / (Py_ssize_t)sizeof(int64_t);
    if (k < 1 || cb.len % sizeof(int64_t) || wb.len != n * (Py_ssize_t)sizeof(double) ||
        kb.len % (k * (Py_ssize_t)sizeof(double)) || ob.len != k * (Py_ssize_t)sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "arguments do not fit (see the docstring)");
        goto done;
    }
    const Py_ssize_t n_rows = kb.len / (k * (Py_ssize_t)sizeof(double));
    const int64_t *cols = (const int64_t *)cb.buf;
    const double *w = (const double *)wb.buf, *coef = (const double *)kb.buf;
    double *out = (double *)ob.buf;
    for (Py_ssize_t j = 0; j < n; j++) {
        if (cols[j] < 0 || cols[j] >= n_rows) {
            PyErr_SetString(PyExc_ValueError, "column out of range");
            goto done;
        }
    }
    for (Py_ssize_t c = 0; c < k; c++)
        out[c] = 0.0;
    for (Py_ssize_t j = 0; j < n; j++) {
        const double v = (double)(float)w[j];
        const double *row = coef + cols[j] * k;
        for (Py_ssize_t c = 0; c < k; c++) {
            const double p = v * row[c];
            out[c] += p;
        }
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&cb);
    PyBuffer_Release(&wb);
    PyBuffer_Release(&kb);
    PyBuffer_Release(&ob);
    return result;
}

static PyMethodDef methods[] = {
    {"decide", decide, METH_VARARGS, decide_doc},
    {"terms", terms, METH_VARARGS, terms_doc},
    {"table", table, METH_VARARGS, table_doc},
    {"vocab", vocab, METH_VARARGS, vocab_doc},
    {"ascii_vocab", ascii_vocab, METH_VARARGS, ascii_vocab_doc},
    {"scan", scan, METH_VARARGS, scan_doc},
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
