/*
 * The walk of a lexbor DOM (selectolax nodes) into the columns of a layout-free Page.
 *
 * Why compiled: webseg.parse._walk_lexbor visits every node of a page (two thousand on an
 * average web page) and its per-node rules (whitespace-only text, visibility, the depth
 * cap, whitespace keeping) cost about three times what reading the nodes from selectolax
 * costs. This module runs the same rules in C and reads the nodes through selectolax's
 * public Python attributes only (tag, attributes, text_content, first_child, next): no
 * lexbor or selectolax internals are linked. The rare cases keep their Python code: an
 * element whose attributes are not all kept as they are (or an <input>, hidden by its
 * type) is handed to ``element_fn``, a <template> with attributes to ``shadow_fn``.
 *
 * The rules, and the order of every decision, are webseg.parse._walk_lexbor's (read its
 * docstring and comments); the tests parse the same pages both ways and compare every
 * column. Every index read from a list is bounds-checked; a Python error raised by
 * selectolax or a helper propagates.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* Whether a code point is blank to the renderer's /\S/ (JavaScript's white space and line
 * terminators): text made only of these is no node of the page. */
static inline int
is_js_blank(Py_UCS4 c)
{
    if (c <= 0x20)
        return c == 0x20 || (c >= 0x09 && c <= 0x0d);
    if (c < 0xa0)
        return 0;
    return c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 ||
           c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000 || c == 0xfeff;
}

static int
has_non_blank(PyObject *s)
{
    const Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    const int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!is_js_blank(PyUnicode_READ(kind, data, i)))
            return 1;
    return 0;
}

/* A string equal to an ASCII literal (len: its length). */
static inline int
str_is(PyObject *s, const char *lit, Py_ssize_t len)
{
    return PyUnicode_GET_LENGTH(s) == len && PyUnicode_IS_ASCII(s) &&
           memcmp(PyUnicode_DATA(s), lit, (size_t)len) == 0;
}

/* ct.lower(), without a new string when ct is lower-case ASCII already (most tags). */
static PyObject *
lower_tag(PyObject *ct)
{
    if (PyUnicode_IS_ASCII(ct)) {
        const unsigned char *p = PyUnicode_DATA(ct);
        const Py_ssize_t n = PyUnicode_GET_LENGTH(ct);
        Py_ssize_t i = 0;
        while (i < n && !(p[i] >= 'A' && p[i] <= 'Z'))
            i++;
        if (i == n) {
            Py_INCREF(ct);
            return ct;
        }
    }
    return PyObject_CallMethod(ct, "lower", NULL);
}

typedef struct {
    PyObject *next; /* owned; NULL for None */
    Py_ssize_t parent, pdepth;
    int pvis, skip;
} Place;

typedef struct {
    Place *items;
    Py_ssize_t len, cap;
} Stack;

static int
stack_push(Stack *s, Place p)
{
    if (s->len == s->cap) {
        Py_ssize_t cap = s->cap ? 2 * s->cap : 64;
        Place *items = PyMem_Realloc(s->items, (size_t)cap * sizeof(Place));
        if (items == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        s->items = items;
        s->cap = cap;
    }
    s->items[s->len++] = p;
    return 0;
}

/* Per-node C arrays (parent id, whitespace kept) beside the Python columns. */
typedef struct {
    Py_ssize_t *parent;
    unsigned char *preserved;
    Py_ssize_t cap;
} Nodes;

static int
nodes_reserve(Nodes *v, Py_ssize_t n)
{
    if (n < v->cap)
        return 0;
    Py_ssize_t cap = v->cap ? 2 * v->cap : 1024;
    while (cap <= n)
        cap *= 2;
    Py_ssize_t *parent = PyMem_Realloc(v->parent, (size_t)cap * sizeof(Py_ssize_t));
    if (parent == NULL)
        goto nomem;
    v->parent = parent;
    unsigned char *preserved = PyMem_Realloc(v->preserved, (size_t)cap);
    if (preserved == NULL)
        goto nomem;
    v->preserved = preserved;
    v->cap = cap;
    return 0;
nomem:
    PyErr_NoMemory();
    return -1;
}

/* Append a new reference to a list, stealing it (NULL: an error already set). */
static inline int
append_steal(PyObject *list, PyObject *item)
{
    if (item == NULL)
        return -1;
    int r = PyList_Append(list, item);
    Py_DECREF(item);
    return r;
}

static PyObject *s_tag, *s_attributes, *s_text_content, *s_first_child, *s_next;

/* The node type's property getters, read once per walk: calling a getter directly skips
 * the generic attribute look-up (the type's method cache, the instance-dict check), a
 * tenth of the walk. Only used on nodes of exactly that type whose attribute is a plain
 * getset descriptor (a property of the extension type, which no instance can shadow);
 * anything else goes through PyObject_GetAttr. */
typedef struct {
    PyTypeObject *type;
    PyGetSetDef *tag, *attributes, *text_content, *first_child, *next;
} Getters;

static PyGetSetDef *
getter_of(PyTypeObject *type, PyObject *name)
{
    PyObject *d = PyObject_GetAttr((PyObject *)type, name);
    PyGetSetDef *def = NULL;
    if (d == NULL) {
        PyErr_Clear();
        return NULL;
    }
    if (Py_IS_TYPE(d, &PyGetSetDescr_Type) &&
        PyDescr_TYPE((PyDescrObject *)d) == type &&
        ((PyGetSetDescrObject *)d)->d_getset->get != NULL)
        def = ((PyGetSetDescrObject *)d)->d_getset; /* static in the type: outlives d */
    Py_DECREF(d);
    return def;
}

static void
getters_init(Getters *g, PyObject *node)
{
    PyTypeObject *type = Py_TYPE(node);
    g->type = type;
    g->tag = getter_of(type, s_tag);
    g->attributes = getter_of(type, s_attributes);
    g->text_content = getter_of(type, s_text_content);
    g->first_child = getter_of(type, s_first_child);
    g->next = getter_of(type, s_next);
}

static inline PyObject *
get_attr(const Getters *g, PyObject *node, PyGetSetDef *def, PyObject *name)
{
    if (def != NULL && Py_TYPE(node) == g->type)
        return def->get(node, def->closure);
    return PyObject_GetAttr(node, name);
}

/* node.<name> as a new reference, None mapped to NULL without an error (*err tells). */
static inline PyObject *
get_node(const Getters *g, PyObject *node, PyGetSetDef *def, PyObject *name, int *err)
{
    PyObject *r = get_attr(g, node, def, name);
    if (r == NULL) {
        *err = 1;
        return NULL;
    }
    if (r == Py_None) {
        Py_DECREF(r);
        return NULL;
    }
    return r;
}

PyDoc_STRVAR(walk_doc,
"walk(root, max_nodes, max_depth, kept, non_rendered, preserve_tags, skip_texts,\n"
"     element_fn, shadow_fn, shadow_hosts, text_kind, element_kind)\n"
"\n"
"The Page columns of the lexbor tree under root (a selectolax node), as\n"
"(parent, kind, tag, text, attrs, visible, ws, capped, title_node): six lists, the\n"
"whitespace before nodes {id: str}, whether the depth cap moved elements (the columns\n"
"then still need re-sorting into document order) and the first <title> node or None.\n"
"element_fn(tag, attrib, parent_visible, parent_preserved) -> (attrs, visible, pre);\n"
"shadow_fn(attrib, parent, host_tag, shadow_hosts) -> bool (webseg.parse._shadow_root).");

static PyObject *
walk(PyObject *self, PyObject *args)
{
    PyObject *root, *kept, *non_rendered, *preserve_tags, *skip_texts, *element_fn, *shadow_fn,
        *hosts, *text_kind, *element_kind;
    Py_ssize_t max_nodes, max_depth;
    if (!PyArg_ParseTuple(args, "OnnO!O!O!O!OOO!OO", &root, &max_nodes, &max_depth,
                          &PyFrozenSet_Type, &kept, &PyFrozenSet_Type, &non_rendered,
                          &PyFrozenSet_Type, &preserve_tags, &PyFrozenSet_Type, &skip_texts,
                          &element_fn, &shadow_fn, &PySet_Type, &hosts, &text_kind,
                          &element_kind))
        return NULL;

    PyObject *c_parent = PyList_New(0), *c_kind = PyList_New(0), *c_tag = PyList_New(0),
             *c_text = PyList_New(0), *c_attrs = PyList_New(0), *c_vis = PyList_New(0),
             *ws = PyDict_New(), *text_tag = PyUnicode_FromString("#text"),
             *empty = PyUnicode_FromString(""), *space = PyUnicode_FromString(" ");
    PyObject *pending = NULL, *title_node = NULL, *node = NULL, *result = NULL;
    Stack saved = {NULL, 0, 0};
    Nodes nodes = {NULL, NULL, 0};
    int capped = 0, err = 0;
    if (!c_parent || !c_kind || !c_tag || !c_text || !c_attrs || !c_vis || !ws || !text_tag ||
        !empty || !space)
        goto done;
    pending = empty;
    Py_INCREF(pending);

    /* the walk's place: the current node and its parent's id, visibility, depth (before
     * the cap) and whether its text is skipped */
    Py_ssize_t parent = -1, pdepth = -1;
    int pvis = 1, skip = 0;
    Getters g;
    getters_init(&g, root);
    node = root;
    Py_INCREF(node);
    for (;;) {
        if (node == NULL) {
            if (saved.len == 0)
                break;
            Place p = saved.items[--saved.len];
            node = p.next; /* the stack's reference moves here */
            parent = p.parent;
            pvis = p.pvis;
            pdepth = p.pdepth;
            skip = p.skip;
            continue;
        }
        PyObject *ct = get_attr(&g, node, g.tag, s_tag);
        if (ct == NULL)
            goto done;
        if (ct != Py_None && !PyUnicode_Check(ct)) {
            Py_DECREF(ct);
            PyErr_SetString(PyExc_TypeError, "node.tag is not a str");
            goto done;
        }
        if (ct != Py_None && str_is(ct, "-text", 5)) {
            Py_DECREF(ct);
            PyObject *t = NULL;
            if (!skip) {
                t = get_node(&g, node, g.text_content, s_text_content, &err);
                if (err)
                    goto done;
                if (t != NULL && !PyUnicode_Check(t)) {
                    Py_DECREF(t);
                    PyErr_SetString(PyExc_TypeError, "node.text_content is not a str");
                    goto done;
                }
            }
            if (t != NULL && PyUnicode_GET_LENGTH(t) > 0) {
                if (has_non_blank(t)) { /* a text node: no depth cap, never keeps whitespace */
                    const Py_ssize_t n = PyList_GET_SIZE(c_parent);
                    if (n >= max_nodes) {
                        Py_DECREF(t);
                        PyErr_Format(PyExc_ValueError, "DOM has more than %zd nodes", max_nodes);
                        goto done;
                    }
                    if (nodes_reserve(&nodes, n) < 0 ||
                        append_steal(c_parent, PyLong_FromSsize_t(parent)) < 0 ||
                        PyList_Append(c_kind, text_kind) < 0 ||
                        PyList_Append(c_tag, text_tag) < 0 || PyList_Append(c_text, t) < 0 ||
                        PyList_Append(c_attrs, Py_None) < 0 ||
                        PyList_Append(c_vis, pvis ? Py_True : Py_False) < 0) {
                        Py_DECREF(t);
                        goto done;
                    }
                    nodes.parent[n] = parent;
                    nodes.preserved[n] = 0; /* never read: a text node is no parent */
                    if (PyUnicode_GET_LENGTH(pending) > 0) {
                        PyObject *key = PyLong_FromSsize_t(n);
                        int r = key ? PyDict_SetItem(ws, key, pending) : -1;
                        Py_XDECREF(key);
                        if (r < 0) {
                            Py_DECREF(t);
                            goto done;
                        }
                        Py_SETREF(pending, Py_NewRef(empty));
                    }
                } else if (parent >= 0 && nodes.preserved[parent]) {
                    /* whitespace-only: verbatim on the next node */
                    PyObject *joined = PyUnicode_Concat(pending, t);
                    if (joined == NULL) {
                        Py_DECREF(t);
                        goto done;
                    }
                    Py_SETREF(pending, joined);
                } else if (PyUnicode_GET_LENGTH(pending) == 0) { /* elsewhere one space */
                    Py_SETREF(pending, Py_NewRef(space));
                }
            }
            Py_XDECREF(t);
            PyObject *next = get_node(&g, node, g.next, s_next, &err);
            if (err)
                goto done;
            Py_SETREF(node, next);
            continue;
        }
        if (ct == Py_None || str_is(ct, "!doctype", 8) ||
            (PyUnicode_GET_LENGTH(ct) > 0 && PyUnicode_READ_CHAR(ct, 0) == '-')) {
            /* comments, processing instructions */
            Py_DECREF(ct);
            PyObject *next = get_node(&g, node, g.next, s_next, &err);
            if (err)
                goto done;
            Py_SETREF(node, next);
            continue;
        }
        if (PyUnicode_GET_LENGTH(ct) == 0) { /* as ct[0] in Python */
            Py_DECREF(ct);
            PyErr_SetString(PyExc_IndexError, "string index out of range");
            goto done;
        }
        PyObject *tag = lower_tag(ct);
        Py_DECREF(ct);
        if (tag == NULL)
            goto done;
        /* from here on `tag` and `attrib` are released at `element_done` */
        PyObject *attrib = get_attr(&g, node, g.attributes, s_attributes), *attrs = NULL;
        int ok = 0;
        if (attrib == NULL)
            goto element_done;
        if (!PyDict_Check(attrib)) {
            PyErr_SetString(PyExc_TypeError, "node.attributes is not a dict");
            goto element_done;
        }
        const int is_template = str_is(tag, "template", 8);
        const Py_ssize_t n_attrib = PyDict_GET_SIZE(attrib);
        if (is_template && n_attrib > 0) {
            PyObject *host;
            if (parent >= 0) {
                if (parent >= PyList_GET_SIZE(c_tag)) {
                    PyErr_SetString(PyExc_IndexError, "parent out of range");
                    goto element_done;
                }
                host = PyList_GET_ITEM(c_tag, parent);
            } else {
                host = empty;
            }
            PyObject *r = PyObject_CallFunction(shadow_fn, "OnOO", attrib, parent, host, hosts);
            if (r == NULL)
                goto element_done;
            int is_root = PyObject_IsTrue(r);
            Py_DECREF(r);
            if (is_root < 0)
                goto element_done;
            if (is_root) { /* a declarative shadow root: not in the light DOM */
                PyObject *next = get_node(&g, node, g.next, s_next, &err);
                if (err)
                    goto element_done;
                Py_SETREF(node, next);
                ok = 2; /* continue */
                goto element_done;
            }
        }
        int vis, pre = 0;
        const int ppreserved = parent >= 0 && nodes.preserved[parent];
        /* fast: every attribute is kept as it is (the usual class, id, href), so the dict
         * selectolax gave is the element's, uncopied, and none of them hides the element;
         * else the kept ones are copied here, unless an attribute needs Python's rules (a
         * style, a valueless boolean, a list item's value, an input's type) */
        int fast = 1, need_py = str_is(tag, "input", 5), hidden = 0;
        if (n_attrib > 0) {
            PyObject *k, *v;
            Py_ssize_t pos = 0;
            while (PyDict_Next(attrib, &pos, &k, &v)) {
                if (v == Py_None) {
                    fast = 0;
                } else {
                    int in = PySet_Contains(kept, k);
                    if (in < 0)
                        goto element_done;
                    if (!in)
                        fast = 0;
                }
                if (!PyUnicode_Check(k)) {
                    need_py = 1;
                    continue;
                }
                if (str_is(k, "hidden", 6))
                    hidden = 1;
                else if (str_is(k, "style", 5))
                    need_py |= v != Py_None && PyObject_IsTrue(v) != 0;
                else if (str_is(k, "reversed", 8) || str_is(k, "checked", 7) ||
                         str_is(k, "value", 5))
                    need_py = 1;
            }
        }
        int rendered = PySet_Contains(non_rendered, tag);
        if (rendered < 0)
            goto element_done;
        rendered = !rendered;
        if (n_attrib == 0) {
            attrs = Py_NewRef(Py_None);
            vis = pvis && rendered;
        } else if (fast && !need_py) {
            attrs = Py_NewRef(attrib);
            vis = pvis && rendered;
        } else if (!need_py) {
            /* the kept attributes with a value, in their order */
            PyObject *k, *v;
            Py_ssize_t pos = 0;
            attrs = PyDict_New();
            if (attrs == NULL)
                goto element_done;
            while (PyDict_Next(attrib, &pos, &k, &v)) {
                if (v == Py_None)
                    continue;
                int in = PySet_Contains(kept, k);
                if (in < 0 || (in && PyDict_SetItem(attrs, k, v) < 0))
                    goto element_done;
            }
            if (PyDict_GET_SIZE(attrs) == 0)
                Py_SETREF(attrs, Py_NewRef(Py_None));
            vis = pvis && rendered && !hidden;
        } else {
            PyObject *r = PyObject_CallFunction(element_fn, "OOOO", tag, attrib,
                                                pvis ? Py_True : Py_False,
                                                ppreserved ? Py_True : Py_False);
            if (r == NULL)
                goto element_done;
            if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 3) {
                Py_DECREF(r);
                PyErr_SetString(PyExc_TypeError, "element_fn must return a 3-tuple");
                goto element_done;
            }
            attrs = Py_NewRef(PyTuple_GET_ITEM(r, 0));
            vis = PyObject_IsTrue(PyTuple_GET_ITEM(r, 1));
            pre = PyObject_IsTrue(PyTuple_GET_ITEM(r, 2));
            Py_DECREF(r);
            if (vis < 0 || pre < 0)
                goto element_done;
        }
        const Py_ssize_t idx = PyList_GET_SIZE(c_parent);
        if (idx >= max_nodes) {
            PyErr_Format(PyExc_ValueError, "DOM has more than %zd nodes", max_nodes);
            goto element_done;
        }
        const Py_ssize_t d = pdepth + 1;
        Py_ssize_t p = parent;
        if (d > max_depth && parent >= 0) {
            /* the parser's stack is too deep: Chromium attaches the element to the parent
             * of the current node instead (later text still goes into the current node) */
            p = nodes.parent[parent];
            capped = 1;
        }
        if (nodes_reserve(&nodes, idx) < 0 ||
            append_steal(c_parent, PyLong_FromSsize_t(p)) < 0 ||
            PyList_Append(c_kind, element_kind) < 0 || PyList_Append(c_tag, tag) < 0 ||
            PyList_Append(c_text, empty) < 0 || PyList_Append(c_attrs, attrs) < 0 ||
            PyList_Append(c_vis, vis ? Py_True : Py_False) < 0)
            goto element_done;
        nodes.parent[idx] = p;
        if (PyUnicode_GET_LENGTH(pending) > 0) {
            PyObject *key = PyLong_FromSsize_t(idx);
            int r = key ? PyDict_SetItem(ws, key, pending) : -1;
            Py_XDECREF(key);
            if (r < 0)
                goto element_done;
            Py_SETREF(pending, Py_NewRef(empty));
        }
        int keeps = PySet_Contains(preserve_tags, tag);
        if (keeps < 0)
            goto element_done;
        nodes.preserved[idx] = (unsigned char)(pre || keeps || (p >= 0 && nodes.preserved[p]));
        if (title_node == NULL && str_is(tag, "title", 5))
            title_node = Py_NewRef(node);
        /* template content is a fragment of its own, never walked */
        PyObject *first =
            is_template ? NULL : get_node(&g, node, g.first_child, s_first_child, &err);
        if (err)
            goto element_done;
        if (first == NULL) {
            PyObject *next = get_node(&g, node, g.next, s_next, &err);
            if (err)
                goto element_done;
            Py_SETREF(node, next);
            ok = 2;
            goto element_done;
        }
        int skips = PySet_Contains(skip_texts, tag);
        if (skips < 0) {
            Py_DECREF(first);
            goto element_done;
        }
        PyObject *after = NULL;
        if (parent >= 0) {
            after = get_node(&g, node, g.next, s_next, &err);
            if (err) {
                Py_DECREF(first);
                goto element_done;
            }
        }
        Place place = {after, parent, pdepth, pvis, skip};
        if (stack_push(&saved, place) < 0) {
            Py_XDECREF(after);
            Py_DECREF(first);
            goto element_done;
        }
        Py_SETREF(node, first);
        parent = idx;
        pvis = vis;
        pdepth = d;
        skip = skips;
        ok = 2;
    element_done:
        Py_DECREF(tag);
        Py_XDECREF(attrib);
        Py_XDECREF(attrs);
        if (ok != 2)
            goto done;
    }
    result = Py_BuildValue("(OOOOOOOOO)", c_parent, c_kind, c_tag, c_text, c_attrs, c_vis, ws,
                           capped ? Py_True : Py_False, title_node ? title_node : Py_None);
done:
    for (Py_ssize_t i = 0; i < saved.len; i++)
        Py_XDECREF(saved.items[i].next);
    PyMem_Free(saved.items);
    PyMem_Free(nodes.parent);
    PyMem_Free(nodes.preserved);
    Py_XDECREF(node);
    Py_XDECREF(title_node);
    Py_XDECREF(pending);
    Py_XDECREF(c_parent);
    Py_XDECREF(c_kind);
    Py_XDECREF(c_tag);
    Py_XDECREF(c_text);
    Py_XDECREF(c_attrs);
    Py_XDECREF(c_vis);
    Py_XDECREF(ws);
    Py_XDECREF(text_tag);
    Py_XDECREF(empty);
    Py_XDECREF(space);
    return result;
}

static PyMethodDef methods[] = {
    {"walk", walk, METH_VARARGS, walk_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "domwalk",
    "The lexbor DOM walk of webseg.parse in C (same columns as its Python walk).", -1,
    methods,
};

PyMODINIT_FUNC
PyInit_domwalk(void)
{
    s_tag = PyUnicode_InternFromString("tag");
    s_attributes = PyUnicode_InternFromString("attributes");
    s_text_content = PyUnicode_InternFromString("text_content");
    s_first_child = PyUnicode_InternFromString("first_child");
    s_next = PyUnicode_InternFromString("next");
    if (!s_tag || !s_attributes || !s_text_content || !s_first_child || !s_next)
        return NULL;
    return PyModule_Create(&module);
}
