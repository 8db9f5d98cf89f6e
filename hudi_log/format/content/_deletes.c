/* The compiled twin of hudi_log/format/content/deletes_fast.py's decoder and encoder: a content-version-3
 * delete payload (Avro HoodieDeleteRecordList) read in one pass into columns, or laid out from them, for
 * the common payloads only: string or null keys and partition paths; null, boolean, int, long or string
 * ordering values.
 *
 * encode(keys, partition_paths, kinds, values) -> bytes, or None for anything else (another kind, a value
 * not of its kind's exact type or range, a string that is not UTF-8): the Python encoder then lays it out
 * or names what is wrong, so the bytes and the refusals are the Python path's.
 * decode(payload) -> (keys, partition_paths, kinds, values) or None.
 * kinds is a bytes object of ordering-kind codes (the grammar's ordering_kind, the union branch).
 * It takes exactly what the Python fast path takes (minimal varints, one array block, union branches and
 * values in range, strict UTF-8) and gives None for anything else, so the strict decoder decides and
 * names the damage. tests/test_deletes_encode.py holds it equal to the Python path. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* A zig-zag Avro long in its minimal encoding; -1 when it is not one (over-long, beyond 64 bits, cut). */
static int read_long(const unsigned char *buf, Py_ssize_t len, Py_ssize_t *pos, int64_t *out) {
    uint64_t n = 0;
    int shift = 0;
    Py_ssize_t p = *pos;
    for (;;) {
        if (p >= len) return -1;
        unsigned char b = buf[p++];
        if (shift == 63 && b > 1) return -1;
        n |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            if (b == 0 && shift > 0) return -1;
            break;
        }
        shift += 7;
        if (shift > 63) return -1;
    }
    *out = (int64_t)((n >> 1) ^ (~(n & 1) + 1));
    *pos = p;
    return 0;
}

/* A length-prefixed UTF-8 string as a new str; NULL with no error set when the bytes do not make one. */
static PyObject *read_string(const unsigned char *buf, Py_ssize_t len, Py_ssize_t *pos) {
    int64_t n;
    if (read_long(buf, len, pos, &n) < 0 || n < 0 || n > len - *pos) return NULL;
    PyObject *s = PyUnicode_DecodeUTF8((const char *)buf + *pos, (Py_ssize_t)n, "strict");
    if (s == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) return NULL;  /* MemoryError stays set */
        PyErr_Clear();
        return NULL;
    }
    *pos += (Py_ssize_t)n;
    return s;
}

/* union ["null", "string"]: its branch byte, then the string */
static PyObject *read_optional_string(const unsigned char *buf, Py_ssize_t len, Py_ssize_t *pos) {
    if (*pos >= len) return NULL;
    unsigned char b = buf[*pos];
    if (b == 0) {
        *pos += 1;
        Py_RETURN_NONE;
    }
    if (b != 2) return NULL;
    *pos += 1;
    return read_string(buf, len, pos);
}

enum { K_NULL = 0, K_BOOLEAN = 1, K_INT = 2, K_LONG = 3, K_STRING = 7 };

static PyObject *decode(PyObject *self, PyObject *args) {
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "y*", &view)) return NULL;
    const unsigned char *buf = view.buf;
    Py_ssize_t len = view.len, pos = 0;
    PyObject *keys = NULL, *parts = NULL, *kinds = NULL, *values = NULL, *result = NULL;
    int64_t count;
    /* every record takes at least 3 bytes (three union branches): a count past that is not believed */
    if (read_long(buf, len, &pos, &count) < 0 || count < 0 || count > len / 3) goto not_fast;
    keys = PyList_New((Py_ssize_t)count);
    parts = PyList_New((Py_ssize_t)count);
    values = PyList_New((Py_ssize_t)count);
    kinds = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)count);
    if (!keys || !parts || !values || !kinds) goto fail;
    char *kind_out = PyBytes_AS_STRING(kinds);
    for (Py_ssize_t i = 0; i < (Py_ssize_t)count; i++) {
        PyObject *o = read_optional_string(buf, len, &pos);
        if (o == NULL) goto not_fast_or_fail;
        PyList_SET_ITEM(keys, i, o);
        o = read_optional_string(buf, len, &pos);
        if (o == NULL) goto not_fast_or_fail;
        PyList_SET_ITEM(parts, i, o);
        if (pos >= len) goto not_fast;
        unsigned char branch = buf[pos++];
        if (branch & 1) goto not_fast;
        int kind = branch >> 1;
        int64_t v;
        switch (kind) {
        case K_NULL:
            Py_INCREF(Py_None);
            o = Py_None;
            break;
        case K_BOOLEAN:
            if (pos >= len || buf[pos] > 1) goto not_fast;
            o = PyBool_FromLong(buf[pos++]);
            break;
        case K_INT:
        case K_LONG:
            if (read_long(buf, len, &pos, &v) < 0) goto not_fast;
            if (kind == K_INT && (v < INT32_MIN || v > INT32_MAX)) goto not_fast;
            o = PyLong_FromLongLong(v);
            break;
        case K_STRING:
            o = read_string(buf, len, &pos);
            break;
        default:
            goto not_fast;
        }
        if (o == NULL) goto not_fast_or_fail;
        PyList_SET_ITEM(values, i, o);
        kind_out[i] = (char)kind;
    }
    if (count) {
        int64_t end;
        if (read_long(buf, len, &pos, &end) < 0 || end != 0) goto not_fast;
    }
    if (pos != len) goto not_fast;
    result = PyTuple_Pack(4, keys, parts, kinds, values);
    goto done;
not_fast_or_fail:
    if (PyErr_Occurred()) goto fail;
not_fast:
    Py_INCREF(Py_None);
    result = Py_None;
    goto done;
fail:
    result = NULL;
done:
    /* list slots not reached are NULL, which list deallocation skips */
    Py_XDECREF(keys);
    Py_XDECREF(parts);
    Py_XDECREF(kinds);
    Py_XDECREF(values);
    PyBuffer_Release(&view);
    return result;
}

/* ---- encoding ---------------------------------------------------------------------------------- */
typedef struct {
    char *data;
    Py_ssize_t len, cap;
} out_t;

static int reserve(out_t *o, Py_ssize_t more) {
    if (o->len + more <= o->cap) return 0;
    Py_ssize_t cap = o->cap * 2 > o->len + more ? o->cap * 2 : o->len + more + 64;
    char *d = PyMem_Realloc(o->data, cap);
    if (d == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    o->data = d;
    o->cap = cap;
    return 0;
}

static int put_long(out_t *o, int64_t v) {
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    if (reserve(o, 10) < 0) return -1;
    while (z >= 0x80) {
        o->data[o->len++] = (char)((z & 0x7F) | 0x80);
        z >>= 7;
    }
    o->data[o->len++] = (char)z;
    return 0;
}

/* a str as Avro string: 1 written, 0 not taken (not an exact str, or not UTF-8), -1 error */
static int put_string(out_t *o, PyObject *s) {
    if (!PyUnicode_CheckExact(s)) return 0;
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(s, &n);
    if (u == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return -1;
        PyErr_Clear();
        return 0;
    }
    if (put_long(o, n) < 0 || reserve(o, n) < 0) return -1;
    memcpy(o->data + o->len, u, n);
    o->len += n;
    return 1;
}

/* union ["null", "string"] */
static int put_optional_string(out_t *o, PyObject *s) {
    if (reserve(o, 1) < 0) return -1;
    if (s == Py_None) {
        o->data[o->len++] = 0;
        return 1;
    }
    o->data[o->len++] = 2;
    return put_string(o, s);
}

static PyObject *encode(PyObject *self, PyObject *args) {
    PyObject *keys, *parts, *values, *result = NULL;
    Py_buffer kinds;
    if (!PyArg_ParseTuple(args, "O!O!y*O!", &PyList_Type, &keys, &PyList_Type, &parts, &kinds, &PyList_Type, &values))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(keys);
    out_t o = {NULL, 0, 0};
    if (PyList_GET_SIZE(parts) != n || PyList_GET_SIZE(values) != n || kinds.len != n) goto not_taken;
    if (reserve(&o, n * 48 + 16) < 0) goto fail;
    if (n && put_long(&o, n) < 0) goto fail;  /* one array block holds them all */
    const unsigned char *k = kinds.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        int r = put_optional_string(&o, PyList_GET_ITEM(keys, i));
        if (r <= 0) goto r_fail_or_not_taken;
        r = put_optional_string(&o, PyList_GET_ITEM(parts, i));
        if (r <= 0) goto r_fail_or_not_taken;
        PyObject *v = PyList_GET_ITEM(values, i);
        if (reserve(&o, 1) < 0) goto fail;
        o.data[o.len++] = (char)(k[i] * 2);  /* the union branch, zig-zagged */
        switch (k[i]) {
        case K_NULL:
            if (v != Py_None) goto not_taken;
            break;
        case K_BOOLEAN:
            if (v != Py_True && v != Py_False) goto not_taken;
            if (reserve(&o, 1) < 0) goto fail;
            o.data[o.len++] = v == Py_True;
            break;
        case K_INT:
        case K_LONG: {
            if (!PyLong_CheckExact(v)) goto not_taken;
            int overflow;
            long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
            if (x == -1 && PyErr_Occurred()) goto fail;
            if (overflow || (k[i] == K_INT && (x < INT32_MIN || x > INT32_MAX))) goto not_taken;
            if (put_long(&o, x) < 0) goto fail;
            break;
        }
        case K_STRING:
            r = put_string(&o, v);
            if (r <= 0) goto r_fail_or_not_taken;
            break;
        default:
            goto not_taken;
        }
        continue;
    r_fail_or_not_taken:
        if (PyErr_Occurred()) goto fail;
        goto not_taken;
    }
    if (reserve(&o, 1) < 0) goto fail;
    o.data[o.len++] = 0;  /* the array's closing block */
    result = PyBytes_FromStringAndSize(o.data, o.len);
    goto done;
not_taken:
    Py_INCREF(Py_None);
    result = Py_None;
    goto done;
fail:
    result = NULL;
done:
    PyMem_Free(o.data);
    PyBuffer_Release(&kinds);
    return result;
}

static PyMethodDef methods[] = {
    {"encode", encode, METH_VARARGS, "encode(keys, partition_paths, kinds, values) -> bytes or None"},
    {"decode", decode, METH_VARARGS, "decode(payload) -> (keys, partition_paths, kinds, values) or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_deletes", NULL, -1, methods};

PyMODINIT_FUNC PyInit__deletes(void) { return PyModule_Create(&module); }
