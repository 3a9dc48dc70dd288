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

/*
 * The summed leaf values of every row over a packed ensemble: what TreeEnsemble.raw needs,
 * without the (n_trees, n_rows) table of leaf ids and its gather and sum in numpy. Nodes are
 * 16-byte records (node_t), numbered so that a node's children follow it and are neighbours
 * (the right one after the left one): one record read per step instead of six arrays, and
 * a walk that only moves forward, so it ends at a leaf without a step count.
 */
typedef struct {
    double thr;     /* split threshold (+inf at a leaf) */
    int32_t left;   /* the left child's number (the right child is left + 1); self at a leaf */
    uint32_t fn;    /* feature index (bits 0-29), NaN goes left (bit 30), leaf (bit 31) */
} node_t;

#define FN_FEATURE 0x3fffffffu
#define FN_NAN_LEFT 0x40000000u
#define FN_LEAF 0x80000000u

PyDoc_STRVAR(sums_doc,
"sums(X, n_rows, n_features, row_stride, col_stride, nodes, values, roots, n_classes, out)\n"
"\n"
"Write into out[i * n_classes + k] the sum over the trees t with t % n_classes == k, in\n"
"tree order, of the value of the leaf row i reaches in tree t: the first such tree's value\n"
"as is, the others added one by one (numpy's sum over axis 0 of the (n_trees, n_rows) table\n"
"when n_rows >= 2; numpy sums a single row pairwise).\n"
"X: float64, element (i, j) at X[i * row_stride + j * col_stride]. nodes: node_t records\n"
"(16 bytes each, see the source). values: float64 per node. roots: int32 per tree.\n"
"out: float64 (n_rows * n_classes). Malformed arrays raise ValueError.");

static PyObject *
sums(PyObject *self, PyObject *args)
{
    Py_buffer X, nodes, values, roots, out;
    Py_ssize_t n_rows, n_features, rs, cs, n_classes;
    if (!PyArg_ParseTuple(args, "y*nnnny*y*y*nw*", &X, &n_rows, &n_features, &rs, &cs,
                          &nodes, &values, &roots, &n_classes, &out))
        return NULL;

    PyObject *result = NULL;
    const Py_ssize_t n_nodes = values.len / (Py_ssize_t)sizeof(double);
    const Py_ssize_t n_trees = roots.len / (Py_ssize_t)sizeof(int32_t);
    if (n_rows < 0 || n_features <= 0 || rs < 0 || cs < 0 || n_classes <= 0
        || n_trees % n_classes || n_nodes > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "bad row, feature, stride or class count");
        goto done;
    }
    if (check_len(&values, n_nodes, sizeof(double), "values") ||
        check_len(&nodes, n_nodes, sizeof(node_t), "nodes") ||
        check_len(&roots, n_trees, sizeof(int32_t), "roots") ||
        check_len(&out, n_rows * n_classes, sizeof(double), "out"))
        goto done;
    /* the last element a row can read must lie inside X */
    if (n_rows > 0 &&
        (n_rows - 1) * rs + (n_features - 1) * cs >= X.len / (Py_ssize_t)sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "X: rows or strides outside the buffer");
        goto done;
    }

    const double *x = (const double *)X.buf;
    const node_t *nd = (const node_t *)nodes.buf;
    const double *val = (const double *)values.buf;
    const int32_t *root = (const int32_t *)roots.buf;
    double *dst = (double *)out.buf;

    /* every record is checked once, so the walks need no check: an inner node's feature
     * inside the row and its children after it and inside the arrays (so every walk moves
     * forward and ends at a leaf); every root inside the arrays */
    for (Py_ssize_t k = 0; k < n_nodes; k++) {
        if (nd[k].fn & FN_LEAF)
            continue;
        if ((Py_ssize_t)(nd[k].fn & FN_FEATURE) >= n_features || nd[k].left <= k ||
            (Py_ssize_t)nd[k].left + 1 >= n_nodes) {
            PyErr_Format(PyExc_ValueError, "nodes: record %zd is malformed", k);
            goto done;
        }
    }
    for (Py_ssize_t t = 0; t < n_trees; t++) {
        if (root[t] < 0 || root[t] >= n_nodes) {
            PyErr_Format(PyExc_ValueError, "roots: tree %zd starts outside the nodes", t);
            goto done;
        }
    }

    Py_BEGIN_ALLOW_THREADS
    /* tree by tree: one tree's records stay in cache while every row walks it */
    for (Py_ssize_t t = 0; t < n_trees; t++) {
        const Py_ssize_t k = t % n_classes;
        const int first = t < n_classes;
        for (Py_ssize_t i = 0; i < n_rows; i++) {
            const double *row = x + i * rs;
            const node_t *p = nd + root[t];
            uint32_t fn = p->fn;
            while (!(fn & FN_LEAF)) {
                const double v = row[(Py_ssize_t)(fn & FN_FEATURE) * cs];
                /* sklearn's rule: v <= thr goes left, NaN the learned way. Branches, not a
                 * branch-free select: a predicted branch lets the processor run ahead down
                 * the tree where a select waits for every load (measured: 2x slower) */
                if (v <= p->thr || (v != v && (fn & FN_NAN_LEFT)))
                    p = nd + p->left;
                else
                    p = nd + p->left + 1;
                fn = p->fn;
            }
            double *acc = dst + i * n_classes + k;
            if (first)
                *acc = val[p - nd];
            else
                *acc += val[p - nd];
        }
    }
    Py_END_ALLOW_THREADS

    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&X);
    PyBuffer_Release(&nodes);
    PyBuffer_Release(&values);
    PyBuffer_Release(&roots);
    PyBuffer_Release(&out);
    return result;
}

/*
 * Two passes over a page's DOM in pre-order (a node's parent comes before it), for the
 * block features (webseg/blocks/features.py keeps the Python loops as the fallback): the
 * OR of per-node flag masks over every ancestor-or-self, and every node's nearest strict
 * block ancestor. A parent outside [0, i) (not one tree in pre-order) raises ValueError.
 */
static int
check_parents(const int64_t *par, Py_ssize_t n)
{
    for (Py_ssize_t i = 1; i < n; i++) {
        if (par[i] < 0 || par[i] >= i) {
            PyErr_Format(PyExc_ValueError, "parent: node %zd's parent %lld is not before it",
                         i, (long long)par[i]);
            return -1;
        }
    }
    return 0;
}

PyDoc_STRVAR(or_down_doc,
"or_down(bits, parent, out)\n"
"\n"
"out[0] = bits[0]; out[i] = bits[i] | out[parent[i]]: per node, the OR of the int64 masks\n"
"over the node and its ancestors. parent: int64, pre-order (parent[i] < i).");

static PyObject *
or_down(PyObject *self, PyObject *args)
{
    Py_buffer bits, parent, out;
    if (!PyArg_ParseTuple(args, "y*y*w*", &bits, &parent, &out))
        return NULL;
    PyObject *result = NULL;
    const Py_ssize_t n = parent.len / (Py_ssize_t)sizeof(int64_t);
    if (check_len(&parent, n, sizeof(int64_t), "parent") ||
        check_len(&bits, n, sizeof(int64_t), "bits") ||
        check_len(&out, n, sizeof(int64_t), "out"))
        goto done;
    const int64_t *par = (const int64_t *)parent.buf;
    if (check_parents(par, n))
        goto done;
    const int64_t *b = (const int64_t *)bits.buf;
    int64_t *o = (int64_t *)out.buf;
    if (n > 0)
        o[0] = b[0];
    for (Py_ssize_t i = 1; i < n; i++)
        o[i] = b[i] | o[par[i]];
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&bits);
    PyBuffer_Release(&parent);
    PyBuffer_Release(&out);
    return result;
}

PyDoc_STRVAR(nearest_doc,
"nearest(parent, flag, out)\n"
"\n"
"out[0] = 0; out[i] = parent[i] if flag[parent[i]] else out[parent[i]]: per node, its\n"
"nearest strict ancestor with the flag (0, the root, when none has it). parent: int64,\n"
"pre-order (parent[i] < i); flag: one byte per node (numpy bool); out: int64.");

static PyObject *
nearest(PyObject *self, PyObject *args)
{
    Py_buffer parent, flag, out;
    if (!PyArg_ParseTuple(args, "y*y*w*", &parent, &flag, &out))
        return NULL;
    PyObject *result = NULL;
    const Py_ssize_t n = parent.len / (Py_ssize_t)sizeof(int64_t);
    if (check_len(&parent, n, sizeof(int64_t), "parent") ||
        check_len(&flag, n, 1, "flag") ||
        check_len(&out, n, sizeof(int64_t), "out"))
        goto done;
    const int64_t *par = (const int64_t *)parent.buf;
    if (check_parents(par, n))
        goto done;
    const unsigned char *f = (const unsigned char *)flag.buf;
    int64_t *o = (int64_t *)out.buf;
    if (n > 0)
        o[0] = 0;
    for (Py_ssize_t i = 1; i < n; i++) {
        const int64_t p = par[i];
        o[i] = f[p] ? p : o[p];
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&parent);
    PyBuffer_Release(&flag);
    PyBuffer_Release(&out);
    return result;
}

static PyMethodDef methods[] = {
    {"leaves", leaves, METH_VARARGS, leaves_doc},
    {"sums", sums, METH_VARARGS, sums_doc},
    {"or_down", or_down, METH_VARARGS, or_down_doc},
    {"nearest", nearest, METH_VARARGS, nearest_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "treewalk",
    "Compiled walks of packed tree ensembles (webseg.blocks.gbt) and of a page's DOM "
    "(webseg.blocks.features).", -1, methods,
};

PyMODINIT_FUNC
PyInit_treewalk(void)
{
    return PyModule_Create(&module);
}
