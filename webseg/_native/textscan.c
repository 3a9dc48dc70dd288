/*
 * Scans of a page's text for the page-type features (classify.pagefeatures), compiled:
 * where the currency marks are (the price count's windows), how many white-space separated
 * words there are (the word count of a spaced text), and where the HTML source's metadata
 * markers are (head_tokens: without encoding and lower-casing a copy of the whole page).
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

/* text[i:i + len(needle)] lower-cased (ASCII letters only) equals the lower-case needle */
static int
match_ci(int kind, const void *data, Py_ssize_t len, Py_ssize_t i, const char *needle)
{
    for (Py_ssize_t j = 0; needle[j]; j++) {
        if (i + j >= len)
            return 0;
        Py_UCS4 c = PyUnicode_READ(kind, data, i + j);
        if (c >= 'A' && c <= 'Z')
            c += 'a' - 'A';
        if (c != (Py_UCS4)(unsigned char)needle[j])
            return 0;
    }
    return 1;
}

static int
append_offset(PyObject *list, Py_ssize_t i)
{
    PyObject *at = PyLong_FromSsize_t(i);
    int r = at ? PyList_Append(list, at) : -1;
    Py_XDECREF(at);
    return r;
}

/*
 * The skips of markers() over 16 bytes at a time where the machine has SSE2 (every x86-64):
 * the first offset at or after i where a marker's anchor character is followed by the
 * marker's next one ("</", "+j", "yp" in any case; where no marker can be, a '<' not before
 * a '/' included, is skipped), then the scalar loop takes over (and the tail); a page's
 * source is ~250,000 characters with a '<' every ten, a byte loop stopping at each the
 * larger part of head_tokens. Elsewhere they return i.
 */
#if defined(__SSE2__)
#include <emmintrin.h>

/* the lanes of (a, b), a character and its successor, where a marker's anchor is: '<' then
   '/', '+' then 'j', 'y' then 'p' (letters in either case: OR 0x20 folds exactly the ASCII
   letter pairs onto the lower case) */
#define ANCHORS(EQ, SET1)                                                                \
    _mm_or_si128(_mm_and_si128(EQ(a, SET1('<')), EQ(b, SET1('/'))),                     \
                 _mm_or_si128(_mm_and_si128(EQ(a, SET1('+')), EQ(bl, SET1('j'))),        \
                              _mm_and_si128(EQ(al, SET1('y')), EQ(bl, SET1('p')))))

static Py_ssize_t
skip_ucs1(const Py_UCS1 *p, Py_ssize_t i, Py_ssize_t len)
{
    const __m128i fold = _mm_set1_epi8(0x20);
    for (; i + 17 <= len; i += 16) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(p + i));
        const __m128i b = _mm_loadu_si128((const __m128i *)(p + i + 1));
        const __m128i al = _mm_or_si128(a, fold), bl = _mm_or_si128(b, fold);
        const int mask = _mm_movemask_epi8(ANCHORS(_mm_cmpeq_epi8, _mm_set1_epi8));
        if (mask)
            return i + __builtin_ctz((unsigned)mask);
    }
    return i;
}

static Py_ssize_t
skip_ucs2(const Py_UCS2 *p, Py_ssize_t i, Py_ssize_t len)
{
    const __m128i fold = _mm_set1_epi16(0x20);
    for (; i + 9 <= len; i += 8) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(p + i));
        const __m128i b = _mm_loadu_si128((const __m128i *)(p + i + 1));
        const __m128i al = _mm_or_si128(a, fold), bl = _mm_or_si128(b, fold);
        const int mask = _mm_movemask_epi8(ANCHORS(_mm_cmpeq_epi16, _mm_set1_epi16));
        if (mask)  /* two bits a character */
            return i + __builtin_ctz((unsigned)mask) / 2;
    }
    return i;
}
static Py_ssize_t
skip_ucs4(const Py_UCS4 *p, Py_ssize_t i, Py_ssize_t len)
{
    const __m128i fold = _mm_set1_epi32(0x20);
    for (; i + 5 <= len; i += 4) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(p + i));
        const __m128i b = _mm_loadu_si128((const __m128i *)(p + i + 1));
        const __m128i al = _mm_or_si128(a, fold), bl = _mm_or_si128(b, fold);
        const int mask = _mm_movemask_epi8(ANCHORS(_mm_cmpeq_epi32, _mm_set1_epi32));
        if (mask)  /* four bits a character */
            return i + __builtin_ctz((unsigned)mask) / 4;
    }
    return i;
}
#undef ANCHORS
#else
static Py_ssize_t
skip_ucs1(const Py_UCS1 *p, Py_ssize_t i, Py_ssize_t len)
{
    (void)p;
    (void)len;
    return i;
}

static Py_ssize_t
skip_ucs2(const Py_UCS2 *p, Py_ssize_t i, Py_ssize_t len)
{
    (void)p;
    (void)len;
    return i;
}

static Py_ssize_t
skip_ucs4(const Py_UCS4 *p, Py_ssize_t i, Py_ssize_t len)
{
    (void)p;
    (void)len;
    return i;
}
#endif

PyDoc_STRVAR(markers_doc,
"markers(html) -> (head_end, ld_json, itemtype, script_end)\n"
"\n"
"Offsets (in characters) of the markers classify.pagefeatures.head_tokens looks for,\n"
"matched with ASCII letters in any case (what bytes.lower gives): the first \"</head>\"\n"
"(-1: none), and every \"ld+json\", \"itemtype\" and \"</script\", ascending.");

static PyObject *
markers(PyObject *Py_UNUSED(self), PyObject *arg)
{
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "html must be str");
        return NULL;
    }
    const int kind = PyUnicode_KIND(arg);
    const void *data = PyUnicode_DATA(arg);
    const Py_ssize_t len = PyUnicode_GET_LENGTH(arg);
    Py_ssize_t head_end = -1;
    PyObject *ld = PyList_New(0), *it = PyList_New(0), *sc = PyList_New(0);
    if (!ld || !it || !sc)
        goto fail;
    /* the characters the markers are anchored on, rare in pages: '<' (its first), '+' (the
       third of "ld+json"), 'y' (the sixth of "itemtype"); a page has ~20,000 'i' and 'l' */
    static const unsigned char starts[128] = {['<'] = 1, ['+'] = 1, ['y'] = 1, ['Y'] = 1};
    Py_ssize_t i = 0;
    for (;;) {
        /* skip to the next character a marker can start with (a loop per storage width,
           so the compiler reads each character without a switch on the width) */
#define SKIP(T)                                                                  \
        {                                                                        \
            const T *p = (const T *)data;                                        \
            while (i < len && (p[i] >= 128 || !starts[p[i]]))                    \
                i++;                                                             \
        }
        if (kind == PyUnicode_1BYTE_KIND) {
            i = skip_ucs1((const Py_UCS1 *)data, i, len);
            SKIP(Py_UCS1)
        } else if (kind == PyUnicode_2BYTE_KIND) {
            i = skip_ucs2((const Py_UCS2 *)data, i, len);
            SKIP(Py_UCS2)
        } else {
            i = skip_ucs4((const Py_UCS4 *)data, i, len);
            SKIP(Py_UCS4)
        }
#undef SKIP
        if (i >= len)
            break;
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c == '<') {
            if (head_end < 0 && match_ci(kind, data, len, i, "</head>"))
                head_end = i;
            if (match_ci(kind, data, len, i, "</script") && append_offset(sc, i) < 0)
                goto fail;
        } else if (c == '+') {
            if (i >= 2 && match_ci(kind, data, len, i - 2, "ld+json") &&
                append_offset(ld, i - 2) < 0)
                goto fail;
        } else if (i >= 5 && match_ci(kind, data, len, i - 5, "itemtype") &&
                   append_offset(it, i - 5) < 0) {  /* 'y' or 'Y' */
            goto fail;
        }
        i++;
    }
    return Py_BuildValue("(nNNN)", head_end, ld, it, sc);
fail:
    Py_XDECREF(ld);
    Py_XDECREF(it);
    Py_XDECREF(sc);
    return NULL;
}

static PyMethodDef methods[] = {
    {"markers", markers, METH_O, markers_doc},
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
