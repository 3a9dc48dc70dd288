/*
 * The leaf every row reaches in every tree of a packed tree ensemble.
 *
 * Why compiled: the block model scores every leaf of a page with three ensembles of
 * hundreds of trees. numpy walks all (tree, row) pairs a level at a time, which pays a
 * dozen array operations per level; a plain loop per pair is several times cheaper and
 * needs no batching tricks. The Python side (webseg/blocks/gbt.py, classify/stacked.py)
 * keeps a numpy walk that gives the same leaves when this module is not built.
 *
 * Split rule (scikit-learn's histogram GBT): a number x goes left when x <= threshold; a
 * missing value (NaN) goes the side learned in training (missing_left). Leaves are found
 * by is_leaf, never by a sentinel child.
 *
 * Arrays arrive through the buffer protocol as raw bytes (the caller passes C-contiguous
 * numpy arrays of the documented dtypes); every length is checked against the others, and
 * every node index and feature index is checked on use, so a malformed ensemble raises
 * ValueError instead of reading out of bounds. A walk longer than the node count is a cycle
 * and raises too.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

static int
check_len(const Py_buffer *b, Py_ssize_t count, Py_ssize_t item, const char *name)
{
    if (b->len != count * item) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd bytes, got %zd", name,
                     count * item, b->len);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(leaves_doc,
"leaves(X, n_rows, n_features, feature, threshold, missing_left, left, right, is_leaf,\n"
"       roots, out)\n"
"\n"
"Write into out[t * n_rows + i] the node id of the leaf row i reaches in tree t.\n"
"X: float64 (n_rows, n_features), row-major. feature, left, right, roots, out: int64.\n"
"threshold: float64. missing_left, is_leaf: one byte per node (numpy bool).\n"
"Node ids are global (children and roots index the packed arrays).");

static PyObject *
leaves(PyObject *self, PyObject *args)
{
    Py_buffer X, feature, threshold, missing_left, left, right, is_leaf, roots, out;
    Py_ssize_t n_rows, n_features;
    if (!PyArg_ParseTuple(args, "y*nny*y*y*y*y*y*y*w*", &X, &n_rows, &n_features, &feature,
                          &threshold, &missing_left, &left, &right, &is_leaf, &roots, &out))
        return NULL;

    PyObject *result = NULL;
    const Py_ssize_t n_nodes = threshold.len / (Py_ssize_t)sizeof(double);
    const Py_ssize_t n_trees = roots.len / (Py_ssize_t)sizeof(int64_t);
    if (n_rows < 0 || n_features < 0) {
        PyErr_SetString(PyExc_ValueError, "negative row or feature count");
        goto done;
    }
    if (check_len(&X, n_rows * n_features, sizeof(double), "X") ||
        check_len(&threshold, n_nodes, sizeof(double), "threshold") ||
        check_len(&feature, n_nodes, sizeof(int64_t), "feature") ||
        check_len(&left, n_nodes, sizeof(int64_t), "left") ||
        check_len(&right, n_nodes, sizeof(int64_t), "right") ||
        check_len(&missing_left, n_nodes, 1, "missing_left") ||
        check_len(&is_leaf, n_nodes, 1, "is_leaf") ||
        check_len(&roots, n_trees, sizeof(int64_t), "roots") ||
        check_len(&out, n_trees * n_rows, sizeof(int64_t), "out"))
        goto done;

    const double *x = (const double *)X.buf;
    const int64_t *f = (const int64_t *)feature.buf;
    const double *thr = (const double *)threshold.buf;
    const unsigned char *nan_left = (const unsigned char *)missing_left.buf;
    const int64_t *lo = (const int64_t *)left.buf;
    const int64_t *hi = (const int64_t *)right.buf;
    const unsigned char *leaf = (const unsigned char *)is_leaf.buf;
    const int64_t *root = (const int64_t *)roots.buf;
    int64_t *dst = (int64_t *)out.buf;
    int bad = 0;

    Py_BEGIN_ALLOW_THREADS
    /* tree by tree: one tree's nodes stay in cache while every row walks it */
    for (Py_ssize_t t = 0; t < n_trees && !bad; t++) {
        for (Py_ssize_t i = 0; i < n_rows; i++) {
            const double *row = x + i * n_features;
            int64_t node = root[t];
            Py_ssize_t steps = 0;
            for (;;) {
                if (node < 0 || node >= n_nodes || steps++ > n_nodes) {
                    bad = 1;
                    break;
                }
                if (leaf[node])
                    break;
                const int64_t j = f[node];
                if (j < 0 || j >= n_features) {
                    bad = 1;
                    break;
                }
                const double v = row[j];
                const int go_left = isnan(v) ? nan_left[node] != 0 : v <= thr[node];
                node = go_left ? lo[node] : hi[node];
            }
            if (bad)
                break;
            dst[t * n_rows + i] = node;
        }
    }
    Py_END_ALLOW_THREADS

    if (bad) {
        PyErr_SetString(PyExc_ValueError,
                        "tree arrays are malformed: a node or feature index out of range, "
                        "or a cycle");
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&X);
    PyBuffer_Release(&feature);
    PyBuffer_Release(&threshold);
    PyBuffer_Release(&missing_left);
    PyBuffer_Release(&left);
    PyBuffer_Release(&right);
    PyBuffer_Release(&is_leaf);
    PyBuffer_Release(&roots);
    PyBuffer_Release(&out);
    return result;
}

static PyMethodDef methods[] = {
    {"leaves", leaves, METH_VARARGS, leaves_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "treewalk",
    "Compiled walk of packed tree ensembles (see webseg.blocks.gbt).", -1, methods,
};

PyMODINIT_FUNC
PyInit_treewalk(void)
{
    return PyModule_Create(&module);
}
