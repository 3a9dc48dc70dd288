/*
 * Where given words and tag starts are in a page's HTML source, all found in one pass
 * (webseg.clean.metadata, webseg.clean.titles).
 *
 * Why compiled: the metadata reader looks for a dozen things in the whole source (the
 * meta / link / base / html / time tags, the JSON-LD scripts, itemprop attributes, the
 * byline words, <body and <h1), each with its own str.find loop or regular-expression scan;
 * on a 250,000-character page each scan costs 0.1-0.3 ms (most pages are two-byte strings,
 * where str.find has no memchr), together more than a millisecond. Here one pass over the
 * characters finds every occurrence of every word at once.
 *
 * What is found:
 *   - a word of `words` (any non-empty str): every position where it occurs, exactly
 *     (case-sensitive), overlapping occurrences included;
 *   - a name of `tags` (non-empty, ASCII lower-case letters and digits): every position
 *     of a '<' followed by the name, each character an ASCII case variant of the name's or
 *     any non-ASCII character. That is a superset of the places where a case-insensitive
 *     regular expression starting with `<name` can match (Python's IGNORECASE lets a few
 *     non-ASCII characters match ASCII letters: the Kelvin sign, the long s, the dotless
 *     i), so the caller runs its own expression at each position found: the pair gives
 *     exactly the expression's matches, without its scan.
 * Positions come out ascending, one list per word then one per tag name.
 *
 * How: a table of the ASCII character pairs that start some word (for a tag name: '<' and
 * the name's first letter in both cases) is looked up at every position; only where it
 * hits (or where a '<' is followed by a non-ASCII character, or for a word whose first two
 * characters are not both ASCII) are the words compared. Every read is below the string's
 * length; bad arguments raise TypeError or ValueError.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define MAX_WORDS 64

typedef struct {
    PyObject *str;       /* the word or tag name (borrowed from the argument tuple) */
    Py_ssize_t len;
    int kind;
    const void *data;
    int tag;             /* 1: '<' + name, ASCII case-insensitive, non-ASCII wildcards */
    int slow;            /* 1: its first two characters are not an ASCII pair: compared at
                            every position */
    PyObject *out;       /* list of positions (new reference) */
} Word;

/* Whether the word (or '<' + tag name) occurs at position i of the text. */
static int
match_at(const Word *w, int kind, const void *data, Py_ssize_t n, Py_ssize_t i)
{
    if (w->tag) {
        if (i + 1 + w->len > n || PyUnicode_READ(kind, data, i) != '<')
            return 0;
        for (Py_ssize_t k = 0; k < w->len; k++) {
            const Py_UCS4 c = PyUnicode_READ(kind, data, i + 1 + k);
            const Py_UCS4 want = PyUnicode_READ(w->kind, w->data, k);
            if (c >= 128 || c == want)
                continue;
            if (c >= 'A' && c <= 'Z' && c + 32 == want)
                continue;
            return 0;
        }
        return 1;
    }
    if (i + w->len > n)
        return 0;
    for (Py_ssize_t k = 0; k < w->len; k++) {
        if (PyUnicode_READ(kind, data, i + k) != PyUnicode_READ(w->kind, w->data, k))
            return 0;
    }
    return 1;
}

/* Compare the words of `idx` (n_idx of them) at position i; append i where one matches. */
static int
try_words(Word *ws, const int *idx, int n_idx, int kind, const void *data, Py_ssize_t n,
          Py_ssize_t i)
{
    for (int k = 0; k < n_idx; k++) {
        Word *w = &ws[idx[k]];
        if (match_at(w, kind, data, n, i)) {
            PyObject *pos = PyLong_FromSsize_t(i);
            if (pos == NULL)
                return -1;
            int rc = PyList_Append(w->out, pos);
            Py_DECREF(pos);
            if (rc < 0)
                return -1;
        }
    }
    return 0;
}

/* Compare the words of the chain that starts at entry `e` (1-based; 0: none) at position i. */
static int
try_chain(Word *ws, const int *entry_word, const int *entry_next, int e, int kind,
          const void *data, Py_ssize_t n, Py_ssize_t i)
{
    for (; e > 0; e = entry_next[e - 1]) {
        int k = entry_word[e - 1];
        if (try_words(ws, &k, 1, kind, data, n, i) < 0)
            return -1;
    }
    return 0;
}

/* The scan, written once per string kind (1, 2 or 4 bytes a character) so that the inner
 * loop reads plain arrays. */
#define DEFINE_SCAN(NAME, TYPE)                                                            \
static int                                                                                 \
NAME(const TYPE *s, Py_ssize_t n, int kind, Word *ws, const unsigned char *pair,           \
     const int *ew, const int *en, const int *tags, int n_tags, const int *slow, int n_slow)\
{                                                                                          \
    for (Py_ssize_t i = 0; i < n; i++) {                                                   \
        const Py_UCS4 c0 = s[i];                                                           \
        if (n_slow && try_words(ws, slow, n_slow, kind, s, n, i) < 0)                      \
            return -1;                                                                     \
        if (c0 >= 128)                                                                     \
            continue;                                                                      \
        const Py_UCS4 c1 = i + 1 < n ? s[i + 1] : 0;                                       \
        if (c1 >= 128) {                                                                   \
            if (c0 == '<' && n_tags && try_words(ws, tags, n_tags, kind, s, n, i) < 0)     \
                return -1;                                                                 \
            continue;                                                                      \
        }                                                                                  \
        /* one table read per character: a word's first two characters are rare */       \
        const int e = pair[c0 | (c1 << 7)];                                                \
        if (e && try_chain(ws, ew, en, e, kind, s, n, i) < 0)                              \
            return -1;                                                                     \
    }                                                                                      \
    return 0;                                                                              \
}

DEFINE_SCAN(scan1, Py_UCS1)
DEFINE_SCAN(scan2, Py_UCS2)
DEFINE_SCAN(scan4, Py_UCS4)

/* Put word k at the end of the chain of pair index `at`. */
static void
add_entry(unsigned char *pair, int *entry_word, int *entry_next, int *n_entries, unsigned at,
          int k)
{
    const int e = (*n_entries)++;
    entry_word[e] = k;
    entry_next[e] = 0;
    if (pair[at] == 0) {
        pair[at] = (unsigned char)(e + 1);
        return;
    }
    int last = pair[at] - 1;
    while (entry_next[last])
        last = entry_next[last] - 1;
    entry_next[last] = e + 1;
}

PyDoc_STRVAR(find_doc,
"find(text, words, tags) -> tuple of lists of int\n"
"\n"
"One pass over ``text``: for each str of the tuple ``words``, the ascending positions of\n"
"every occurrence (exact, overlapping ones included); then for each name of the tuple\n"
"``tags`` (ASCII lower-case letters and digits), the ascending positions of every '<'\n"
"followed by the name in any ASCII case, a non-ASCII character standing for any letter\n"
"(candidates: the caller checks each with its own case-insensitive expression).");

static PyObject *
find(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *text, *words, *tagnames;
    if (!PyArg_ParseTuple(args, "UO!O!", &text, &PyTuple_Type, &words, &PyTuple_Type,
                          &tagnames))
        return NULL;
    const Py_ssize_t n_words = PyTuple_GET_SIZE(words);
    const Py_ssize_t n_all = n_words + PyTuple_GET_SIZE(tagnames);
    if (n_all > MAX_WORDS) {
        PyErr_SetString(PyExc_ValueError, "at most 64 words and tag names");
        return NULL;
    }
    Word ws[MAX_WORDS];
    int tags[MAX_WORDS], slow[MAX_WORDS];
    int n_tags = 0, n_slow = 0;
    /* the words by their first two characters: pair[] holds 1 + the first entry of the
     * pair's chain (0: none); entry_word / entry_next the chain (a tag name is in two) */
    int entry_word[2 * MAX_WORDS], entry_next[2 * MAX_WORDS];
    int n_entries = 0;
    unsigned char *pair = PyMem_Calloc(128 * 128, 1);
    if (pair == NULL)
        return PyErr_NoMemory();
    PyObject *result = NULL;
    Py_ssize_t made = 0;
    for (Py_ssize_t k = 0; k < n_all; k++) {
        Word *w = &ws[k];
        w->tag = k >= n_words;
        w->str = w->tag ? PyTuple_GET_ITEM(tagnames, k - n_words) : PyTuple_GET_ITEM(words, k);
        if (!PyUnicode_Check(w->str) || PyUnicode_GET_LENGTH(w->str) == 0) {
            PyErr_SetString(PyExc_ValueError, "words and tag names must be non-empty str");
            goto done;
        }
        w->len = PyUnicode_GET_LENGTH(w->str);
        w->kind = PyUnicode_KIND(w->str);
        w->data = PyUnicode_DATA(w->str);
        w->out = PyList_New(0);
        if (w->out == NULL)
            goto done;
        made = k + 1;
        if (w->tag) {
            for (Py_ssize_t j = 0; j < w->len; j++) {
                const Py_UCS4 c = PyUnicode_READ(w->kind, w->data, j);
                if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
                    PyErr_SetString(PyExc_ValueError,
                                    "tag names must be ASCII lower-case letters and digits");
                    goto done;
                }
            }
            const Py_UCS4 c = PyUnicode_READ(w->kind, w->data, 0);
            /* an ASCII character after '<': through the table, a non-ASCII one: every tag
             * name is compared */
            add_entry(pair, entry_word, entry_next, &n_entries, '<' | (c << 7), (int)k);
            if (c >= 'a' && c <= 'z')
                add_entry(pair, entry_word, entry_next, &n_entries, '<' | ((c - 32) << 7),
                          (int)k);
            tags[n_tags++] = (int)k;
            w->slow = 0;
            continue;
        }
        const Py_UCS4 c0 = PyUnicode_READ(w->kind, w->data, 0);
        const Py_UCS4 c1 = w->len > 1 ? PyUnicode_READ(w->kind, w->data, 1) : 0;
        w->slow = w->len < 2 || c0 == 0 || c0 >= 128 || c1 == 0 || c1 >= 128;
        if (w->slow) {
            slow[n_slow++] = (int)k;
        } else {
            add_entry(pair, entry_word, entry_next, &n_entries, c0 | (c1 << 7), (int)k);
        }
    }
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    int rc;
    if (kind == PyUnicode_1BYTE_KIND)
        rc = scan1((const Py_UCS1 *)data, n, kind, ws, pair, entry_word, entry_next, tags, n_tags,
                   slow, n_slow);
    else if (kind == PyUnicode_2BYTE_KIND)
        rc = scan2((const Py_UCS2 *)data, n, kind, ws, pair, entry_word, entry_next, tags, n_tags,
                   slow, n_slow);
    else
        rc = scan4((const Py_UCS4 *)data, n, kind, ws, pair, entry_word, entry_next, tags, n_tags,
                   slow, n_slow);
    if (rc < 0)
        goto done;
    result = PyTuple_New(n_all);
    if (result == NULL)
        goto done;
    for (Py_ssize_t k = 0; k < n_all; k++) {
        PyTuple_SET_ITEM(result, k, ws[k].out);  /* the tuple takes the reference */
        ws[k].out = NULL;
    }
done:
    for (Py_ssize_t k = 0; k < made; k++)
        Py_XDECREF(ws[k].out);
    PyMem_Free(pair);
    return result;
}

static PyMethodDef methods[] = {
    {"find", find, METH_VARARGS, find_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "htmlscan",
    "Words and tag starts of an HTML source, found in one pass (webseg.clean.metadata).", -1,
    methods,
};

PyMODINIT_FUNC
PyInit_htmlscan(void)
{
    return PyModule_Create(&module);
}
