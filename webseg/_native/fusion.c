/*
 * Block fusion's merge loop (webseg.segmenters.blockfusion, modes "rulebased" and "plain").
 *
 * Why compiled: the segment stage fuses a page's atomic text blocks pass after pass, each
 * merge re-wrapping the joined tokens into lines; in Python that is a few hundred small
 * function calls a page, most of the stage's cost. The numbers are integers (token counts,
 * line counts) and one division per density, the same IEEE operations as the Python code,
 * so the blocks and densities are the same bit for bit. blockfusion.py keeps the Python loop
 * (and is the only path for the "smoothed" mode).
 *
 * Inputs arrive through the buffer protocol: cum (int64, n_tokens + 1: prefix sums of
 * len(token) + 1), tok_start (int64, n_leaves + 1: index of each leaf's first token), cuts
 * (int64: atomic-block boundaries, leaf positions, first 0, last n_leaves, increasing),
 * barrier (one byte per leaf position 0..n_leaves: a gap-enforcing tag there). Every index is
 * checked; bad input raises ValueError.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

typedef struct {
    int64_t a, b, s, e, lines, last;
    double rho;
} Block;

/* the first index i in [lo, hi) with cum[i] > x, hi when none (bisect.bisect_right) */
static Py_ssize_t
bisect_right(const int64_t *cum, int64_t x, Py_ssize_t lo, Py_ssize_t hi)
{
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (x < cum[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* greedy wrap of tokens start:end at width characters: lines, first token of the last line
   (blockfusion._wrap); start <= end < n_cum is checked by the caller */
static void
wrap(const int64_t *cum, int64_t start, int64_t end, int64_t width, int64_t *lines,
     int64_t *last)
{
    int64_t n = 1, s = start;
    for (;;) {
        int64_t t = (int64_t)bisect_right(cum, cum[s] + width + 1, (Py_ssize_t)s + 1,
                                          (Py_ssize_t)end + 1) - 1;
        if (t <= s)
            t = s + 1;
        if (t >= end) {
            *lines = n;
            *last = s;
            return;
        }
        s = t;
        n++;
    }
}

static double
density(int64_t start, int64_t end, int64_t lines, int64_t last)
{
    if (lines <= 1)
        return (double)(end - start);
    return (double)(last - start) / (double)(lines - 1);
}

static double
density_ratio(double d1, double d2)
{
    double m = d2 > d1 ? d2 : d1;
    return m > 0 ? fabs(d1 - d2) / m : 0.0;
}

PyDoc_STRVAR(fuse_doc,
"fuse(cum, tok_start, cuts, barrier, width, theta) -> list of (first, stop, density)\n"
"\n"
"BlockFusion's merge passes (no smoothing): neighbouring blocks whose density ratio is at\n"
"most theta fuse unless the barrier is set at the later one's first leaf, until a pass\n"
"changes nothing. See the file comment for the arrays.");

static PyObject *
fuse(PyObject *self, PyObject *args)
{
    Py_buffer cb, tb, kb, bb;
    long long width_ll;
    double theta;
    if (!PyArg_ParseTuple(args, "y*y*y*y*Ld", &cb, &tb, &kb, &bb, &width_ll, &theta))
        return NULL;
    PyObject *result = NULL;
    Block *blocks = NULL;
    const int64_t *cum = cb.buf, *tok_start = tb.buf, *cuts = kb.buf;
    const unsigned char *barrier = bb.buf;
    Py_ssize_t n_cum = cb.len / 8, n_ts = tb.len / 8, n_cuts = kb.len / 8;
    Py_ssize_t n_leaves = n_ts - 1;
    int64_t width = (int64_t)width_ll;
    if (cb.len % 8 || tb.len % 8 || kb.len % 8 || n_cum < 1 || n_ts < 1 || n_cuts < 2
        || bb.len != n_ts || width < 0 || width > ((int64_t)1 << 40)) {
        PyErr_SetString(PyExc_ValueError, "fuse: arrays of the wrong size, or a width out of "
                        "range (0 .. 2**40)");
        goto done;
    }
    if (cuts[0] != 0 || cuts[n_cuts - 1] != n_leaves || tok_start[0] != 0
        || tok_start[n_leaves] != n_cum - 1) {
        PyErr_SetString(PyExc_ValueError, "fuse: cuts or token starts do not span the page");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n_leaves; i++) {
        if (tok_start[i + 1] < tok_start[i]) {
            PyErr_SetString(PyExc_ValueError, "fuse: token starts must not decrease");
            goto done;
        }
    }
    if (cum[0] < 0 || cum[n_cum - 1] > ((int64_t)1 << 60)) {
        PyErr_SetString(PyExc_ValueError, "fuse: cum out of range");
        goto done;
    }
    for (Py_ssize_t i = 0; i + 1 < n_cum; i++) {
        if (cum[i + 1] <= cum[i]) {
            PyErr_SetString(PyExc_ValueError, "fuse: cum must increase");
            goto done;
        }
    }
    Py_ssize_t m = n_cuts - 1;
    blocks = PyMem_Malloc((size_t)m * sizeof(Block));
    if (blocks == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < m; k++) {
        int64_t a = cuts[k], b = cuts[k + 1];
        if (b <= a) {
            PyErr_SetString(PyExc_ValueError, "fuse: cuts must increase");
            goto done;
        }
        Block *x = &blocks[k];
        x->a = a;
        x->b = b;
        x->s = tok_start[a];
        x->e = tok_start[b];
        wrap(cum, x->s, x->e, width, &x->lines, &x->last);
        x->rho = density(x->s, x->e, x->lines, x->last);
    }
    int changed = 1;
    while (changed && m > 1) {
        changed = 0;
        Py_ssize_t out = 0; /* blocks[0..out] is the pass's output so far */
        for (Py_ssize_t k = 1; k < m; k++) {
            Block *x = &blocks[out], y = blocks[k];
            if (!barrier[y.a] && density_ratio(x->rho, y.rho) <= theta) {
                int64_t lines2, last2;
                wrap(cum, x->last, y.e, width, &lines2, &last2);
                x->lines = x->lines - 1 + lines2;
                x->last = last2;
                x->b = y.b;
                x->e = y.e;
                x->rho = density(x->s, y.e, x->lines, last2);
                changed = 1;
            } else {
                blocks[++out] = y;
            }
        }
        m = out + 1;
    }
    result = PyList_New(m);
    for (Py_ssize_t k = 0; result != NULL && k < m; k++) {
        PyObject *t = Py_BuildValue("(LLd)", (long long)blocks[k].a, (long long)blocks[k].b,
                                    blocks[k].rho);
        if (t == NULL)
            Py_CLEAR(result);
        else
            PyList_SET_ITEM(result, k, t);
    }
done:
    PyMem_Free(blocks);
    PyBuffer_Release(&cb);
    PyBuffer_Release(&tb);
    PyBuffer_Release(&kb);
    PyBuffer_Release(&bb);
    return result;
}

static PyMethodDef methods[] = {
    {"fuse", fuse, METH_VARARGS, fuse_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "fusion",
    "BlockFusion's merge loop (webseg.segmenters.blockfusion), compiled.", -1, methods,
};

PyMODINIT_FUNC
PyInit_fusion(void)
{
    return PyModule_Create(&module);
}
