/* Avro binary rows from typed columns, in one pass over the output: the compiled twin of the
 * pyarrow path in columnar_encode.py (which stays the reference and the fallback; the tests hold
 * the two byte-equal). Each row is the grammar's avro_record: a 4-byte big-endian datum length, then
 * the datum, its fields in order.
 *
 * encode(n, fields, out_offsets) -> bytes
 *   fields: a sequence of (kind, null_byte, value_byte, validity, a, b) with
 *     kind 0 CONST  a = bytes written in every row
 *          1 LONG   a = int64 values (zig-zag varint; Avro int and long alike)
 *          2 DOUBLE a = float64 values (8 bytes little-endian)
 *          3 FLOAT  a = float32 values (4 bytes little-endian)
 *          4 BOOL   a = uint8 values (one byte)
 *          5 BYTES  a = int32 offsets (n + 1), b = data: varint length, then the bytes
 *     null_byte / value_byte: the union branch bytes (-1: not a union); validity: uint8 per row
 *     (0 = null: only null_byte is written) or None
 *   out_offsets: writable int32 buffer of n + 1 entries, filled with the rows' offsets.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

enum { K_CONST, K_LONG, K_DOUBLE, K_FLOAT, K_BOOL, K_BYTES };

typedef struct {
    int kind, null_byte, value_byte;
    const uint8_t *valid;
    const uint8_t *a;
    const uint8_t *b;
    Py_ssize_t a_len, b_len;
    Py_buffer views[3];
    int nviews;
} Field;

static inline uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

static inline Py_ssize_t varint_len(uint64_t v) {
    Py_ssize_t n = 1;
    while (v >= 0x80) { v >>= 7; n++; }
    return n;
}

static inline uint8_t *put_varint(uint8_t *p, uint64_t v) {
    while (v >= 0x80) { *p++ = (uint8_t)((v & 0x7F) | 0x80); v >>= 7; }
    *p++ = (uint8_t)v;
    return p;
}

static void release(Field *fs, Py_ssize_t count) {
    for (Py_ssize_t i = 0; i < count; i++)
        for (int j = 0; j < fs[i].nviews; j++) PyBuffer_Release(&fs[i].views[j]);
}

static int take_buffer(Field *f, PyObject *obj, const uint8_t **ptr, Py_ssize_t *len) {
    if (obj == Py_None) { *ptr = NULL; if (len) *len = 0; return 0; }
    Py_buffer *v = &f->views[f->nviews];
    if (PyObject_GetBuffer(obj, v, PyBUF_C_CONTIGUOUS) < 0) return -1;
    f->nviews++;
    *ptr = (const uint8_t *)v->buf;
    if (len) *len = v->len;
    return 0;
}

static int parse_field(Field *f, PyObject *spec, Py_ssize_t n) {
    PyObject *valid, *a, *b;
    memset(f, 0, sizeof(*f));
    if (!PyArg_ParseTuple(spec, "iiiOOO", &f->kind, &f->null_byte, &f->value_byte, &valid, &a, &b)) return -1;
    Py_ssize_t vlen = 0;
    if (take_buffer(f, valid, &f->valid, &vlen) < 0 || take_buffer(f, a, &f->a, &f->a_len) < 0 ||
        take_buffer(f, b, &f->b, &f->b_len) < 0) return -1;
    static const Py_ssize_t width[] = {0, 8, 8, 4, 1, 4};
    if (f->kind < K_CONST || f->kind > K_BYTES) { PyErr_SetString(PyExc_ValueError, "unknown field kind"); return -1; }
    if (f->valid && vlen < n) { PyErr_SetString(PyExc_ValueError, "validity shorter than the rows"); return -1; }
    if (f->kind != K_CONST && f->a_len < width[f->kind] * (n + (f->kind == K_BYTES ? 1 : 0))) {
        PyErr_SetString(PyExc_ValueError, "values shorter than the rows"); return -1;
    }
    if (f->kind == K_BYTES && n > 0) {
        const int32_t *off = (const int32_t *)f->a;
        if (off[0] < 0 || off[n] > f->b_len || off[n] < off[0]) {
            PyErr_SetString(PyExc_ValueError, "offsets outside the data"); return -1;
        }
    }
    return 0;
}

static inline int is_null(const Field *f, Py_ssize_t i) { return f->null_byte >= 0 && f->valid && !f->valid[i]; }

static Py_ssize_t field_len(const Field *f, Py_ssize_t i) {
    if (is_null(f, i)) return 1;
    Py_ssize_t n = f->value_byte >= 0 ? 1 : 0;
    switch (f->kind) {
    case K_CONST: return n + f->a_len;
    case K_LONG: { int64_t v; memcpy(&v, f->a + 8 * i, 8); return n + varint_len(zigzag(v)); }
    case K_DOUBLE: return n + 8;
    case K_FLOAT: return n + 4;
    case K_BOOL: return n + 1;
    default: {  /* K_BYTES */
        const int32_t *off = (const int32_t *)f->a;
        int32_t len = off[i + 1] - off[i];
        return n + varint_len(zigzag(len)) + len;
    }
    }
}

static uint8_t *put_field(uint8_t *p, const Field *f, Py_ssize_t i) {
    if (is_null(f, i)) { *p++ = (uint8_t)f->null_byte; return p; }
    if (f->value_byte >= 0) *p++ = (uint8_t)f->value_byte;
    switch (f->kind) {
    case K_CONST: memcpy(p, f->a, f->a_len); return p + f->a_len;
    case K_LONG: { int64_t v; memcpy(&v, f->a + 8 * i, 8); return put_varint(p, zigzag(v)); }
    case K_DOUBLE: memcpy(p, f->a + 8 * i, 8); return p + 8;
    case K_FLOAT: memcpy(p, f->a + 4 * i, 4); return p + 4;
    case K_BOOL: *p++ = f->a[i] ? 1 : 0; return p;
    default: {  /* K_BYTES */
        const int32_t *off = (const int32_t *)f->a;
        int32_t len = off[i + 1] - off[i];
        p = put_varint(p, zigzag(len));
        memcpy(p, f->b + off[i], len);
        return p + len;
    }
    }
}

static PyObject *encode(PyObject *self, PyObject *args) {
    Py_ssize_t n;
    PyObject *specs, *out_obj;
    if (!PyArg_ParseTuple(args, "nOO", &n, &specs, &out_obj)) return NULL;
    if (n < 0) { PyErr_SetString(PyExc_ValueError, "negative row count"); return NULL; }
    PyObject *seq = PySequence_Fast(specs, "fields must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t nf = PySequence_Fast_GET_SIZE(seq);
    Field *fs = PyMem_Calloc(nf ? nf : 1, sizeof(Field));
    Py_buffer out_view;
    int have_out = 0;
    PyObject *result = NULL;
    Py_ssize_t parsed = 0;
    if (!fs) { PyErr_NoMemory(); goto done; }
    for (; parsed < nf; parsed++)
        if (parse_field(&fs[parsed], PySequence_Fast_GET_ITEM(seq, parsed), n) < 0) { release(fs, parsed + 1); parsed = -1; goto done; }
    if (PyObject_GetBuffer(out_obj, &out_view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) goto done;
    have_out = 1;
    if (out_view.len < (Py_ssize_t)sizeof(int32_t) * (n + 1)) {
        PyErr_SetString(PyExc_ValueError, "out_offsets shorter than n + 1"); goto done;
    }
    int32_t *offsets = (int32_t *)out_view.buf;
    /* pass 1: each row's size (length prefix + datum), field by field */
    int64_t total = 0;
    offsets[0] = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t row = 4;
        for (Py_ssize_t k = 0; k < nf; k++) row += field_len(&fs[k], i);
        total += row;
        if (total > INT32_MAX) { PyErr_SetString(PyExc_OverflowError, "encoded rows exceed 2 GiB"); goto done; }
        offsets[i + 1] = (int32_t)total;
    }
    result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total);
    if (!result) goto done;
    uint8_t *p = (uint8_t *)PyBytes_AS_STRING(result);
    /* pass 2: row by row, so the output is written once, in order */
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t datum = (uint32_t)(offsets[i + 1] - offsets[i] - 4);
        p[0] = (uint8_t)(datum >> 24); p[1] = (uint8_t)(datum >> 16); p[2] = (uint8_t)(datum >> 8); p[3] = (uint8_t)datum;
        p += 4;
        for (Py_ssize_t k = 0; k < nf; k++) p = put_field(p, &fs[k], i);
    }
    Py_END_ALLOW_THREADS
done:
    if (have_out) PyBuffer_Release(&out_view);
    if (parsed > 0) release(fs, parsed);
    PyMem_Free(fs);
    Py_DECREF(seq);
    return result;
}

static PyMethodDef methods[] = {
    {"encode", encode, METH_VARARGS, "encode(n, fields, out_offsets) -> bytes: length-prefixed Avro rows"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_avro_rows", NULL, -1, methods};

PyMODINIT_FUNC PyInit__avro_rows(void) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    /* the value copies assume little-endian memory, as Avro's float and double are */
    PyErr_SetString(PyExc_ImportError, "hudi_log.format.content._avro_rows needs a little-endian machine");
    return NULL;
#endif
    return PyModule_Create(&module);
}
