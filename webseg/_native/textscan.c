/*
 * Two scans of a page's visible text for the page-type features (classify.pagefeatures),
 * compiled: where the currency marks are (the price count's windows), and how many
 * white-space separated words there are (the word count of a spaced text).
 *
 * Why compiled: the Python finds each of 31 marks with its own str.find pass over the text
 * (31 passes of ~15,000 characters a page) and counts words by building the list of
 * str.split; here each is one pass that builds nothing. The Python code stays as the
 * fallback and the reference; the tests check both give the same numbers.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyDoc_STRVAR(marks_doc,
"marks(text, marks) -> list of int\n"
"\n"
"The start of every occurrence of every mark of the tuple ``marks`` (non-empty str) in\n"
"``text``, overlapping ones included, ascending (an offset twice when two marks start\n"
"there): what collecting each mark's str.find positions and sorting them gives.");

static PyObject *
marks(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *text, *ms;
    if (!PyArg_ParseTuple(args, "UO!", &text, &PyTuple_Type, &ms))
        return NULL;
    const Py_ssize_t n_marks = PyTuple_GET_SIZE(ms);
    if (n_marks > 64) {
        PyErr_SetString(PyExc_ValueError, "at most 64 marks");
        return NULL;
    }
    Py_UCS4 first[64];
    unsigned char ascii_first[128] = {0};  /* an ASCII character some mark starts with */
    for (Py_ssize_t k = 0; k < n_marks; k++) {
        PyObject *m = PyTuple_GET_ITEM(ms, k);
        if (!PyUnicode_Check(m) || PyUnicode_GET_LENGTH(m) == 0) {
            PyErr_SetString(PyExc_ValueError, "marks must be non-empty str");
            return NULL;
        }
        first[k] = PyUnicode_READ_CHAR(m, 0);
        if (first[k] < 128)
            ascii_first[first[k]] = 1;
    }
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < len; i++) {
        const Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 128 && !ascii_first[c])
            continue;
        for (Py_ssize_t k = 0; k < n_marks; k++) {
            if (first[k] != c)
                continue;
            PyObject *m = PyTuple_GET_ITEM(ms, k);
            const Py_ssize_t ml = PyUnicode_GET_LENGTH(m);
            if (i + ml > len)
                continue;
            Py_ssize_t j = 1;
            while (j < ml && PyUnicode_READ(kind, data, i + j) == PyUnicode_READ_CHAR(m, j))
                j++;
            if (j < ml)
                continue;
            PyObject *at = PyLong_FromSsize_t(i);
            int r = at ? PyList_Append(out, at) : -1;
            Py_XDECREF(at);
            if (r < 0) {
                Py_DECREF(out);
                return NULL;
            }
        }
    }
    return out;
}

PyDoc_STRVAR(count_split_doc,
"count_split(text) -> int\n"
"\n"
"len(text.split()): the runs of characters that are not white space (str.isspace).");

static PyObject *
count_split(PyObject *Py_UNUSED(self), PyObject *arg)
{
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "text must be str");
        return NULL;
    }
    const int kind = PyUnicode_KIND(arg);
    const void *data = PyUnicode_DATA(arg);
    const Py_ssize_t len = PyUnicode_GET_LENGTH(arg);
    Py_ssize_t words = 0;
    int in_word = 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        const int space = Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i));
        if (!space && !in_word)
            words++;
        in_word = !space;
    }
    return PyLong_FromSsize_t(words);
}

static PyMethodDef methods[] = {
    {"marks", marks, METH_VARARGS, marks_doc},
    {"count_split", count_split, METH_O, count_split_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "textscan",
    "Compiled scans of a page's text for the page-type features (see classify.pagefeatures).",
    -1, methods,
};

PyMODINIT_FUNC
PyInit_textscan(void)
{
    return PyModule_Create(&module);
}
