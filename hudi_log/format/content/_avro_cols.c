/* Avro data-block records to Arrow column buffers, in one pass over the block: the compiled fast path of
 * avro_columnar.decode_block_content for records of primitive fields (plain, or in a two-branch union
 * with null). polars' decode stays the path for every other schema and the tests' reference; a block this
 * decoder does not take whole (a branch index, a boolean byte or an int out of range, a datum that does not
 * end at its length prefix, bytes left over) is refused with ValueError, and the caller takes another path.
 * Nothing is trusted: every read is bounded by the record's own length prefix, and the record count by the
 * body's length (4 bytes of length prefix a record) before any buffer is sized from it.
 *
 * decode(body, n, fields) -> list, one entry per field: None (not kept) or
 *     (validity, values, data, null_count, ascii)
 *   body: the block content after its 8-byte prefix: n times (4-byte big-endian datum length, datum)
 *   fields: a sequence of (kind, null_branch, keep) with
 *     kind 0 INT    zig-zag varint of at most 5 bytes in int32 range -> int32 values
 *          1 LONG   zig-zag varint of at most 10 bytes                -> int64 values
 *          2 DOUBLE 8 bytes little-endian                             -> float64 values
 *          3 FLOAT  4 bytes little-endian                             -> float32 values
 *          4 BOOL   one byte, 0 or 1                                  -> one byte per value
 *          5 BYTES  varint length, then the bytes (string, bytes)     -> int32 offsets (n + 1) and data
 *     null_branch: -1 not a union; 0 or 1 the index of "null" in the union
 *     keep: 0 the field is read past, nothing built
 *   validity: an Arrow validity bitmap (bytearray, LSB first) for unions, else None; data: bytes or None;
 *   ascii: True when no byte of data is 0x80 or above (such bytes are valid UTF-8, and the caller's full
 *   UTF-8 check of a string column, a third of the decode's time, can be left out).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { K_INT, K_LONG, K_DOUBLE, K_FLOAT, K_BOOL, K_BYTES };
static const Py_ssize_t WIDTH[] = {4, 8, 8, 4, 1, 4};

typedef struct {
    int kind, null_branch, keep;
    PyObject *validity, *values;  /* bytearrays, made with the GIL, filled without it */
    uint8_t *vbits, *vals;
    uint8_t *data;                /* BYTES: malloc'd, grown while decoding */
    size_t data_len, data_cap;
    Py_ssize_t nulls;
    uint64_t high;                /* BYTES: the OR of every copied byte's top bit */
} Col;

typedef struct {
    const uint8_t *p, *end;
} Cur;

/* an unsigned varint of at most max_bytes bytes; 0 on success */
static inline int get_varint(Cur *c, int max_bytes, uint64_t *out) {
    uint64_t v = 0;
    for (int i = 0; i < max_bytes; i++) {
        if (c->p >= c->end) return -1;
        uint8_t b = *c->p++;
        if (i == 9 && b > 1) return -1;  /* the 10th byte of a long holds one bit */
        v |= (uint64_t)(b & 0x7F) << (7 * i);
        if (!(b & 0x80)) { *out = v; return 0; }
    }
    return -1;
}

static inline int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* the top bits of len bytes, eight at a time */
static inline uint64_t high_bits(const uint8_t *p, size_t len) {
    uint64_t acc = 0, w;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) { memcpy(&w, p + i, 8); acc |= w; }
    for (; i < len; i++) acc |= p[i];
    return acc & 0x8080808080808080ULL;
}

static int grow(Col *f, size_t need) {
    if (f->data_len + need <= f->data_cap) return 0;
    size_t cap = f->data_cap ? f->data_cap : 65536;
    while (cap < f->data_len + need) cap *= 2;
    uint8_t *d = realloc(f->data, cap);
    if (!d) return -1;
    f->data = d;
    f->data_cap = cap;
    return 0;
}

/* one field of row i; 0 on success, -1 when the bytes are not such a value, -2 out of memory */
static int field(Cur *c, Col *f, Py_ssize_t i) {
    int present = 1;
    if (f->null_branch >= 0) {
        uint64_t z;
        if (get_varint(c, 10, &z) < 0) return -1;
        int64_t branch = unzigzag(z);
        if (branch != 0 && branch != 1) return -1;
        present = branch != f->null_branch;
        if (f->keep) {
            if (present) f->vbits[i >> 3] |= (uint8_t)(1u << (i & 7));
            else f->nulls++;
        }
    }
    switch (f->kind) {
    case K_INT: case K_LONG: {
        if (!present) return 0;  /* values stay zero (the bytearray is zeroed) */
        uint64_t z;
        if (get_varint(c, f->kind == K_INT ? 5 : 10, &z) < 0) return -1;
        int64_t v = unzigzag(z);
        if (f->kind == K_INT) {
            if (z > UINT32_MAX) return -1;
            if (f->keep) { int32_t w = (int32_t)v; memcpy(f->vals + 4 * i, &w, 4); }
        } else if (f->keep) {
            memcpy(f->vals + 8 * i, &v, 8);
        }
        return 0;
    }
    case K_DOUBLE: case K_FLOAT: {
        if (!present) return 0;
        Py_ssize_t w = WIDTH[f->kind];
        if (c->end - c->p < w) return -1;
        if (f->keep) memcpy(f->vals + w * i, c->p, w);
        c->p += w;
        return 0;
    }
    case K_BOOL: {
        if (!present) return 0;
        if (c->p >= c->end || *c->p > 1) return -1;
        if (f->keep) f->vals[i] = *c->p;
        c->p++;
        return 0;
    }
    default: {  /* K_BYTES */
        int32_t *off = (int32_t *)f->vals;
        if (present) {
            uint64_t z;
            if (get_varint(c, 10, &z) < 0) return -1;
            int64_t len = unzigzag(z);
            if (len < 0 || len > c->end - c->p) return -1;
            if (f->keep) {
                if (f->data_len + (size_t)len > INT32_MAX) return -1;  /* beyond int32 offsets */
                if (grow(f, (size_t)len) < 0) return -2;
                memcpy(f->data + f->data_len, c->p, (size_t)len);
                f->high |= high_bits(c->p, (size_t)len);
                f->data_len += (size_t)len;
            }
            c->p += len;
        }
        if (f->keep) off[i + 1] = (int32_t)f->data_len;
        return 0;
    }
    }
}

static PyObject *decode(PyObject *self, PyObject *args) {
    Py_buffer body;
    Py_ssize_t n;
    PyObject *specs;
    if (!PyArg_ParseTuple(args, "y*nO", &body, &n, &specs)) return NULL;
    PyObject *result = NULL, *seq = NULL;
    Col *fs = NULL;
    Py_ssize_t nf = 0;
    if (n < 0) { PyErr_SetString(PyExc_ValueError, "negative record count"); goto done; }
    /* every record has a 4-byte length prefix: a count the body cannot hold is refused before the
       column buffers (n values each) are allocated */
    if (n > body.len / 4) { PyErr_SetString(PyExc_ValueError, "more records than the bytes can hold"); goto done; }
    seq = PySequence_Fast(specs, "fields must be a sequence");
    if (!seq) goto done;
    nf = PySequence_Fast_GET_SIZE(seq);
    fs = PyMem_Calloc(nf ? nf : 1, sizeof(Col));
    if (!fs) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t k = 0; k < nf; k++) {
        Col *f = &fs[k];
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, k), "iii", &f->kind, &f->null_branch, &f->keep)) goto done;
        if (f->kind < K_INT || f->kind > K_BYTES || f->null_branch < -1 || f->null_branch > 1) {
            PyErr_SetString(PyExc_ValueError, "bad field spec"); goto done;
        }
        if (!f->keep) continue;
        Py_ssize_t nvals = n + (f->kind == K_BYTES ? 1 : 0);
        f->values = PyByteArray_FromStringAndSize(NULL, WIDTH[f->kind] * nvals);
        if (!f->values) goto done;
        f->vals = (uint8_t *)PyByteArray_AS_STRING(f->values);
        memset(f->vals, 0, WIDTH[f->kind] * nvals);
        if (f->null_branch >= 0) {
            f->validity = PyByteArray_FromStringAndSize(NULL, (n + 7) / 8);
            if (!f->validity) goto done;
            f->vbits = (uint8_t *)PyByteArray_AS_STRING(f->validity);
            memset(f->vbits, 0, (n + 7) / 8);
        }
    }
    int rc = 0;
    Py_ssize_t bad = -1;
    Py_BEGIN_ALLOW_THREADS
    Cur c = {(const uint8_t *)body.buf, (const uint8_t *)body.buf + body.len};
    for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
        if (c.end - c.p < 4) { rc = -1; bad = i; break; }
        uint32_t len = ((uint32_t)c.p[0] << 24) | ((uint32_t)c.p[1] << 16) | ((uint32_t)c.p[2] << 8) | c.p[3];
        c.p += 4;
        if (len > (uint32_t)INT32_MAX || (int64_t)len > c.end - c.p) { rc = -1; bad = i; break; }
        Cur r = {c.p, c.p + len};  /* the datum may not read past its own length */
        for (Py_ssize_t k = 0; k < nf && rc == 0; k++) rc = field(&r, &fs[k], i);
        if (rc == 0 && r.p != r.end) rc = -1;  /* the datum must end at its length */
        if (rc != 0) { bad = i; break; }
        c.p = r.end;
    }
    if (rc == 0 && c.p != c.end) { rc = -1; bad = n; }
    Py_END_ALLOW_THREADS
    if (rc == -2) { PyErr_NoMemory(); goto done; }
    if (rc != 0) {
        if (bad == n) PyErr_SetString(PyExc_ValueError, "bytes after the last record");
        else PyErr_Format(PyExc_ValueError, "record %zd is not a datum of the schema", bad);
        goto done;
    }
    result = PyList_New(nf);
    if (!result) goto done;
    for (Py_ssize_t k = 0; k < nf; k++) {
        Col *f = &fs[k];
        PyObject *item;
        if (!f->keep) {
            item = Py_None; Py_INCREF(item);
        } else {
            PyObject *data = Py_None;
            if (f->kind == K_BYTES) {
                data = PyBytes_FromStringAndSize((const char *)f->data, (Py_ssize_t)f->data_len);
                if (!data) { Py_CLEAR(result); goto done; }
            } else {
                Py_INCREF(data);
            }
            item = Py_BuildValue("(OONnO)", f->validity ? f->validity : Py_None, f->values, data, f->nulls,
                                 f->high ? Py_False : Py_True);
            if (!item) { Py_CLEAR(result); goto done; }
        }
        PyList_SET_ITEM(result, k, item);
    }
done:
    if (fs) {
        for (Py_ssize_t k = 0; k < nf; k++) {
            Py_XDECREF(fs[k].validity);
            Py_XDECREF(fs[k].values);
            free(fs[k].data);
        }
        PyMem_Free(fs);
    }
    Py_XDECREF(seq);
    PyBuffer_Release(&body);
    return result;
}

static PyMethodDef methods[] = {
    {"decode", decode, METH_VARARGS, "decode(body, n, fields) -> list: Arrow buffers of each field"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_avro_cols", NULL, -1, methods};

PyMODINIT_FUNC PyInit__avro_cols(void) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    /* the value copies assume little-endian memory, as Avro's float and double and Arrow's buffers are */
    PyErr_SetString(PyExc_ImportError, "hudi_log.format.content._avro_cols needs a little-endian machine");
    return NULL;
#endif
    return PyModule_Create(&module);
}
