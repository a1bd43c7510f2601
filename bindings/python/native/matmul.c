/* matmul.c: hipkit.matmul and the @ operator in C.
 *
 * matmul(mode, fallback) makes the callable behind hipkit.matmul (mode 0: (x1, x2, out=None, *,
 * engine="auto", stream=None)) and ndarray.__matmul__ (mode 1: (self, other)).
 *
 * What C does completely: two hipkit arrays of one dtype, float32 or float64, of 1 or more dimensions
 * (1-d operands as NumPy's matmul takes them: a row on the left, a column on the right, the axis
 * dropped from the result), any strides, batch dimensions broadcast, on the current device, into a new
 * output, with the default engine (hk_matmul's HK_MATMUL_AUTO: the vendor BLAS when present). Everything
 * else (other dtypes, which compute in float32/float64 and convert back; mixed dtypes; out=; engine=;
 * 0-d operands; core dimensions that do not match) goes to `fallback`. */
#include <string.h>

#include "native.h"

typedef struct {
    hkp_callable head;
    int mode;
} Matmul;

static PyObject *n_stream;

/* x as a matrix operand of ndim >= 2: a 1-d x of K elements is a row (1, K) on the left or a column
 * (K, 1) on the right. */
static void as_matrix(const hkp_array *x, int left, hk_array *d)
{
    hkp_describe(x, d);
    if (x->ndim != 1)
        return;
    d->ndim = 2;
    if (left) {
        d->shape[1] = x->shape[0], d->strides[1] = x->strides[0];
        d->shape[0] = 1, d->strides[0] = 0;
    } else {
        d->shape[1] = 1, d->strides[1] = 0;
    }
}

static PyObject *dispatch(PyObject *x1, PyObject *x2, PyObject *stream_object)
{
    if (!hkp_is_array(x1) || !hkp_is_array(x2))
        return NULL;
    const hkp_array *a = (const hkp_array *)x1, *b = (const hkp_array *)x2;
    int device = 0, stream_ok = 0;
    if (!a->np_dtype || !b->np_dtype || a->dtype != b->dtype || (a->dtype != HK_FLOAT32 && a->dtype != HK_FLOAT64) ||
        a->ndim == 0 || b->ndim == 0 || hk_device_get(&device) != HK_SUCCESS || a->device != device ||
        b->device != device)
        return NULL;
    hk_stream stream = (hk_stream)hkp_stream_handle(stream_object, &stream_ok);
    hk_array da, db, dout;
    as_matrix(a, 1, &da);
    as_matrix(b, 0, &db);
    if (!stream_ok || da.shape[da.ndim - 1] != db.shape[db.ndim - 2])
        return NULL; /* the Python path raises NumPy's ValueError */
    /* out (..., M, N): the broadcast batch dimensions, then M and N. */
    const int batch = (da.ndim > db.ndim ? da.ndim : db.ndim) - 2;
    if (batch + 2 > HK_MAX_DIMS)
        return NULL;
    int64_t full[HK_MAX_DIMS];
    for (int k = 0; k < batch; k++)
        full[k] = 1;
    for (int s = 0; s < 2; s++) {
        const hk_array *d = s ? &db : &da;
        for (int k = 0; k < d->ndim - 2; k++) {
            int64_t *n = &full[batch - (d->ndim - 2) + k];
            if (*n == 1)
                *n = d->shape[k];
            else if (d->shape[k] != 1 && d->shape[k] != *n)
                return NULL;
        }
    }
    full[batch] = da.shape[da.ndim - 2];
    full[batch + 1] = db.shape[db.ndim - 1];
    /* The result drops the axes of 1-d operands, as NumPy's: its memory is out's, C-contiguous. */
    int64_t shape[HK_MAX_DIMS];
    int ndim = 0;
    for (int k = 0; k < batch; k++)
        shape[ndim++] = full[k];
    if (a->ndim > 1)
        shape[ndim++] = full[batch];
    if (b->ndim > 1)
        shape[ndim++] = full[batch + 1];
    PyObject *result = hkp_new_array(ndim, shape, a->dtype, device);
    if (!result)
        return NULL;
    dout.data = ((hkp_array *)result)->data;
    dout.dtype = (hk_dtype)a->dtype;
    dout.ndim = batch + 2;
    int64_t step = 1;
    for (int k = batch + 1; k >= 0; k--) {
        dout.shape[k] = full[k];
        dout.strides[k] = step;
        step *= full[k] > 1 ? full[k] : 1;
    }
    if (hk_matmul(&da, &db, &dout, HK_MATMUL_AUTO, stream) != HK_SUCCESS)
        Py_CLEAR(result);
    return result;
}

static PyObject *matmul_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (hkp_settle() < 0)
        return NULL;
    Matmul *m = (Matmul *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *stream = Py_None;
    int ok = nargs == 2 && (m->mode == 0 || !kwnames);
    for (Py_ssize_t i = 0; ok && kwnames && i < PyTuple_GET_SIZE(kwnames); i++) {
        if (PyTuple_GET_ITEM(kwnames, i) == n_stream)
            stream = args[nargs + i];
        else
            ok = 0; /* out=, engine=: Python */
    }
    if (ok) {
        PyObject *result = dispatch(args[0], args[1], stream);
        if (result)
            return result;
        PyErr_Clear();
    }
    return hkp_hand_on(&m->head, args, nargsf, kwnames);
}

HKP_CALLABLE_TYPE(matmul_type, "hipkit._native.Matmul", Matmul,
                  "matmul with its common calls in C (see matmul.c).");

/* matmul(mode, fallback) -> a Matmul. */
static PyObject *make_matmul(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    (void)module;
    long mode = argc == 2 && PyLong_CheckExact(argv[0]) ? PyLong_AsLong(argv[0]) : -1;
    if (mode < 0 || mode > 1 || !PyCallable_Check(argv[1])) {
        PyErr_SetString(PyExc_TypeError, "matmul(mode: 0 function, 1 operator, fallback)");
        return NULL;
    }
    Matmul *m = PyObject_GC_New(Matmul, &matmul_type);
    if (!m)
        return NULL;
    hkp_callable_init(&m->head, matmul_call, argv[1]);
    m->mode = (int)mode;
    PyObject_GC_Track((PyObject *)m);
    return (PyObject *)m;
}

PyMethodDef hkp_matmul_methods_module[] = {
    {"matmul", (PyCFunction)(void (*)(void))make_matmul, METH_FASTCALL,
     "matmul(mode, fallback): matmul (0) or the @ operator (1) with their common calls in C."},
    {NULL, NULL, 0, NULL},
};

int hkp_matmul_ready(void)
{
    n_stream = PyUnicode_InternFromString("stream");
    if (!n_stream)
        return -1;
    return PyType_Ready(&matmul_type);
}
