/* The framing scan of hudi_log/format/fast_scan.py, compiled: the same rules, the same results (the
 * Python loop there stays the reference and the fallback; tests/test_fast_scan.py holds the two,
 * the generated Kaitai parser and open_log equal on the corpus and on fuzzed input).
 *
 * scan(buffer, max_entries, max_map_bytes, max_key, type_mask) -> (frames, fail_offset, reason)
 *   frames: bytes, 5 native int64 per intact block (offset, length, block type, content offset,
 *   content length), for the blocks before the first thing the fast path does not accept;
 *   fail_offset: -1 when the whole buffer was read, else where it stopped; reason: str or None.
 *   type_mask: bit t set when block type t is accepted.
 * Every integer is big-endian and signed (Java's DataOutputStream), as spec/hudi_log.ksy has them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

static inline int64_t s8(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
    return (int64_t)v;
}

static inline int32_t s4(const uint8_t *p) {
    return (int32_t)(((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]);
}

static const uint8_t MAGIC[6] = {'#', 'H', 'U', 'D', 'I', '#'};
#define MIN_BLOCK (4 + 4 + 4 + 8 + 4 + 8)
#define JAVA_INT_MAX 2147483647LL

/* The end of the map at p (which must end by limit), or -1. */
static int64_t map_end(const uint8_t *b, int64_t p, int64_t limit, int64_t max_entries, int64_t max_key) {
    if (p + 4 > limit) return -1;
    int64_t count = s4(b + p);
    if (count < 0 || count > max_entries) return -1;
    p += 4;
    for (int64_t i = 0; i < count; i++) {
        if (p + 8 > limit) return -1;
        int64_t key = s4(b + p), n = s4(b + p + 4);
        p += 8 + n;
        if (key < 0 || key > max_key || n < 0 || p > limit) return -1;
    }
    return p;
}

static PyObject *scan(PyObject *self, PyObject *args) {
    Py_buffer view;
    long long max_entries, max_map_bytes, max_key;
    unsigned long long type_mask;
    if (!PyArg_ParseTuple(args, "y*LLLK", &view, &max_entries, &max_map_bytes, &max_key, &type_mask)) return NULL;
    const uint8_t *b = (const uint8_t *)view.buf;
    const int64_t size = view.len;
    Py_ssize_t cap = 1024, n = 0;
    int64_t *out = PyMem_RawMalloc(cap * 5 * sizeof(int64_t));
    if (!out) { PyBuffer_Release(&view); return PyErr_NoMemory(); }
    int64_t pos = 0, fail = -1;
    const char *reason = NULL;
    Py_BEGIN_ALLOW_THREADS
    while (pos < size) {
        if (pos + 26 > size) { reason = "file ends within a block's framing"; break; }
        int64_t block_size = s8(b + pos + 6), end = pos + 14 + block_size;
        int32_t version = s4(b + pos + 14), type = s4(b + pos + 18);
        if (memcmp(b + pos, MAGIC, 6) != 0 || version != 1 || block_size < MIN_BLOCK || block_size > JAVA_INT_MAX
            || end > size || type < 0 || type > 63 || !((type_mask >> type) & 1)) {
            reason = "not an intact format-version-1 block"; break;
        }
        int64_t rp_at = end - 8;
        if (s8(b + rp_at) != block_size + 6) { reason = "reverse pointer"; break; }
        int64_t p = map_end(b, pos + 22, rp_at, max_entries, max_key);
        if (p < 0 || p + 8 > rp_at || p - pos - 22 > max_map_bytes) { reason = "header"; break; }
        int64_t content_length = s8(b + p), content_offset = p + 8, footer_at = content_offset + content_length;
        if (content_length < 0 || footer_at + 4 > rp_at || rp_at - footer_at > max_map_bytes
            || map_end(b, footer_at, rp_at, max_entries, max_key) != rp_at) {
            reason = "content length or footer"; break;
        }
        if (n == cap) {
            int64_t *grown = PyMem_RawRealloc(out, cap * 2 * 5 * sizeof(int64_t));
            if (!grown) { reason = "out of memory"; break; }
            out = grown;
            cap *= 2;
        }
        int64_t *f = out + n * 5;
        f[0] = pos; f[1] = end - pos; f[2] = type; f[3] = content_offset; f[4] = content_length;
        n++;
        pos = end;
    }
    if (reason) fail = pos;
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    PyObject *frames = PyBytes_FromStringAndSize((const char *)out, n * 5 * (Py_ssize_t)sizeof(int64_t));
    PyMem_RawFree(out);
    if (!frames) return NULL;
    return Py_BuildValue("(NLz)", frames, (long long)fail, reason);
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS, "Frames of the intact blocks at the start of a buffer; see the module comment."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_framing_scan", NULL, -1, methods};

PyMODINIT_FUNC PyInit__framing_scan(void) { return PyModule_Create(&module); }
