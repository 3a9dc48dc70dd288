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

static int
token_mask(const char *tok, Py_ssize_t len, PyObject *words, PyObject *stems,
           const Py_ssize_t *lens, Py_ssize_t n_lens, uint64_t *mask)
{
    if (lookup(words, tok, len, mask) < 0)
        return -1;
    if (len >= 4) {
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

static PyMethodDef methods[] = {
    {"mask2", (PyCFunction)(void (*)(void))mask2, METH_FASTCALL, mask2_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "vocabmask",
    "Category masks of class and id values (webseg.blocks.vocab), compiled.", -1, methods,
};

PyMODINIT_FUNC
PyInit_vocabmask(void)
{
    return PyModule_Create(&module);
}
