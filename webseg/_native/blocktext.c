/*
 * Block fusion's text work around the merge loop (webseg.segmenters.blockfusion):
 * the flag bits of every node's tag, the tokens of every text leaf, the text of every fused
 * block and the DOM subtrees that hold each block.
 *
 * Why compiled: the segment stage splits every text leaf into tokens (str.split()), sums
 * their lengths for the line wrapping, joins the tokens of each fused block into its text,
 * and climbs the DOM from each block's leaves to find its roots; in Python that is a few
 * thousand small objects and calls a page, about as much as the merge loop itself was.
 * The results are the same: a token is a maximal run of characters that are not white space
 * by Py_UNICODE_ISSPACE, the test str.split() makes; lengths count code points, as len()
 * does; a block's text is its tokens joined by one space, the string " ".join(...) gives;
 * the roots are those of blockfusion.block_roots, sorted.
 *
 * Arrays arrive through the buffer protocol: leaves (int32: node of each text leaf), parent
 * (int32, one per node, -1 at the root), lo and hi (int64, one per node: the node's range
 * of text-leaf positions). Every index is checked; bad input raises ValueError.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* the str of leaf k: texts[leaves[k]], checked */
static PyObject *
leaf_text(PyObject *texts_fast, const int32_t *leaves, Py_ssize_t k)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(texts_fast);
    int32_t j = leaves[k];
    if (j < 0 || j >= n) {
        PyErr_SetString(PyExc_ValueError, "a text leaf outside the page's texts");
        return NULL;
    }
    PyObject *s = PySequence_Fast_GET_ITEM(texts_fast, j);
    if (!PyUnicode_Check(s)) {
        PyErr_SetString(PyExc_TypeError, "the page's texts must be str");
        return NULL;
    }
    if (PyUnicode_READY(s) < 0)
        return NULL;
    return s;
}

/* The token lengths of one string, by its storage kind (one loop per kind: reading through
   PyUnicode_READ's switch costs more than the test itself). Appends each token's
   cum entry after cum[*t]; the caller has room for ceil(len / 2) more. */
#define TOKENS_LOOP(T)                                                                   \
    do {                                                                                 \
        const T *d = (const T *)data;                                                    \
        Py_ssize_t run = 0;                                                              \
        for (Py_ssize_t i = 0; i < len; i++) {                                           \
            if (!Py_UNICODE_ISSPACE(d[i])) {                                             \
                run++;                                                                   \
            } else if (run) {                                                            \
                cum[*t + 1] = cum[*t] + run + 1;                                         \
                (*t)++;                                                                  \
                run = 0;                                                                 \
            }                                                                            \
        }                                                                                \
        if (run) {                                                                       \
            cum[*t + 1] = cum[*t] + run + 1;                                             \
            (*t)++;                                                                      \
        }                                                                                \
    } while (0)

static void
string_tokens(PyObject *s, int64_t *cum, Py_ssize_t *t)
{
    const void *data = PyUnicode_DATA(s);
    Py_ssize_t len = PyUnicode_GET_LENGTH(s);
    switch (PyUnicode_KIND(s)) {
    case PyUnicode_1BYTE_KIND:
        TOKENS_LOOP(Py_UCS1);
        break;
    case PyUnicode_2BYTE_KIND:
        TOKENS_LOOP(Py_UCS2);
        break;
    default:
        TOKENS_LOOP(Py_UCS4);
        break;
    }
}

PyDoc_STRVAR(leaf_tokens_doc,
"leaf_tokens(texts, leaves) -> (cum, tok_start)\n"
"\n"
"The tokens of texts[leaves[k]] for every k (str.split()), as two int64 byte strings:\n"
"cum, the prefix sums of len(token) + 1 over all tokens in order (n_tokens + 1 entries),\n"
"and tok_start, the index of each leaf's first token (n_leaves + 1 entries).");

static PyObject *
leaf_tokens(PyObject *self, PyObject *args)
{
    PyObject *texts;
    Py_buffer lb;
    if (!PyArg_ParseTuple(args, "Oy*", &texts, &lb))
        return NULL;
    PyObject *result = NULL, *fast = NULL, *cum_b = NULL, *start_b = NULL;
    int64_t *cum = NULL, *starts = NULL;
    if (lb.len % 4) {
        PyErr_SetString(PyExc_ValueError, "leaf_tokens: leaves must be int32");
        goto done;
    }
    const int32_t *leaves = lb.buf;
    Py_ssize_t nl = lb.len / 4;
    fast = PySequence_Fast(texts, "leaf_tokens: texts must be a sequence");
    if (fast == NULL)
        goto done;
    /* room for every token: a string of len characters holds at most (len + 1) / 2 */
    size_t room = 1;
    for (Py_ssize_t k = 0; k < nl; k++) {
        PyObject *s = leaf_text(fast, leaves, k);
        if (s == NULL)
            goto done;
        room += ((size_t)PyUnicode_GET_LENGTH(s) + 1) / 2;
    }
    cum = PyMem_Malloc(room * sizeof(int64_t));
    starts = PyMem_Malloc(((size_t)nl + 1) * sizeof(int64_t));
    if (cum == NULL || starts == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t t = 0;
    cum[0] = 0;
    for (Py_ssize_t k = 0; k < nl; k++) {
        starts[k] = t;
        string_tokens(PySequence_Fast_GET_ITEM(fast, leaves[k]), cum, &t); /* checked */
    }
    starts[nl] = t;
    cum_b = PyBytes_FromStringAndSize((const char *)cum, (t + 1) * (Py_ssize_t)sizeof(int64_t));
    start_b = PyBytes_FromStringAndSize((const char *)starts,
                                        (nl + 1) * (Py_ssize_t)sizeof(int64_t));
    if (cum_b != NULL && start_b != NULL)
        result = PyTuple_Pack(2, cum_b, start_b);
done:
    Py_XDECREF(cum_b);
    Py_XDECREF(start_b);
    Py_XDECREF(fast);
    PyMem_Free(cum);
    PyMem_Free(starts);
    PyBuffer_Release(&lb);
    return result;
}

/* (first, stop) of fused block i: the first two items of fused[i], 0 <= first < stop <= nl */
static int
block_range(PyObject *fused_fast, Py_ssize_t i, Py_ssize_t nl, Py_ssize_t *a, Py_ssize_t *b)
{
    PyObject *item = PySequence_Fast_GET_ITEM(fused_fast, i);
    if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) < 2) {
        PyErr_SetString(PyExc_TypeError, "fused blocks must be (first, stop, ...) tuples");
        return -1;
    }
    *a = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 0));
    if (*a == -1 && PyErr_Occurred())
        return -1;
    *b = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 1));
    if (*b == -1 && PyErr_Occurred())
        return -1;
    if (*a < 0 || *b <= *a || *b > nl) {
        PyErr_SetString(PyExc_ValueError, "a fused block outside the page's text leaves");
        return -1;
    }
    return 0;
}

/* Copy the tokens of one string (source kind S) into out (kind D, at least as wide), each
   token after the first of the whole text preceded by one space; n: characters written. */
#define COPY_LOOP(S, D)                                                                  \
    do {                                                                                 \
        const S *src = (const S *)data;                                                  \
        D *dst = (D *)out;                                                               \
        int prev_space = 1;                                                              \
        for (Py_ssize_t j = 0; j < len; j++) {                                           \
            Py_UCS4 ch = src[j];                                                         \
            if (Py_UNICODE_ISSPACE(ch)) {                                                \
                prev_space = 1;                                                          \
                continue;                                                                \
            }                                                                            \
            if (prev_space && *n > 0)                                                    \
                dst[(*n)++] = ' ';                                                       \
            prev_space = 0;                                                              \
            dst[(*n)++] = (D)ch;                                                         \
        }                                                                                \
    } while (0)

static void
copy_tokens(PyObject *s, int out_kind, void *out, Py_ssize_t *n)
{
    const void *data = PyUnicode_DATA(s);
    Py_ssize_t len = PyUnicode_GET_LENGTH(s);
    int kind = PyUnicode_KIND(s);
    if (out_kind == PyUnicode_1BYTE_KIND) {
        COPY_LOOP(Py_UCS1, Py_UCS1);
    } else if (out_kind == PyUnicode_2BYTE_KIND) {
        if (kind == PyUnicode_1BYTE_KIND)
            COPY_LOOP(Py_UCS1, Py_UCS2);
        else
            COPY_LOOP(Py_UCS2, Py_UCS2);
    } else {
        if (kind == PyUnicode_1BYTE_KIND)
            COPY_LOOP(Py_UCS1, Py_UCS4);
        else if (kind == PyUnicode_2BYTE_KIND)
            COPY_LOOP(Py_UCS2, Py_UCS4);
        else
            COPY_LOOP(Py_UCS4, Py_UCS4);
    }
}

PyDoc_STRVAR(block_texts_doc,
"block_texts(texts, leaves, fused) -> list of str\n"
"\n"
"For every (first, stop, ...) in fused: the tokens of texts[leaves[first:stop]] joined by\n"
"one space, \" \".join of their str.split() tokens.");

static PyObject *
block_texts(PyObject *self, PyObject *args)
{
    PyObject *texts, *fused;
    Py_buffer lb;
    if (!PyArg_ParseTuple(args, "Oy*O", &texts, &lb, &fused))
        return NULL;
    PyObject *result = NULL, *fast = NULL, *ffast = NULL;
    void *buf = NULL;
    if (lb.len % 4) {
        PyErr_SetString(PyExc_ValueError, "block_texts: leaves must be int32");
        goto done;
    }
    const int32_t *leaves = lb.buf;
    Py_ssize_t nl = lb.len / 4;
    fast = PySequence_Fast(texts, "block_texts: texts must be a sequence");
    if (fast == NULL)
        goto done;
    ffast = PySequence_Fast(fused, "block_texts: fused must be a sequence");
    if (ffast == NULL)
        goto done;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(ffast);
    result = PyList_New(m);
    if (result == NULL)
        goto done;
    size_t cap = 0; /* bytes */
    for (Py_ssize_t i = 0; i < m; i++) {
        Py_ssize_t a, b;
        if (block_range(ffast, i, nl, &a, &b) < 0)
            goto fail;
        size_t need = 0; /* at most every character plus one space per leaf */
        int kind = PyUnicode_1BYTE_KIND;
        for (Py_ssize_t k = a; k < b; k++) {
            PyObject *s = leaf_text(fast, leaves, k);
            if (s == NULL)
                goto fail;
            need += (size_t)PyUnicode_GET_LENGTH(s) + 1;
            if ((int)PyUnicode_KIND(s) > kind)
                kind = PyUnicode_KIND(s);
        }
        need *= (size_t)kind;
        if (need > cap) {
            PyMem_Free(buf);
            cap = need * 2;
            buf = PyMem_Malloc(cap);
            if (buf == NULL) {
                PyErr_NoMemory();
                goto fail;
            }
        }
        Py_ssize_t n = 0;
        for (Py_ssize_t k = a; k < b; k++)
            copy_tokens(PySequence_Fast_GET_ITEM(fast, leaves[k]), kind, buf, &n);
        /* the canonical str of those characters (its own narrowest kind) */
        PyObject *t = PyUnicode_FromKindAndData(kind, buf, n);
        if (t == NULL)
            goto fail;
        PyList_SET_ITEM(result, i, t);
    }
    goto done;
fail:
    Py_CLEAR(result);
done:
    PyMem_Free(buf);
    Py_XDECREF(fast);
    Py_XDECREF(ffast);
    PyBuffer_Release(&lb);
    return result;
}

PyDoc_STRVAR(block_roots_doc,
"block_roots(parent, leaves, lo, hi, body, fused) -> list of tuples\n"
"\n"
"For every (first, stop, ...) in fused: blockfusion.block_roots(page, lo, hi, first, stop),\n"
"sorted, as a tuple of node ids.");

static PyObject *
block_roots(PyObject *self, PyObject *args)
{
    Py_buffer pb, lb, lob, hib;
    Py_ssize_t body;
    PyObject *fused;
    if (!PyArg_ParseTuple(args, "y*y*y*y*nO", &pb, &lb, &lob, &hib, &body, &fused))
        return NULL;
    PyObject *result = NULL, *ffast = NULL;
    Py_ssize_t *roots = NULL;
    const int32_t *parent = pb.buf, *leaves = lb.buf;
    const int64_t *lo = lob.buf, *hi = hib.buf;
    Py_ssize_t n = pb.len / 4, nl = lb.len / 4;
    if (pb.len % 4 || lb.len % 4 || lob.len != n * 8 || hib.len != n * 8) {
        PyErr_SetString(PyExc_ValueError, "block_roots: parent and leaves must be int32, lo "
                        "and hi int64, one per node");
        goto done;
    }
    ffast = PySequence_Fast(fused, "block_roots: fused must be a sequence");
    if (ffast == NULL)
        goto done;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(ffast);
    roots = PyMem_Malloc(((size_t)nl + 1) * sizeof(Py_ssize_t));
    if (roots == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    result = PyList_New(m);
    if (result == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < m; i++) {
        Py_ssize_t first, stop, nr = 0;
        if (block_range(ffast, i, nl, &first, &stop) < 0)
            goto fail;
        Py_ssize_t k = first;
        while (k < stop) {
            Py_ssize_t v = leaves[k];
            if (v < 0 || v >= n) {
                PyErr_SetString(PyExc_ValueError, "block_roots: a leaf outside the page");
                goto fail;
            }
            Py_ssize_t p = parent[v];
            while (p >= 0 && v != body) {
                if (p >= n) {
                    PyErr_SetString(PyExc_ValueError, "block_roots: a parent outside the page");
                    goto fail;
                }
                if (!(lo[p] >= first && hi[p] <= stop))
                    break;
                v = p;
                p = parent[v];
            }
            if (nr >= nl || hi[v] <= k) { /* each root covers the leaf it started from */
                PyErr_SetString(PyExc_ValueError, "block_roots: leaf ranges that do not "
                                "cover their own leaves");
                goto fail;
            }
            /* keep the roots sorted (they come in document order: one insertion step) */
            Py_ssize_t at = nr++;
            while (at > 0 && roots[at - 1] > v) {
                roots[at] = roots[at - 1];
                at--;
            }
            roots[at] = v;
            k = (Py_ssize_t)hi[v];
        }
        PyObject *t = PyTuple_New(nr);
        if (t == NULL)
            goto fail;
        for (Py_ssize_t r = 0; r < nr; r++) {
            PyObject *x = PyLong_FromSsize_t(roots[r]);
            if (x == NULL) {
                Py_DECREF(t);
                goto fail;
            }
            PyTuple_SET_ITEM(t, r, x);
        }
        PyList_SET_ITEM(result, i, t);
    }
    goto done;
fail:
    Py_CLEAR(result);
done:
    PyMem_Free(roots);
    Py_XDECREF(ffast);
    PyBuffer_Release(&pb);
    PyBuffer_Release(&lb);
    PyBuffer_Release(&lob);
    PyBuffer_Release(&hib);
    return result;
}

PyDoc_STRVAR(tag_flags_doc,
"tag_flags(tags, table) -> bytes\n"
"\n"
"One byte per tag: table.get(tag, 0) (table: a dict of tag -> int in 0..127), the flag\n"
"bits blockfusion reads per node, without a Python call per node.");

static PyObject *
tag_flags(PyObject *self, PyObject *args)
{
    PyObject *tags, *table;
    if (!PyArg_ParseTuple(args, "OO!", &tags, &PyDict_Type, &table))
        return NULL;
    PyObject *fast = PySequence_Fast(tags, "tag_flags: tags must be a sequence");
    if (fast == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    PyObject *out = PyBytes_FromStringAndSize(NULL, n);
    if (out == NULL) {
        Py_DECREF(fast);
        return NULL;
    }
    char *o = PyBytes_AS_STRING(out);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyDict_GetItemWithError(table, PySequence_Fast_GET_ITEM(fast, i));
        long f = 0;
        if (v == NULL) {
            if (PyErr_Occurred())
                goto fail;
        } else {
            f = PyLong_AsLong(v);
            if (f == -1 && PyErr_Occurred())
                goto fail;
            if (f < 0 || f > 127) {
                PyErr_SetString(PyExc_ValueError, "tag_flags: a flag outside 0..127");
                goto fail;
            }
        }
        o[i] = (char)f;
    }
    Py_DECREF(fast);
    return out;
fail:
    Py_DECREF(fast);
    Py_DECREF(out);
    return NULL;
}

static PyMethodDef methods[] = {
    {"tag_flags", tag_flags, METH_VARARGS, tag_flags_doc},
    {"leaf_tokens", leaf_tokens, METH_VARARGS, leaf_tokens_doc},
    {"block_texts", block_texts, METH_VARARGS, block_texts_doc},
    {"block_roots", block_roots, METH_VARARGS, block_roots_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "blocktext",
    "Block fusion's tokens, block texts and block roots (webseg.segmenters.blockfusion), "
    "compiled.", -1, methods,
};

PyMODINIT_FUNC
PyInit_blocktext(void)
{
    return PyModule_Create(&module);
}
