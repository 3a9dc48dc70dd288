/*
 * The language detector's feature counts (webseg.langscore.scores): py3langid's
 * ``visit_counts``, compiled.
 *
 * Why compiled: py3langid walks a finite automaton over a text's UTF-8 bytes one Python step
 * per byte (two list look-ups, a comparison, an append) and counts the emitted features in a
 * Counter; on a page's first 500 characters that is most of identifying its language. The
 * walk here makes the same steps over the same tables, so the states, the features and their
 * counts are the same; the features come out in the order of their first occurrence, the
 * order in which a Counter built from the emitted list yields its keys, which is the order
 * py3langid sums their scores in (so even the float32 rounding of the scores stays the same).
 *
 * Inputs arrive through the buffer protocol: nm (uint32: the transition table, rows of 256
 * next states), rowbase (int64, one per state: offset of the state's row in nm), out (int64,
 * one per state: the feature emitted on entering it, -1 for none), data (the bytes). Every
 * index is checked; a table that points outside itself raises ValueError.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

PyDoc_STRVAR(counts_doc,
"counts(nm, rowbase, out, data) -> (features, counts) or None\n"
"\n"
"Walk the automaton from state 0 over the bytes of data; every state entered that emits a\n"
"feature (out[state] >= 0) counts it. Returns None when no feature is emitted, else two\n"
"bytes objects: the distinct features as native Py_ssize_t (numpy intp) in order of first\n"
"occurrence, and their counts as float32, in the same order. See the file comment.");

static PyObject *
counts(PyObject *self, PyObject *args)
{
    Py_buffer nb, rb, ob, db;
    if (!PyArg_ParseTuple(args, "y*y*y*y*", &nb, &rb, &ob, &db))
        return NULL;
    PyObject *result = NULL, *feat_bytes = NULL, *count_bytes = NULL;
    int64_t *slot_feat = NULL; /* open-addressing table: feature -> its slot in the output */
    Py_ssize_t *slot_of = NULL;
    Py_ssize_t *feats = NULL;
    int64_t *cnts = NULL;
    float *fcnts = NULL;
    const uint32_t *nm = nb.buf;
    const int64_t *rowbase = rb.buf, *out = ob.buf;
    const unsigned char *data = db.buf;
    Py_ssize_t n_nm = nb.len / 4, n_states = rb.len / 8, n_data = db.len;
    if (nb.len % 4 || rb.len % 8 || ob.len % 8 || ob.len != rb.len || n_states < 1) {
        PyErr_SetString(PyExc_ValueError, "counts: nm must be uint32, rowbase and out int64 "
                        "arrays of one entry per state");
        goto done;
    }
    /* the table: a power of two at least twice the bytes, so it is never over half full */
    size_t cap = 16;
    while (cap < (size_t)n_data * 2 + 2)
        cap <<= 1;
    slot_feat = PyMem_Malloc(cap * sizeof(int64_t));
    slot_of = PyMem_Malloc(cap * sizeof(Py_ssize_t));
    feats = PyMem_Malloc(((size_t)n_data + 1) * sizeof(Py_ssize_t));
    cnts = PyMem_Malloc(((size_t)n_data + 1) * sizeof(int64_t));
    if (slot_feat == NULL || slot_of == NULL || feats == NULL || cnts == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memset(slot_feat, 0xff, cap * sizeof(int64_t)); /* every entry -1: empty */
    Py_ssize_t n_feats = 0;
    int64_t state = 0;
    for (Py_ssize_t i = 0; i < n_data; i++) {
        int64_t at = rowbase[state] + (int64_t)data[i];
        if (at < 0 || at >= (int64_t)n_nm) {
            PyErr_SetString(PyExc_ValueError, "counts: a row offset outside the table");
            goto done;
        }
        state = (int64_t)nm[at];
        if (state >= (int64_t)n_states) {
            PyErr_SetString(PyExc_ValueError, "counts: a state outside the table");
            goto done;
        }
        int64_t f = out[state];
        if (f < 0)
            continue;
        size_t h = ((uint64_t)f * 0x9E3779B97F4A7C15ULL) >> 20;
        for (;;) {
            h &= cap - 1;
            if (slot_feat[h] == f) {
                cnts[slot_of[h]] += 1;
                break;
            }
            if (slot_feat[h] < 0) {
                slot_feat[h] = f;
                slot_of[h] = n_feats;
                feats[n_feats] = (Py_ssize_t)f;
                cnts[n_feats] = 1;
                n_feats++;
                break;
            }
            h++;
        }
    }
    if (n_feats == 0) {
        Py_INCREF(Py_None);
        result = Py_None;
        goto done;
    }
    /* the counts as float32, as np.fromiter(..., dtype=np.float32) converts Python ints:
       through a double (exact below 2**53), then rounded to nearest */
    fcnts = PyMem_Malloc((size_t)n_feats * sizeof(float));
    if (fcnts == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < n_feats; k++)
        fcnts[k] = (float)(double)cnts[k];
    feat_bytes = PyBytes_FromStringAndSize((const char *)feats,
                                           n_feats * (Py_ssize_t)sizeof(Py_ssize_t));
    count_bytes = PyBytes_FromStringAndSize((const char *)fcnts,
                                            n_feats * (Py_ssize_t)sizeof(float));
    if (feat_bytes != NULL && count_bytes != NULL)
        result = PyTuple_Pack(2, feat_bytes, count_bytes);
done:
    Py_XDECREF(feat_bytes);
    Py_XDECREF(count_bytes);
    PyMem_Free(slot_feat);
    PyMem_Free(slot_of);
    PyMem_Free(feats);
    PyMem_Free(cnts);
    PyMem_Free(fcnts);
    PyBuffer_Release(&nb);
    PyBuffer_Release(&rb);
    PyBuffer_Release(&ob);
    PyBuffer_Release(&db);
    return result;
}

static PyMethodDef methods[] = {
    {"counts", counts, METH_VARARGS, counts_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "langwalk",
    "The language detector's byte n-gram feature counts (webseg.langscore), compiled.", -1,
    methods,
};

PyMODINIT_FUNC
PyInit_langwalk(void)
{
    return PyModule_Create(&module);
}
