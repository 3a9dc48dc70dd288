/*
 * The category bit mask of an element's class and id values (webseg.blocks.vocab).
 *
 * Why compiled: the block model asks for the mask of every element's (class, id, role); a
 * page's values are mostly new to the cache (generated class names), and the Python path
 * pays a lower(), a regular-expression split and a cached look-up per token for each, about
 * 5 microseconds a value, a millisecond a page. This loop does the same in one pass.
 *
 * What it computes, exactly as webseg/blocks/vocab.py's _value_mask (which stays the
 * fallback, and the only path for values that are not pure ASCII, where str.lower() has
 * Unicode rules this file does not repeat):
 *   - camelCase split: a token boundary before an upper-case letter A-Z that follows a
 *     lower-case letter a-z or a digit (the regex ([a-z0-9])([A-Z]) substituted with a space,
 *     whose non-overlapping matches are exactly those places);
 *   - lower case, then tokens are the maximal runs of [a-z0-9];
 *   - per token t: words[t], and when len(t) >= 4, stems[t[:k]] for every stem length k
 *     (given in `lens`) with k <= len(t); all OR-ed together.
 * `words` and `stems` map str -> int (the bits); `lens` is a tuple of ints.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* OR of dict[key] for key = buf[0:len], or -1 with an exception set */
static int
lookup(PyObject *dict, const char *buf, Py_ssize_t len, uint64_t *mask)
{
    PyObject *key = PyUnicode_FromStringAndSize(buf, len);
    if (key == NULL)
        return -1;
    PyObject *v = PyDict_GetItemWithError(dict, key); /* borrowed */
    Py_DECREF(key);
    if (v == NULL)
        return PyErr_Occurred() ? -1 : 0;
    unsigned long long bits = PyLong_AsUnsignedLongLong(v);
    if (bits == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    *mask |= (uint64_t)bits;
    return 0;
}

/* The first two characters of every stem: a token whose first two are none of them
   starts with no stem, and needs no look-up per stem length (most tokens). Built for the
   stems dict last seen (held, and rebuilt when another dict or a changed size comes);
   `stem_filter_on` is 0 when some stem is shorter than 2 or not ASCII (then every length is
   looked up, as in Python). */
static PyObject *stem_filter_for = NULL;
static Py_ssize_t stem_filter_size = -1;
static int stem_filter_on = 0;
static unsigned char stem_bigram[128][128];

static int
stem_filter(PyObject *stems)
{
    if (stems == stem_filter_for && PyDict_GET_SIZE(stems) == stem_filter_size)
        return 0;
    memset(stem_bigram, 0, sizeof(stem_bigram));
    stem_filter_on = 1;
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(stems, &pos, &key, &value)) {
        if (!PyUnicode_Check(key) || !PyUnicode_IS_ASCII(key) || PyUnicode_GET_LENGTH(key) < 2) {
            stem_filter_on = 0;
            continue;
        }
        const unsigned char *k = PyUnicode_1BYTE_DATA(key);
        stem_bigram[k[0] & 127][k[1] & 127] = 1;
    }
    Py_INCREF(stems);
    Py_XSETREF(stem_filter_for, stems);
    stem_filter_size = PyDict_GET_SIZE(stems);
    return 0;
}

/* The words and stems again as small C hash tables (open addressing, FNV-1a over the
   bytes), so that a token needs no Python string to be looked up: built with the stem
   filter, for the dicts last seen; `tables_on` is 0 (the dicts are asked) when a key is not
   a str, longer than KEY_MAX, a value is no int of 64 bits, or a table would be over half
   full. Non-ASCII keys are left out: they never equal an ASCII token. */
#define KEY_MAX 31
#define WORD_SLOTS 2048
#define STEM_SLOTS 512
typedef struct {
    char key[KEY_MAX + 1];
    Py_ssize_t len; /* 0: free slot */
    uint64_t bits;
} Entry;
static Entry word_tab[WORD_SLOTS], stem_tab[STEM_SLOTS];
static PyObject *tables_for = NULL;
static Py_ssize_t tables_size = -1;
static int tables_on = 0;

static uint64_t
fnv1a(const char *s, Py_ssize_t len)
{
    uint64_t h = 1469598103934665603ULL;
    for (Py_ssize_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static uint64_t
tab_get(const Entry *tab, Py_ssize_t slots, const char *s, Py_ssize_t len)
{
    if (len > KEY_MAX)
        return 0;
    for (uint64_t i = fnv1a(s, len) & (uint64_t)(slots - 1);; i = (i + 1) & (uint64_t)(slots - 1)) {
        const Entry *e = &tab[i];
        if (e->len == 0)
            return 0;
        if (e->len == len && memcmp(e->key, s, (size_t)len) == 0)
            return e->bits;
    }
}

/* 1 when every key fits, 0 when the table cannot stand for the dict; -1 on error */
static int
tab_fill(Entry *tab, Py_ssize_t slots, PyObject *dict)
{
    memset(tab, 0, (size_t)slots * sizeof(Entry));
    if (PyDict_GET_SIZE(dict) * 2 > slots)
        return 0;
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(dict, &pos, &key, &value)) {
        if (!PyUnicode_Check(key) || !PyLong_Check(value))
            return 0;
        if (!PyUnicode_IS_ASCII(key))
            continue;
        Py_ssize_t len = PyUnicode_GET_LENGTH(key);
        if (len > KEY_MAX)
            return 0;
        if (len == 0)
            return 0; /* an empty key never matches a token; keep the dict path simple */
        unsigned long long bits = PyLong_AsUnsignedLongLong(value);
        if (bits == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        const char *k = (const char *)PyUnicode_1BYTE_DATA(key);
        uint64_t i = fnv1a(k, len) & (uint64_t)(slots - 1);
        while (tab[i].len != 0)
            i = (i + 1) & (uint64_t)(slots - 1);
        memcpy(tab[i].key, k, (size_t)len);
        tab[i].len = len;
        tab[i].bits = (uint64_t)bits;
    }
    return 1;
}

static void
tables(PyObject *words, PyObject *stems)
{
    Py_ssize_t size = PyDict_GET_SIZE(words) * 4096 + PyDict_GET_SIZE(stems);
    if (words == tables_for && size == tables_size && stems == stem_filter_for)
        return;
    tables_on = tab_fill(word_tab, WORD_SLOTS, words) == 1
        && tab_fill(stem_tab, STEM_SLOTS, stems) == 1;
    Py_INCREF(words);
    Py_XSETREF(tables_for, words);
    tables_size = size;
}

static int
token_mask(const char *tok, Py_ssize_t len, PyObject *words, PyObject *stems,
           const Py_ssize_t *lens, Py_ssize_t n_lens, uint64_t *mask)
{
    if (tables_on) {
        *mask |= tab_get(word_tab, WORD_SLOTS, tok, len);
        if (len >= 4 && (!stem_filter_on
                         || stem_bigram[(unsigned char)tok[0] & 127][(unsigned char)tok[1] & 127])) {
            for (Py_ssize_t i = 0; i < n_lens; i++) {
                if (lens[i] <= len)
                    *mask |= tab_get(stem_tab, STEM_SLOTS, tok, lens[i]);
            }
        }
        return 0;
    }
    if (lookup(words, tok, len, mask) < 0)
        return -1;
    if (len >= 4 && (!stem_filter_on
                     || stem_bigram[(unsigned char)tok[0] & 127][(unsigned char)tok[1] & 127])) {
        for (Py_ssize_t i = 0; i < n_lens; i++) {
            if (lens[i] <= len && lookup(stems, tok, lens[i], mask) < 0)
                return -1;
        }
    }
    return 0;
}

/* mask of one ASCII value; 1 when done, 0 when the value is not ASCII, -1 on error */
static int
value_mask(PyObject *value, PyObject *words, PyObject *stems, const Py_ssize_t *lens,
           Py_ssize_t n_lens, uint64_t *mask)
{
    if (!PyUnicode_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "class and id values must be str or None");
        return -1;
    }
    if (!PyUnicode_IS_ASCII(value))
        return 0;
    tables(words, stems); /* before the filter: it compares the stems dict last seen */
    stem_filter(stems);
    const char *s = (const char *)PyUnicode_DATA(value);
    Py_ssize_t n = PyUnicode_GET_LENGTH(value);
    char small[256];
    char *tok = n <= (Py_ssize_t)sizeof(small) ? small : PyMem_Malloc((size_t)n);
    if (tok == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t len = 0;
    int prev_lower_or_digit = 0, rc = 1;
    for (Py_ssize_t i = 0; i <= n; i++) {
        char c = i < n ? s[i] : ' ';
        int upper = c >= 'A' && c <= 'Z';
        int lower = c >= 'a' && c <= 'z';
        int digit = c >= '0' && c <= '9';
        int in_token = upper || lower || digit;
        if (len > 0 && (!in_token || (upper && prev_lower_or_digit))) {
            if (token_mask(tok, len, words, stems, lens, n_lens, mask) < 0) {
                rc = -1;
                break;
            }
            len = 0;
        }
        if (in_token)
            tok[len++] = upper ? (char)(c - 'A' + 'a') : c;
        prev_lower_or_digit = lower || digit;
    }
    if (tok != small)
        PyMem_Free(tok);
    return rc;
}

PyDoc_STRVAR(mask2_doc,
"mask2(cls, ident, words, stems, lens) -> int or None\n"
"\n"
"OR of the category masks of the class value and the id value (each a str or None; None\n"
"and the empty string give 0), computed as webseg.blocks.vocab._value_mask does; None when\n"
"one of them is not pure ASCII (the caller then takes the Python path).");

static PyObject *
mask2(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "mask2 takes 5 arguments");
        return NULL;
    }
    PyObject *words = args[2], *stems = args[3], *lens_obj = args[4];
    if (!PyDict_Check(words) || !PyDict_Check(stems) || !PyTuple_Check(lens_obj)) {
        PyErr_SetString(PyExc_TypeError, "mask2: words and stems must be dicts, lens a tuple");
        return NULL;
    }
    Py_ssize_t lens[32];
    Py_ssize_t n_lens = PyTuple_GET_SIZE(lens_obj);
    if (n_lens > 32) {
        PyErr_SetString(PyExc_ValueError, "mask2: at most 32 stem lengths");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n_lens; i++) {
        lens[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(lens_obj, i));
        if (lens[i] == -1 && PyErr_Occurred())
            return NULL;
        if (lens[i] < 1) {
            PyErr_SetString(PyExc_ValueError, "mask2: stem lengths must be positive");
            return NULL;
        }
    }
    uint64_t mask = 0;
    for (int k = 0; k < 2; k++) {
        if (args[k] == Py_None)
            continue;
        int rc = value_mask(args[k], words, stems, lens, n_lens, &mask);
        if (rc < 0)
            return NULL;
        if (rc == 0)
            Py_RETURN_NONE;
    }
    return PyLong_FromUnsignedLongLong(mask);
}

/* interned attribute names, made at import */
static PyObject *s_class, *s_id, *s_role, *s_href, *s_a;

/* the mask of one class or id value: from `cache` (str -> int), else computed here (ASCII)
   or by py_value_mask (the Python function, for any other value), then cached; -1 on error */
static int
cached_value_mask(PyObject *value, PyObject *cache, PyObject *py_value_mask,
                  PyObject *words, PyObject *stems, const Py_ssize_t *lens, Py_ssize_t n_lens,
                  uint64_t *mask)
{
    PyObject *hit = PyDict_GetItemWithError(cache, value); /* borrowed */
    if (hit == NULL && PyErr_Occurred())
        return -1;
    if (hit == NULL) {
        uint64_t m = 0;
        int rc = PyUnicode_Check(value) ? value_mask(value, words, stems, lens, n_lens, &m) : 0;
        if (rc < 0)
            return -1;
        PyObject *v = rc ? PyLong_FromUnsignedLongLong(m)
                         : PyObject_CallOneArg(py_value_mask, value);
        if (v == NULL)
            return -1;
        if (PyDict_SetItem(cache, value, v) < 0) {
            Py_DECREF(v);
            return -1;
        }
        hit = v;
        Py_DECREF(v); /* the cache holds it */
    }
    unsigned long long bits = PyLong_AsUnsignedLongLong(hit);
    if (bits == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    *mask |= (uint64_t)bits;
    return 0;
}

static int
parse_lens(PyObject *lens_obj, Py_ssize_t *lens, Py_ssize_t *n_lens)
{
    if (!PyTuple_Check(lens_obj) || PyTuple_GET_SIZE(lens_obj) > 32) {
        PyErr_SetString(PyExc_ValueError, "stem lengths: a tuple of at most 32 ints");
        return -1;
    }
    *n_lens = PyTuple_GET_SIZE(lens_obj);
    for (Py_ssize_t i = 0; i < *n_lens; i++) {
        lens[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(lens_obj, i));
        if (lens[i] == -1 && PyErr_Occurred())
            return -1;
        if (lens[i] < 1) {
            PyErr_SetString(PyExc_ValueError, "stem lengths must be positive");
            return -1;
        }
    }
    return 0;
}

PyDoc_STRVAR(scan_doc,
"scan(attrs, tags, masks, cls_code, is_link, classes, cache, py_value_mask, py_mask3,\n"
"     words, stems, lens) -> None\n"
"\n"
"The attribute pass of webseg.blocks.features._markup over a page's nodes. attrs: list of\n"
"dict or None; tags: list of str, as long. Writes per node, where it has attributes:\n"
"masks[i] (int64) the category mask of its class, id and role; cls_code[i] (int64)\n"
"classes.setdefault(class, len(classes)) for a non-empty class; is_link[i] (bool) for an\n"
"'a' with an href. Class and id masks come from `cache` (str -> int, filled here), computed\n"
"as mask2 does or by py_value_mask(value) for non-ASCII values; an element with a role\n"
"takes py_mask3(class, id, role) whole.");

static PyObject *
scan(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 12) {
        PyErr_SetString(PyExc_TypeError, "scan takes 12 arguments");
        return NULL;
    }
    PyObject *attrs = args[0], *tags = args[1], *classes = args[5], *cache = args[6];
    PyObject *py_value_mask = args[7], *py_mask3 = args[8], *words = args[9];
    PyObject *stems = args[10];
    if (!PyList_Check(attrs) || !PyList_Check(tags) || !PyDict_Check(classes)
        || !PyDict_Check(cache) || !PyDict_Check(words) || !PyDict_Check(stems)
        || !PyCallable_Check(py_value_mask) || !PyCallable_Check(py_mask3)) {
        PyErr_SetString(PyExc_TypeError, "scan: wrong argument types");
        return NULL;
    }
    Py_ssize_t lens[32], n_lens;
    if (parse_lens(args[11], lens, &n_lens) < 0)
        return NULL;
    Py_buffer mb, cb, lb;
    if (PyObject_GetBuffer(args[2], &mb, PyBUF_WRITABLE) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[3], &cb, PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&mb);
        return NULL;
    }
    if (PyObject_GetBuffer(args[4], &lb, PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&mb);
        PyBuffer_Release(&cb);
        return NULL;
    }
    /* a tuple copy of attrs: the Python callbacks must not change what we walk */
    PyObject *items = PySequence_Tuple(attrs), *tag_items = PySequence_Tuple(tags);
    PyObject *result = NULL;
    if (items == NULL || tag_items == NULL)
        goto done;
    Py_ssize_t n = PyTuple_GET_SIZE(items);
    if (PyTuple_GET_SIZE(tag_items) != n || mb.len != n * 8 || cb.len != n * 8
        || lb.len != n) {
        PyErr_SetString(PyExc_ValueError, "scan: attrs, tags and outputs differ in length");
        goto done;
    }
    int64_t *masks = mb.buf, *cls_code = cb.buf;
    unsigned char *is_link = lb.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = PyTuple_GET_ITEM(items, i);
        if (a == Py_None)
            continue;
        if (!PyDict_Check(a)) {
            PyErr_SetString(PyExc_TypeError, "scan: attrs must be dicts or None");
            goto done;
        }
        if (PyDict_GET_SIZE(a) == 0)
            continue;
        Py_INCREF(a); /* callbacks run Python code */
        PyObject *c = PyDict_GetItemWithError(a, s_class);
        PyObject *id = c || !PyErr_Occurred() ? PyDict_GetItemWithError(a, s_id) : NULL;
        PyObject *role = !PyErr_Occurred() ? PyDict_GetItemWithError(a, s_role) : NULL;
        if (PyErr_Occurred()) {
            Py_DECREF(a);
            goto done;
        }
        Py_XINCREF(c);
        Py_XINCREF(id);
        Py_XINCREF(role);
        uint64_t mask = 0;
        int rc = 0;
        if (role != NULL && role != Py_None) {
            PyObject *v = PyObject_CallFunctionObjArgs(py_mask3, c ? c : Py_None,
                                                       id ? id : Py_None, role, NULL);
            if (v == NULL) {
                rc = -1;
            } else {
                unsigned long long bits = PyLong_AsUnsignedLongLong(v);
                Py_DECREF(v);
                if (bits == (unsigned long long)-1 && PyErr_Occurred())
                    rc = -1;
                else
                    mask = (uint64_t)bits;
            }
        } else {
            /* _mask3: a falsy class or id counts 0 */
            for (int k = 0; k < 2 && rc == 0; k++) {
                PyObject *v = k == 0 ? c : id;
                if (v == NULL || v == Py_None)
                    continue;
                int truth = PyObject_IsTrue(v);
                if (truth < 0)
                    rc = -1;
                else if (truth)
                    rc = cached_value_mask(v, cache, py_value_mask, words, stems, lens,
                                           n_lens, &mask);
            }
        }
        if (rc == 0 && mask)
            masks[i] = (int64_t)mask;
        if (rc == 0 && c != NULL) {
            int truth = PyObject_IsTrue(c);
            if (truth < 0) {
                rc = -1;
            } else if (truth) {
                PyObject *next = PyLong_FromSsize_t(PyDict_GET_SIZE(classes));
                PyObject *code = next ? PyDict_SetDefault(classes, c, next) : NULL;
                Py_XDECREF(next);
                if (code == NULL) {
                    rc = -1;
                } else {
                    cls_code[i] = (int64_t)PyLong_AsLongLong(code);
                    if (cls_code[i] == -1 && PyErr_Occurred())
                        rc = -1;
                }
            }
        }
        if (rc == 0) {
            int has_href = PyDict_Contains(a, s_href);
            if (has_href < 0) {
                rc = -1;
            } else if (has_href) {
                int eq = PyObject_RichCompareBool(PyTuple_GET_ITEM(tag_items, i), s_a, Py_EQ);
                if (eq < 0)
                    rc = -1;
                else if (eq)
                    is_link[i] = 1;
            }
        }
        Py_XDECREF(c);
        Py_XDECREF(id);
        Py_XDECREF(role);
        Py_DECREF(a);
        if (rc < 0)
            goto done;
    }
    result = Py_NewRef(Py_None);
done:
    Py_XDECREF(items);
    Py_XDECREF(tag_items);
    PyBuffer_Release(&mb);
    PyBuffer_Release(&cb);
    PyBuffer_Release(&lb);
    return result;
}

static PyMethodDef methods[] = {
    {"mask2", (PyCFunction)(void (*)(void))mask2, METH_FASTCALL, mask2_doc},
    {"scan", (PyCFunction)(void (*)(void))scan, METH_FASTCALL, scan_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "vocabmask",
    "Category masks of class and id values (webseg.blocks.vocab), compiled.", -1, methods,
};

PyMODINIT_FUNC
PyInit_vocabmask(void)
{
    s_class = PyUnicode_InternFromString("class");
    s_id = PyUnicode_InternFromString("id");
    s_role = PyUnicode_InternFromString("role");
    s_href = PyUnicode_InternFromString("href");
    s_a = PyUnicode_InternFromString("a");
    if (!s_class || !s_id || !s_role || !s_href || !s_a)
        return NULL;
    return PyModule_Create(&module);
}
