/* scan.c: cumsum and cumprod in C.
 *
 * scan(op, result, fallback) makes the callable behind hipkit.cumsum and cumprod ((a, axis=None,
 * dtype=None, out=None, *, stream=None)); `result` is the result dtype for each input dtype
 * (NumPy's accumulator: _dtypes.sum_accumulator_type, as bytes of hk_dtype codes).
 *
 * What C does completely: a hipkit array on the current device, axis an int (negative from the end) or
 * None (the flattened array: C-contiguous arrays, or any 0-d or 1-d view), a stream, into a new output.
 * Everything else (dtype=, out=, a strided array of several dimensions with axis None, bad axes) goes to
 * `fallback`. */
#include "native.h"

typedef struct {
    hkp_callable head;
    int op;
    signed char result[HKP_DTYPES];
} Scan;

static PyObject *n_axis, *n_dtype, *n_out, *n_stream;

static PyObject *dispatch(Scan *s, PyObject *x, PyObject *axis_object, PyObject *stream_object)
{
    if (!hkp_is_array(x))
        return NULL;
    const hkp_array *a = (const hkp_array *)x;
    int device = 0, stream_ok = 0;
    if (!a->np_dtype || hk_device_get(&device) != HK_SUCCESS || a->device != device || s->result[a->dtype] < 0)
        return NULL;
    hk_stream stream = (hk_stream)hkp_stream_handle(stream_object, &stream_ok);
    if (!stream_ok)
        return NULL;
    hk_array in;
    hkp_describe(a, &in);
    int64_t shape[HK_MAX_DIMS];
    int ndim = a->ndim, axis = 0;
    if (axis_object == Py_None || a->ndim == 0) {
        if (axis_object != Py_None) { /* a 0-d array scans as one element: axis 0 or -1 */
            long k = PyLong_CheckExact(axis_object) ? PyLong_AsLong(axis_object) : 2;
            if (k != 0 && k != -1)
                return NULL;
        }
        if (a->ndim > 1) { /* the flattened array: a 1-d view of a C-contiguous one */
            if (!a->contiguous)
                return NULL;
            in.ndim = 1;
            in.shape[0] = a->size;
            in.strides[0] = 1;
        }
        ndim = 1;
        shape[0] = a->size;
    } else {
        if (!PyLong_CheckExact(axis_object))
            return NULL;
        long k = PyLong_AsLong(axis_object);
        if ((k == -1 && PyErr_Occurred()) || k < -a->ndim || k >= a->ndim)
            return NULL; /* AxisError, raised by Python */
        axis = (int)(k < 0 ? k + a->ndim : k);
        for (int d = 0; d < ndim; d++)
            shape[d] = a->shape[d];
    }
    PyObject *result = hkp_new_array(ndim, shape, s->result[a->dtype], device);
    if (!result)
        return NULL;
    hk_array out;
    hkp_describe((const hkp_array *)result, &out);
    if (hk_scan((hk_scan_op)s->op, &in, axis, &out, stream) != HK_SUCCESS)
        Py_CLEAR(result);
    return result;
}

static PyObject *scan_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Scan *s = (Scan *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *axis = nargs >= 2 ? args[1] : Py_None, *stream = Py_None;
    int ok = nargs >= 1 && nargs <= 2;
    for (Py_ssize_t i = 0; ok && kwnames && i < PyTuple_GET_SIZE(kwnames); i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i), *value = args[nargs + i];
        if (name == n_axis && nargs < 2)
            axis = value;
        else if (name == n_stream)
            stream = value;
        else if (!((name == n_dtype || name == n_out) && value == Py_None))
            ok = 0;
    }
    if (ok) {
        PyObject *result = dispatch(s, args[0], axis, stream);
        if (result)
            return result;
        PyErr_Clear();
    }
    return hkp_hand_on(&s->head, args, nargsf, kwnames);
}

HKP_CALLABLE_TYPE(scan_type, "hipkit._native.Scan", Scan, "cumsum/cumprod with their common calls in C (see scan.c).");

/* scan(op, result, fallback) -> a Scan. */
static PyObject *make_scan(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    (void)module;
    long op = argc == 3 && PyLong_CheckExact(argv[0]) ? PyLong_AsLong(argv[0]) : -1;
    if ((op != HK_SCAN_CUMSUM && op != HK_SCAN_CUMPROD) || !PyCallable_Check(argv[2])) {
        PyErr_SetString(PyExc_TypeError, "scan(op: an hk_scan_op, result, fallback)");
        return NULL;
    }
    Scan *s = PyObject_GC_New(Scan, &scan_type);
    if (!s)
        return NULL;
    hkp_callable_init(&s->head, scan_call, argv[2]);
    s->op = (int)op;
    PyObject_GC_Track((PyObject *)s);
    if (!hkp_dtype_table(argv[1], s->result, HKP_DTYPES)) {
        Py_DECREF(s);
        PyErr_SetString(PyExc_ValueError, "scan: result is bytes of 10 hk_dtype codes");
        return NULL;
    }
    return (PyObject *)s;
}

PyMethodDef hkp_scan_methods_module[] = {
    {"scan", (PyCFunction)(void (*)(void))make_scan, METH_FASTCALL,
     "scan(op, result, fallback): cumsum or cumprod with their common calls in C."},
    {NULL, NULL, 0, NULL},
};

int hkp_scan_ready(void)
{
    n_axis = PyUnicode_InternFromString("axis");
    n_dtype = PyUnicode_InternFromString("dtype");
    n_out = PyUnicode_InternFromString("out");
    n_stream = PyUnicode_InternFromString("stream");
    if (!n_axis || !n_dtype || !n_out || !n_stream)
        return -1;
    return PyType_Ready(&scan_type);
}
