/*
 * The markup walk of the page-type features (classify.pagefeatures._dom), compiled.
 *
 * Why compiled: the page-type stage visits every element of a page once to collect its
 * markup tokens (tag, class / id / role / name words, input types), its tag counts, the
 * attribute values for the stem counts and the sibling groups (parent, tag.first-class)
 * with the image / link cards among them. In Python that is a dozen dictionary operations
 * and string tests per element, about a millisecond on an ordinary page; here each is a
 * C call. The Python loop in classify/pagefeatures.py stays as the fallback and the
 * reference: this file does the same steps in the same order (tokens in the same order,
 * the same dictionaries and sets), so both give the same outputs, which the tests check.
 *
 * What stays in Python: splitting an attribute value into words (a regular expression;
 * called here through the given function, once per distinct value of the page), and
 * everything after the walk (stem counts, repetition statistics).
 *
 * Inputs are checked: the index arrays arrive through the buffer protocol as int64 and are
 * bounds-checked against the node count on every use, tags must be str and attributes
 * dicts of str, so bad input raises instead of reading out of bounds.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_VALUE_WORDS 12
#define MAX_WORD 25

static int is_lower(char c) { return c >= 'a' && c <= 'z'; }
static int is_upper(char c) { return c >= 'A' && c <= 'Z'; }

/*
 * split_words(v)[:12] of an ASCII value, without its regular expressions: the Python splits
 * camelCase (a space between a lower-case and an upper-case letter), lower-cases, and finds
 * [a-z]{2,25}. In ASCII that is: runs of letters, cut where a lower-case letter is followed
 * by an upper-case one, lower-cased, each cut into pieces of 25 letters (what the greedy
 * {2,25} takes one after the other), pieces shorter than two letters dropped.
 */
static PyObject *
ascii_words(PyObject *v)
{
    const char *s = (const char *)PyUnicode_DATA(v);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(v);
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    Py_ssize_t i = 0;
    while (i < n && PyList_GET_SIZE(out) < MAX_VALUE_WORDS) {
        if (!is_lower(s[i]) && !is_upper(s[i])) {
            i++;
            continue;
        }
        Py_ssize_t j = i + 1;
        while (j < n && (is_lower(s[j]) || (is_upper(s[j]) && !is_lower(s[j - 1]))))
            j++;
        for (Py_ssize_t k = i; k < j && PyList_GET_SIZE(out) < MAX_VALUE_WORDS;
             k += MAX_WORD) {
            const Py_ssize_t len = j - k < MAX_WORD ? j - k : MAX_WORD;
            if (len < 2)
                break;
            PyObject *w = PyUnicode_New(len, 127);
            if (w == NULL) {
                Py_DECREF(out);
                return NULL;
            }
            Py_UCS1 *d = PyUnicode_1BYTE_DATA(w);
            for (Py_ssize_t m = 0; m < len; m++)
                d[m] = (Py_UCS1)(is_upper(s[k + m]) ? s[k + m] + ('a' - 'A') : s[k + m]);
            int r = PyList_Append(out, w);
            Py_DECREF(w);
            if (r < 0) {
                Py_DECREF(out);
                return NULL;
            }
        }
        i = j;
    }
    return out;
}

/* a growable int64 array */
typedef struct {
    int64_t *v;
    Py_ssize_t len, cap;
} Vec;

static int
vec_push(Vec *a, int64_t x)
{
    if (a->len == a->cap) {
        Py_ssize_t cap = a->cap ? 2 * a->cap : 256;
        int64_t *v = PyMem_Realloc(a->v, cap * sizeof(int64_t));
        if (v == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        a->v = v;
        a->cap = cap;
    }
    a->v[a->len++] = x;
    return 0;
}

static int
cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int
has_code(const Vec *sorted, int64_t code)
{
    Py_ssize_t lo = 0, hi = sorted->len;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (sorted->v[mid] < code)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < sorted->len && sorted->v[lo] == code;
}

/* the id of key in ids (dict key -> int), a new one (its size) when absent: *fresh = 1 */
static Py_ssize_t
intern_id(PyObject *ids, PyObject *key, int *fresh)
{
    PyObject *id = PyDict_GetItemWithError(ids, key);
    *fresh = 0;
    if (id != NULL)
        return PyLong_AsSsize_t(id);
    if (PyErr_Occurred())
        return -1;
    Py_ssize_t k = PyDict_GET_SIZE(ids);
    id = PyLong_FromSsize_t(k);
    if (id == NULL)
        return -1;
    int r = PyDict_SetItem(ids, key, id);
    Py_DECREF(id);
    if (r < 0)
        return -1;
    *fresh = 1;
    return k;
}

/* Everything a walk keeps per distinct tag, attribute value and signature */
typedef struct {
    PyObject *tag_ids;    /* tag -> id, in first-occurrence order */
    PyObject *tag_toks;   /* per tag id: "t:<tag>" */
    PyObject *tag_cls;    /* per tag id: dict class value -> signature id */
    Vec tag_n;            /* per tag id: elements (the tag counts) */
    Vec tag_skip;         /* per tag id: 1 when its subtree is not walked */
    PyObject *val_ids;    /* attribute value -> id, in first-occurrence order */
    PyObject *val_words;  /* per value id: its words (at most 12) */
    Vec val_n;            /* per value id: occurrences */
    PyObject *sig_ids;    /* signature "tag.first-class" -> id */
    PyObject *sig_strs;   /* per signature id: the string */
} Tables;

/* toks += the words of attribute value v; count v */
static int
add_value(Tables *tb, PyObject *toks, PyObject *split_words, PyObject *v)
{
    int fresh;
    Py_ssize_t k = intern_id(tb->val_ids, v, &fresh);
    if (k < 0)
        return -1;
    if (fresh) {
        PyObject *all = PyUnicode_IS_ASCII(v) ? ascii_words(v)
                                              : PyObject_CallOneArg(split_words, v);
        if (all == NULL)
            return -1;
        if (!PyList_Check(all)) {
            Py_DECREF(all);
            PyErr_SetString(PyExc_TypeError, "split_words must return a list");
            return -1;
        }
        PyObject *ws = PyList_GetSlice(all, 0, MAX_VALUE_WORDS);
        Py_DECREF(all);
        int r = ws ? PyList_Append(tb->val_words, ws) : -1;
        Py_XDECREF(ws);
        if (r < 0 || vec_push(&tb->val_n, 0) < 0)
            return -1;
    }
    tb->val_n.v[k]++;
    PyObject *ws = PyList_GET_ITEM(tb->val_words, k);
    Py_ssize_t n = PyList_GET_SIZE(ws);
    for (Py_ssize_t m = 0; m < n; m++)
        if (PyList_Append(toks, PyList_GET_ITEM(ws, m)) < 0)
            return -1;
    return 0;
}

/* d[key] += 1 (a new key starts at 0) */
static int
incr(PyObject *d, PyObject *key)
{
    PyObject *old = PyDict_GetItemWithError(d, key);
    if (old == NULL && PyErr_Occurred())
        return -1;
    PyObject *one = PyLong_FromLong(1);
    if (one == NULL)
        return -1;
    PyObject *nv = old ? PyNumber_Add(old, one) : Py_NewRef(one);
    Py_DECREF(one);
    if (nv == NULL)
        return -1;
    int r = PyDict_SetItem(d, key, nv);
    Py_DECREF(nv);
    return r;
}

/* a str attribute of dict a, or NULL (borrowed; NULL without error when absent) */
static PyObject *
str_attr(PyObject *a, PyObject *key, int *err)
{
    PyObject *v = PyDict_GetItemWithError(a, key);
    if (v == NULL) {
        if (PyErr_Occurred())
            *err = 1;
        return NULL;
    }
    if (!PyUnicode_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "attribute values must be str");
        *err = 1;
        return NULL;
    }
    return v;
}

/* toks += prefix + s.lower()[:limit] */
static int
append_lowered(PyObject *toks, const char *prefix, PyObject *s, Py_ssize_t limit)
{
    PyObject *low = PyObject_CallMethod(s, "lower", NULL);
    if (low == NULL)
        return -1;
    PyObject *cut = PyUnicode_Substring(low, 0, limit);
    Py_DECREF(low);
    if (cut == NULL)
        return -1;
    PyObject *tok = PyUnicode_FromFormat("%s%U", prefix, cut);
    Py_DECREF(cut);
    if (tok == NULL)
        return -1;
    int r = PyList_Append(toks, tok);
    Py_DECREF(tok);
    return r;
}

/* a sibling group as one integer: parent id and signature id */
static int64_t
group_code(int64_t parent, int64_t sig)
{
    return (parent << 32) | sig;
}

/* the groups (parent[node], sig[node]) of node and up to depth - 1 ancestors, as codes */
static int
mark_groups(int64_t node, int depth, const int64_t *parent, Py_ssize_t n, const int64_t *sig,
            Vec *into)
{
    for (int k = 0; k < depth; k++) {
        if (node < 0)
            break;
        if (node >= n) {
            PyErr_SetString(PyExc_ValueError, "parent index out of range");
            return -1;
        }
        if (sig[node] >= 0 && vec_push(into, group_code(parent[node], sig[node])) < 0)
            return -1;
        node = parent[node];
    }
    return 0;
}

/* the signature id of (tag, class value): "tag.first-class-word" or "tag." */
static Py_ssize_t
signature(Tables *tb, Py_ssize_t tid, PyObject *t, PyObject *cls)
{
    PyObject *by_cls = PyList_GET_ITEM(tb->tag_cls, tid);
    PyObject *id = PyDict_GetItemWithError(by_cls, cls);
    if (id != NULL)
        return PyLong_AsSsize_t(id);
    if (PyErr_Occurred())
        return -1;
    PyObject *first = PyObject_CallMethod(cls, "split", "Oi", Py_None, 1);
    if (first == NULL)
        return -1;
    PyObject *s = PyList_GET_SIZE(first) > 0
                      ? PyUnicode_FromFormat("%U.%U", t, PyList_GET_ITEM(first, 0))
                      : PyUnicode_FromFormat("%U.", t);
    Py_DECREF(first);
    if (s == NULL)
        return -1;
    int fresh;
    Py_ssize_t k = intern_id(tb->sig_ids, s, &fresh);
    int r = k >= 0 && fresh ? PyList_Append(tb->sig_strs, s) : 0;
    Py_DECREF(s);
    if (k < 0 || r < 0)
        return -1;
    id = PyLong_FromSsize_t(k);
    r = id ? PyDict_SetItem(by_cls, cls, id) : -1;
    Py_XDECREF(id);
    return r < 0 ? -1 : k;
}

/* the id of tag t, registering a new tag (its token, its skip flag) on first sight */
static Py_ssize_t
tag_id(Tables *tb, PyObject *t, PyObject *skipped)
{
    int fresh;
    Py_ssize_t k = intern_id(tb->tag_ids, t, &fresh);
    if (k < 0 || !fresh)
        return k;
    int skip = PySet_Contains(skipped, t);
    if (skip < 0)
        return -1;
    PyObject *tok = PyUnicode_FromFormat("t:%U", t);
    PyObject *by_cls = PyDict_New();
    int r = (tok && by_cls) ? PyList_Append(tb->tag_toks, tok) : -1;
    if (r == 0)
        r = PyList_Append(tb->tag_cls, by_cls);
    Py_XDECREF(tok);
    Py_XDECREF(by_cls);
    if (r < 0 || vec_push(&tb->tag_n, 0) < 0 || vec_push(&tb->tag_skip, skip) < 0)
        return -1;
    return k;
}

/* {key_list[k]: counts[k]} in id order (the first-occurrence order of the Python dicts) */
static PyObject *
counts_dict(PyObject *ids, const Vec *counts)
{
    PyObject *out = PyDict_New();
    if (out == NULL)
        return NULL;
    Py_ssize_t pos = 0, k = 0;
    PyObject *key, *id;
    while (PyDict_Next(ids, &pos, &key, &id)) {
        PyObject *c = PyLong_FromLongLong(counts->v[k++]);
        int r = c ? PyDict_SetItem(out, key, c) : -1;
        Py_XDECREF(c);
        if (r < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

PyDoc_STRVAR(walk_doc,
"walk(elements, tags, attrs, parent, end, skipped, split_words)\n"
"    -> (toks, tag_counts, input_counts, values, groups, has_img, has_link)\n"
"\n"
"The loop of classify.pagefeatures._dom over the element ids ``elements`` (int64, document\n"
"order). tags: list of str; attrs: list of dicts (or None); parent, end: int64 per node\n"
"(parent, one past the subtree's end); skipped: a set of tags whose subtree is not walked;\n"
"split_words: the function giving a non-ASCII attribute value's words. ``groups`` holds only\n"
"the sibling groups of five or more (the only ones _dom reads), has_img and has_link only\n"
"those of them with an image / link card.");

static PyObject *
walk(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer elb, parb, endb;
    PyObject *tags, *attrs, *skipped, *split_words;
    if (!PyArg_ParseTuple(args, "y*O!O!y*y*OO", &elb, &PyList_Type, &tags, &PyList_Type,
                          &attrs, &parb, &endb, &skipped, &split_words))
        return NULL;

    PyObject *result = NULL;
    int64_t *sig = NULL;
    unsigned char *img_from = NULL, *link_from = NULL;
    Vec gcodes = {0}, img = {0}, link = {0};
    Tables tb = {0};
    PyObject *toks = PyList_New(0), *inputs = PyDict_New(), *groups = PyDict_New();
    PyObject *has_img = PySet_New(NULL), *has_link = PySet_New(NULL);
    PyObject *tag_counts = NULL, *values = NULL;
    tb.tag_ids = PyDict_New();
    tb.tag_toks = PyList_New(0);
    tb.tag_cls = PyList_New(0);
    tb.val_ids = PyDict_New();
    tb.val_words = PyList_New(0);
    tb.sig_ids = PyDict_New();
    tb.sig_strs = PyList_New(0);
    PyObject *k_class = PyUnicode_InternFromString("class");
    PyObject *k_keys[3] = {PyUnicode_InternFromString("id"), PyUnicode_InternFromString("role"),
                           PyUnicode_InternFromString("name")};
    PyObject *k_type = PyUnicode_InternFromString("type");
    PyObject *empty = PyUnicode_InternFromString("");
    if (!toks || !inputs || !groups || !has_img || !has_link || !tb.tag_ids || !tb.tag_toks ||
        !tb.tag_cls || !tb.val_ids || !tb.val_words || !tb.sig_ids || !tb.sig_strs ||
        !k_class || !k_keys[0] || !k_keys[1] || !k_keys[2] || !k_type || !empty)
        goto done;

    const Py_ssize_t n = PyList_GET_SIZE(tags);
    if (PyList_GET_SIZE(attrs) != n || parb.len != n * (Py_ssize_t)sizeof(int64_t) ||
        endb.len != n * (Py_ssize_t)sizeof(int64_t) || elb.len % sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "tags, attrs, parent and end must have one entry "
                                          "per node; elements must be int64");
        goto done;
    }
    if (n >= ((Py_ssize_t)1 << 31)) {
        PyErr_SetString(PyExc_ValueError, "too many nodes");
        goto done;
    }
    if (!PyAnySet_Check(skipped)) {
        PyErr_SetString(PyExc_TypeError, "skipped must be a set");
        goto done;
    }
    const int64_t *el = (const int64_t *)elb.buf;
    const int64_t *parent = (const int64_t *)parb.buf;
    const int64_t *end = (const int64_t *)endb.buf;
    const Py_ssize_t n_el = elb.len / (Py_ssize_t)sizeof(int64_t);
    sig = PyMem_Malloc((n ? n : 1) * sizeof(int64_t));  /* signature id per node, -1: none */
    img_from = PyMem_Calloc(n ? n : 1, 1);  /* parents whose image groups are marked */
    link_from = PyMem_Calloc(n ? n : 1, 1);
    if (!sig || !img_from || !link_from) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        sig[i] = -1;

    int64_t skip_until = -1;
    for (Py_ssize_t e = 0; e < n_el; e++) {
        const int64_t i = el[e];
        if (i < 0 || i >= n) {
            PyErr_SetString(PyExc_ValueError, "element index out of range");
            goto done;
        }
        if (i < skip_until)
            continue;
        PyObject *t = PyList_GET_ITEM(tags, i);
        if (!PyUnicode_Check(t)) {
            PyErr_SetString(PyExc_TypeError, "tags must be str");
            goto done;
        }
        const Py_ssize_t tid = tag_id(&tb, t, skipped);
        if (tid < 0)
            goto done;
        tb.tag_n.v[tid]++;
        if (tb.tag_skip.v[tid]) {  /* their insides are not page structure */
            skip_until = end[i];
            continue;
        }
        if (PyList_Append(toks, PyList_GET_ITEM(tb.tag_toks, tid)) < 0)
            goto done;

        PyObject *a = PyList_GET_ITEM(attrs, i);
        PyObject *cls = empty;  /* borrowed */
        int err = 0;
        if (a != Py_None && !PyDict_Check(a)) {
            PyErr_SetString(PyExc_TypeError, "attrs must be dicts or None");
            goto done;
        }
        if (a != Py_None && PyDict_GET_SIZE(a) > 0) {
            PyObject *c = str_attr(a, k_class, &err);
            if (err)
                goto done;
            if (c != NULL)
                cls = c;
            const int has_cls = PyUnicode_GET_LENGTH(cls) > 0;
            if (has_cls && add_value(&tb, toks, split_words, cls) < 0)
                goto done;
            /* half of all elements have a class and nothing else */
            if (PyDict_GET_SIZE(a) > 1 || !has_cls) {
                for (int k = 0; k < 3; k++) {
                    PyObject *v = str_attr(a, k_keys[k], &err);
                    if (err)
                        goto done;
                    if (v != NULL && PyUnicode_GET_LENGTH(v) > 0 &&
                        add_value(&tb, toks, split_words, v) < 0)
                        goto done;
                }
            }
            if (PyUnicode_CompareWithASCIIString(t, "input") == 0) {
                PyObject *ty = str_attr(a, k_type, &err);
                if (err)
                    goto done;
                PyObject *src = (ty != NULL && PyUnicode_GET_LENGTH(ty) > 0) ? ty : NULL;
                PyObject *it = src ? PyObject_CallMethod(src, "lower", NULL)
                                   : PyUnicode_FromString("text");
                if (it == NULL)
                    goto done;
                PyObject *key = PyUnicode_FromFormat("input_%U", it);
                int r = key ? incr(inputs, key) : -1;
                Py_XDECREF(key);
                PyObject *cut = r == 0 ? PyUnicode_Substring(it, 0, 12) : NULL;
                PyObject *tok = cut ? PyUnicode_FromFormat("in:%U", cut) : NULL;
                r = tok ? PyList_Append(toks, tok) : -1;
                Py_XDECREF(tok);
                Py_XDECREF(cut);
                Py_DECREF(it);
                if (r < 0)
                    goto done;
            }
            PyObject *role = str_attr(a, k_keys[1], &err);
            if (err)
                goto done;
            if (role != NULL && append_lowered(toks, "role:", role, 20) < 0)
                goto done;
        }

        const int64_t p = parent[i];
        if (p >= n) {
            PyErr_SetString(PyExc_ValueError, "parent index out of range");
            goto done;
        }
        if (p >= 0) {
            const Py_ssize_t s = signature(&tb, tid, t, cls);
            if (s < 0)
                goto done;
            sig[i] = s;
            if (vec_push(&gcodes, group_code(p, s)) < 0)
                goto done;
            /* the first image / link inside a sibling marks its groups (see the Python) */
            if (PyUnicode_CompareWithASCIIString(t, "img") == 0 ||
                PyUnicode_CompareWithASCIIString(t, "picture") == 0) {
                if (!img_from[p]) {
                    img_from[p] = 1;
                    if (mark_groups(p, 4, parent, n, sig, &img) < 0)
                        goto done;
                }
            } else if (PyUnicode_CompareWithASCIIString(t, "a") == 0 && !link_from[p]) {
                link_from[p] = 1;
                if (mark_groups(p, 3, parent, n, sig, &link) < 0)
                    goto done;
            }
        }
    }

    /* the groups of five or more, and which of them hold image / link cards */
    if (gcodes.len)
        qsort(gcodes.v, gcodes.len, sizeof(int64_t), cmp_i64);
    if (img.len)
        qsort(img.v, img.len, sizeof(int64_t), cmp_i64);
    if (link.len)
        qsort(link.v, link.len, sizeof(int64_t), cmp_i64);
    for (Py_ssize_t a = 0, b; a < gcodes.len; a = b) {
        const int64_t code = gcodes.v[a];
        for (b = a + 1; b < gcodes.len && gcodes.v[b] == code; b++)
            ;
        if (b - a < 5)
            continue;
        PyObject *g = Py_BuildValue("(LO)", (long long)(code >> 32),
                                    PyList_GET_ITEM(tb.sig_strs, code & 0xffffffff));
        PyObject *c = PyLong_FromSsize_t(b - a);
        int r = (g && c) ? PyDict_SetItem(groups, g, c) : -1;
        if (r == 0 && has_code(&img, code))
            r = PySet_Add(has_img, g);
        if (r == 0 && has_code(&link, code))
            r = PySet_Add(has_link, g);
        Py_XDECREF(g);
        Py_XDECREF(c);
        if (r < 0)
            goto done;
    }
    tag_counts = counts_dict(tb.tag_ids, &tb.tag_n);
    values = tag_counts ? counts_dict(tb.val_ids, &tb.val_n) : NULL;
    if (values)
        result = PyTuple_Pack(7, toks, tag_counts, inputs, values, groups, has_img, has_link);
done:
    PyBuffer_Release(&elb);
    PyBuffer_Release(&parb);
    PyBuffer_Release(&endb);
    PyMem_Free(sig);
    PyMem_Free(img_from);
    PyMem_Free(link_from);
    PyMem_Free(gcodes.v);
    PyMem_Free(img.v);
    PyMem_Free(link.v);
    PyMem_Free(tb.tag_n.v);
    PyMem_Free(tb.tag_skip.v);
    PyMem_Free(tb.val_n.v);
    Py_XDECREF(tb.tag_ids);
    Py_XDECREF(tb.tag_toks);
    Py_XDECREF(tb.tag_cls);
    Py_XDECREF(tb.val_ids);
    Py_XDECREF(tb.val_words);
    Py_XDECREF(tb.sig_ids);
    Py_XDECREF(tb.sig_strs);
    Py_XDECREF(toks);
    Py_XDECREF(tag_counts);
    Py_XDECREF(inputs);
    Py_XDECREF(values);
    Py_XDECREF(groups);
    Py_XDECREF(has_img);
    Py_XDECREF(has_link);
    Py_XDECREF(k_class);
    Py_XDECREF(k_keys[0]);
    Py_XDECREF(k_keys[1]);
    Py_XDECREF(k_keys[2]);
    Py_XDECREF(k_type);
    Py_XDECREF(empty);
    return result;
}

/* character k of a lower-cased text: ASCII text is lower-cased here, other text arrives
   lower-cased by Python's str.lower */
static Py_UCS4
low_char(int kind, const void *data, Py_ssize_t k, int ascii)
{
    Py_UCS4 c = PyUnicode_READ(kind, data, k);
    return ascii && c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

PyDoc_STRVAR(stems_doc,
"stems(values, keys, masks, n_stems) -> (list of n_stems ints, found)\n"
"\n"
"classify.pagefeatures.stem_counts as sums: values maps attribute values to counts; keys\n"
"are ASCII substrings, masks[k] the bit set of the stems key k belongs to. Entry s is the\n"
"sum of the counts of the values whose lower-cased text holds a key of stem s; bit s of\n"
"found is set when any value holds one.");

static PyObject *
stems(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *values, *keys, *masks;
    Py_ssize_t n_stems;
    if (!PyArg_ParseTuple(args, "O!O!O!n", &PyDict_Type, &values, &PyTuple_Type, &keys,
                          &PyTuple_Type, &masks, &n_stems))
        return NULL;
    const Py_ssize_t n_keys = PyTuple_GET_SIZE(keys);
    if (PyTuple_GET_SIZE(masks) != n_keys || n_stems < 0 || n_stems > 62) {
        PyErr_SetString(PyExc_ValueError, "one mask per key, at most 62 stems");
        return NULL;
    }
    /* keys by first character: first[c] .. the keys starting with c, in a linked list */
    Py_ssize_t head[128], next[256];
    uint64_t kmask[256];
    if (n_keys > 256) {
        PyErr_SetString(PyExc_ValueError, "at most 256 keys");
        return NULL;
    }
    /* per first character, the second characters of its keys (a bit set) and whether one
       of its keys is a single character: most characters of a value start a key of no
       pair, and are passed without walking the key list */
    uint64_t second[128][2];
    unsigned char single[128];
    memset(second, 0, sizeof(second));
    memset(single, 0, sizeof(single));
    for (int c = 0; c < 128; c++)
        head[c] = -1;
    for (Py_ssize_t k = n_keys - 1; k >= 0; k--) {
        PyObject *key = PyTuple_GET_ITEM(keys, k);
        if (!PyUnicode_Check(key) || !PyUnicode_IS_ASCII(key) ||
            PyUnicode_GET_LENGTH(key) == 0) {
            PyErr_SetString(PyExc_ValueError, "keys must be non-empty ASCII str");
            return NULL;
        }
        unsigned long long m = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(masks, k));
        if (m == (unsigned long long)-1 && PyErr_Occurred())
            return NULL;
        kmask[k] = m;
        const unsigned char c0 = PyUnicode_1BYTE_DATA(key)[0];
        next[k] = head[c0];
        head[c0] = k;
        if (PyUnicode_GET_LENGTH(key) == 1) {
            single[c0] = 1;
        } else {
            const unsigned char c1 = PyUnicode_1BYTE_DATA(key)[1];
            second[c0][c1 >> 6] |= (uint64_t)1 << (c1 & 63);
        }
    }
    long long sums[64] = {0};
    uint64_t any = 0;  /* the stems found in some value */
    Py_ssize_t pos = 0;
    PyObject *v, *count;
    while (PyDict_Next(values, &pos, &v, &count)) {
        if (!PyUnicode_Check(v)) {
            PyErr_SetString(PyExc_TypeError, "values must be str");
            return NULL;
        }
        long long c = PyLong_AsLongLong(count);
        if (c == -1 && PyErr_Occurred())
            return NULL;
        const int ascii = PyUnicode_IS_ASCII(v);
        PyObject *low = ascii ? Py_NewRef(v) : PyObject_CallMethod(v, "lower", NULL);
        if (low == NULL)
            return NULL;
        if (!PyUnicode_Check(low)) {
            Py_DECREF(low);
            PyErr_SetString(PyExc_TypeError, "str.lower gave no str");
            return NULL;
        }
        const int kind = PyUnicode_KIND(low);
        const void *data = PyUnicode_DATA(low);
        const Py_ssize_t len = PyUnicode_GET_LENGTH(low);
        uint64_t found = 0;
        if (ascii) {
            /* ASCII (nearly every value): its bytes lower-cased into a buffer, then each
               candidate key compared with memcmp */
            unsigned char stack[256];
            unsigned char *b = len <= 256 ? stack : PyMem_Malloc(len);
            if (b == NULL) {
                Py_DECREF(low);
                PyErr_NoMemory();
                return NULL;
            }
            const unsigned char *d = (const unsigned char *)data;
            for (Py_ssize_t i = 0; i < len; i++)
                b[i] = (d[i] >= 'A' && d[i] <= 'Z') ? (unsigned char)(d[i] + ('a' - 'A')) : d[i];
            for (Py_ssize_t i = 0; i < len; i++) {
                const unsigned char ch = b[i];
                if (ch >= 128 || head[ch] < 0)
                    continue;
                if (!single[ch]) {
                    if (i + 1 >= len)
                        continue;
                    const unsigned char c1 = b[i + 1];
                    if (c1 >= 128 || !(second[ch][c1 >> 6] >> (c1 & 63) & 1))
                        continue;
                }
                for (Py_ssize_t k = head[ch]; k >= 0; k = next[k]) {
                    PyObject *key = PyTuple_GET_ITEM(keys, k);
                    const Py_ssize_t kl = PyUnicode_GET_LENGTH(key);
                    if (i + kl <= len && memcmp(b + i, PyUnicode_1BYTE_DATA(key), kl) == 0)
                        found |= kmask[k];
                }
            }
            if (b != stack)
                PyMem_Free(b);
        }
        for (Py_ssize_t i = 0; i < len && !ascii; i++) {
            const Py_UCS4 ch = low_char(kind, data, i, ascii);
            if (ch >= 128 || head[ch] < 0)
                continue;
            if (!single[ch]) {
                if (i + 1 >= len)
                    continue;
                const Py_UCS4 c1 = low_char(kind, data, i + 1, ascii);
                if (c1 >= 128 || !(second[ch][c1 >> 6] >> (c1 & 63) & 1))
                    continue;
            }
            for (Py_ssize_t k = head[ch]; k >= 0; k = next[k]) {
                PyObject *key = PyTuple_GET_ITEM(keys, k);
                const Py_ssize_t kl = PyUnicode_GET_LENGTH(key);
                if (i + kl > len)
                    continue;
                const unsigned char *kd = PyUnicode_1BYTE_DATA(key);
                Py_ssize_t m = 1;
                while (m < kl && low_char(kind, data, i + m, ascii) == kd[m])
                    m++;
                if (m == kl)
                    found |= kmask[k];
            }
        }
        Py_DECREF(low);
        any |= found;
        for (Py_ssize_t st = 0; st < n_stems; st++)
            if (found >> st & 1)
                sums[st] += c;
    }
    PyObject *out = PyList_New(n_stems);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t st = 0; st < n_stems; st++) {
        PyObject *x = PyLong_FromLongLong(sums[st]);
        if (x == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, st, x);
    }
    PyObject *res = Py_BuildValue("(NK)", out, (unsigned long long)any);
    return res;
}

PyDoc_STRVAR(holder_bits_doc,
"holder_bits(leaves, parent, tags, bits_of, depth, out)\n"
"\n"
"For every text leaf (int64 node ids), the OR of bits_of.get(tags[a], 0) over its nearest\n"
"depth ancestors a (parent: int64 per node, -1 at the root), written to out (int64, one per\n"
"leaf): the holder kinds of classify.pagefeatures._text_stats.");

/*
 * Why compiled: the numpy version builds every node's code (a dictionary look-up per node
 * through map) and takes six gather-and-mask steps over the leaves, ~0.1 ms a page; here
 * each ancestor's code is looked up once (memoised per node) on a walk up from each leaf.
 */
static PyObject *
holder_bits(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer lb, pb, ob;
    PyObject *tags, *bits_of;
    int depth;
    if (!PyArg_ParseTuple(args, "y*y*O!O!iw*", &lb, &pb, &PyList_Type, &tags, &PyDict_Type,
                          &bits_of, &depth, &ob))
        return NULL;
    PyObject *result = NULL;
    int64_t *memo = NULL;
    const Py_ssize_t n = PyList_GET_SIZE(tags);
    const Py_ssize_t n_leaves = lb.len / (Py_ssize_t)sizeof(int64_t);
    if (lb.len % sizeof(int64_t) || pb.len != n * (Py_ssize_t)sizeof(int64_t) ||
        ob.len != lb.len || depth < 0) {
        PyErr_SetString(PyExc_ValueError, "leaves and out: int64 of one length; parent: int64 "
                                          "per tag; depth >= 0");
        goto done;
    }
    const int64_t *leaves = (const int64_t *)lb.buf, *parent = (const int64_t *)pb.buf;
    int64_t *out = (int64_t *)ob.buf;
    memo = PyMem_Malloc((n ? n : 1) * sizeof(int64_t));  /* a node's code, -1: not yet */
    if (memo == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        memo[i] = -1;
    for (Py_ssize_t k = 0; k < n_leaves; k++) {
        if (leaves[k] < 0 || leaves[k] >= n) {
            PyErr_SetString(PyExc_ValueError, "leaf index out of range");
            goto done;
        }
        int64_t bits = 0, a = parent[leaves[k]];
        for (int d = 0; d < depth && a >= 0; d++) {
            if (a >= n) {
                PyErr_SetString(PyExc_ValueError, "parent index out of range");
                goto done;
            }
            if (memo[a] < 0) {
                PyObject *c = PyDict_GetItemWithError(bits_of, PyList_GET_ITEM(tags, a));
                if (c == NULL && PyErr_Occurred())
                    goto done;
                const long long v = c ? PyLong_AsLongLong(c) : 0;
                if (v == -1 && PyErr_Occurred())
                    goto done;
                if (v < 0) {
                    PyErr_SetString(PyExc_ValueError, "holder bits must be >= 0");
                    goto done;
                }
                memo[a] = v;
            }
            bits |= memo[a];
            a = parent[a];
        }
        out[k] = bits;
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&lb);
    PyBuffer_Release(&pb);
    PyBuffer_Release(&ob);
    PyMem_Free(memo);
    return result;
}

static PyMethodDef methods[] = {
    {"holder_bits", holder_bits, METH_VARARGS, holder_bits_doc},
    {"walk", walk, METH_VARARGS, walk_doc},
    {"stems", stems, METH_VARARGS, stems_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "markupwalk",
    "Compiled markup walk of the page-type features (see classify.pagefeatures).", -1,
    methods,
};

PyMODINIT_FUNC
PyInit_markupwalk(void)
{
    return PyModule_Create(&module);
}
