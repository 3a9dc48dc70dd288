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

/* The chains the walk runs side by side when the automaton's state depends on the last
   ``window`` bytes only (see counts_doc): independent table reads the processor overlaps,
   where one chain waits for each read before the next (the tables, 40 MB, are mostly out of
   the caches when a page's language is asked between the other stages' work). */
#define CHAINS 8

/* the state entered at each position of data[lo:hi], walking from `state` */
static int
walk_span(const uint32_t *nm, Py_ssize_t n_nm, const int64_t *rowbase, Py_ssize_t n_states,
          const unsigned char *data, Py_ssize_t lo, Py_ssize_t hi, int64_t state,
          int64_t *states)
{
    for (Py_ssize_t i = lo; i < hi; i++) {
        int64_t at = rowbase[state] + (int64_t)data[i];
        if (at < 0 || at >= (int64_t)n_nm)
            return -1;
        state = (int64_t)nm[at];
        if (state >= (int64_t)n_states)
            return -1;
        states[i] = state;
    }
    return 0;
}

PyDoc_STRVAR(counts_doc,
"counts(nm, rowbase, out, data, window=0) -> (features, counts) or None\n"
"\n"
"Walk the automaton from state 0 over the bytes of data; every state entered that emits a\n"
"feature (out[state] >= 0) counts it. Returns None when no feature is emitted, else two\n"
"bytes objects: the distinct features as native Py_ssize_t (numpy intp) in order of first\n"
"occurrence, and their counts as float32, in the same order. See the file comment.\n"
"window > 0 says that the state after any input is the state after its last `window`\n"
"bytes alone (proven for the model by webseg.langscore.window_of): the bytes are then\n"
"walked in several chains at once, each started `window` - 1 bytes before its part; the\n"
"same states, so the same result.");

static PyObject *
counts(PyObject *self, PyObject *args)
{
    Py_buffer nb, rb, ob, db;
    Py_ssize_t window = 0;
    if (!PyArg_ParseTuple(args, "y*y*y*y*|n", &nb, &rb, &ob, &db, &window))
        return NULL;
    int64_t *states = NULL;
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
    states = PyMem_Malloc(((size_t)n_data + 1) * sizeof(int64_t));
    if (states == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t span = n_data / CHAINS;
    if (window > 0 && span > window) {
        /* CHAINS parts; part c starts its walk window - 1 bytes early (from state 0), and
           from there is in the state of the whole walk (the window property) */
        Py_ssize_t pos[CHAINS], end[CHAINS];
        int64_t st[CHAINS];
        int bad = 0;
        for (int c = 0; c < CHAINS; c++) {
            Py_ssize_t lo = (Py_ssize_t)c * span;
            end[c] = c == CHAINS - 1 ? n_data : lo + span;
            Py_ssize_t warm = c == 0 ? 0 : lo - (window - 1);
            st[c] = 0;
            pos[c] = lo;
            if (warm < lo) { /* the warm-up states are thrown away: kept in states[warm:lo],
                                which the previous part overwrites (it ends at lo) */
                if (walk_span(nm, n_nm, rowbase, n_states, data, warm, lo, 0, states) < 0)
                    bad = 1;
                else
                    st[c] = states[lo - 1];
            }
        }
        /* the parts' steps interleaved, so their table reads overlap */
        for (Py_ssize_t k = 0; k < span && !bad; k++) {
            for (int c = 0; c < CHAINS; c++) {
                Py_ssize_t i = pos[c] + k;
                int64_t at = rowbase[st[c]] + (int64_t)data[i];
                if (at < 0 || at >= (int64_t)n_nm) {
                    bad = 1;
                    break;
                }
                int64_t next = (int64_t)nm[at];
                if (next >= (int64_t)n_states) {
                    bad = 1;
                    break;
                }
                st[c] = next;
                states[i] = next;
            }
        }
        /* the last part's remainder (it is longer by n_data % CHAINS) */
        Py_ssize_t tail = pos[CHAINS - 1] + span;
        if (!bad && walk_span(nm, n_nm, rowbase, n_states, data, tail, end[CHAINS - 1],
                              st[CHAINS - 1], states) < 0)
            bad = 1;
        if (bad) {
            PyErr_SetString(PyExc_ValueError, "counts: a row offset or state outside the "
                            "table");
            goto done;
        }
    } else if (walk_span(nm, n_nm, rowbase, n_states, data, 0, n_data, 0, states) < 0) {
        PyErr_SetString(PyExc_ValueError, "counts: a row offset or state outside the table");
        goto done;
    }
    Py_ssize_t n_feats = 0;
    for (Py_ssize_t i = 0; i < n_data; i++) {
        int64_t f = out[states[i]];
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
    PyMem_Free(states);
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
