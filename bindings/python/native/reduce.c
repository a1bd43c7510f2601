/* reduce.c: the reductions' common calls in C (hipkit.sum & co. and their ndarray methods).
 *
 * reduction(op, signature, result, fallback) makes the callable behind hipkit.sum, prod, mean (signature
 * 0: (a, axis=None, dtype=None, out=None, keepdims=False, *, stream=None)), min, max, any, all (1: (a,
 * axis=None, out=None, keepdims=False, *, stream=None)), argmin, argmax (2: axis one int or None) and
 * var, std (3: (a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=0.0,
 * stream=None), ddof= or correction= a whole number).
 * `result` is the result dtype for each input dtype (_ops.reduce._reduce_dtype, bytes of hk_dtype codes).
 *
 * What C does completely: a hipkit array of any layout on the current device, axis None, an int or a
 * tuple of ints (negative from the end), keepdims, a stream; dtype and out None; a new output. Everything
 * else (a dtype, an out, scalars and host data, a 0-d array with an axis, empty min/max, bad axes,
 * errors of any kind) goes to `fallback` with the same arguments. */
#include <string.h>

#include "native.h"

typedef struct {
    hkp_callable head;
    int op, signature;
    signed char result[HKP_DTYPES];
} Reduction;

static PyObject *n_dtype, *n_out, *n_keepdims, *n_ddof, *n_correction;

/* The axes bit mask of `axis` for an array of ndim dimensions; -1 when C leaves it to Python. */
static long long axes_mask(PyObject *axis, int ndim, int one_axis)
{
    if (axis == Py_None)
        return ndim ? (1LL << ndim) - 1 : 0;
    if (ndim == 0)
        return -1; /* a 0-d array with an axis: NumPy's rule, in Python */
    PyObject *single[1] = {axis};
    PyObject *const *items = single;
    Py_ssize_t count = 1;
    if (PyTuple_CheckExact(axis)) {
        if (one_axis)
            return -1;
        items = &PyTuple_GET_ITEM(axis, 0);
        count = PyTuple_GET_SIZE(axis);
    }
    long long mask = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (!PyLong_CheckExact(items[i]))
            return -1;
        long k = PyLong_AsLong(items[i]);
        if (k == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return -1;
        }
        if (k < -ndim || k >= ndim)
            return -1; /* AxisError, raised by Python */
        k = k < 0 ? k + ndim : k;
        if (mask >> k & 1)
            return -1; /* a repeated axis: ValueError, raised by Python */
        mask |= 1LL << k;
    }
    return mask;
}

static PyObject *dispatch(Reduction *r, PyObject *x, PyObject *axis, int keepdims, int ddof, PyObject *stream_object)
{
    if (!hkp_is_array(x))
        return NULL;
    const hkp_array *a = (const hkp_array *)x;
    int device = 0, stream_ok = 0;
    if (!a->np_dtype || hk_device_get(&device) != HK_SUCCESS || a->device != device)
        return NULL;
    hk_stream stream = (hk_stream)hkp_stream_handle(stream_object, &stream_ok);
    const int result_dtype = r->result[a->dtype];
    const long long mask = axes_mask(axis, a->ndim, r->signature == 2);
    if (!stream_ok || result_dtype < 0 || mask < 0)
        return NULL;
    const int needs_elements = r->op == HK_REDUCE_MIN || r->op == HK_REDUCE_MAX || r->op == HK_REDUCE_ARGMIN ||
                               r->op == HK_REDUCE_ARGMAX;
    int64_t shape[HK_MAX_DIMS];
    int ndim = 0;
    for (int k = 0; k < a->ndim; k++) {
        if (mask >> k & 1) {
            if (needs_elements && a->shape[k] == 0)
                return NULL; /* "zero-size array to reduction operation ...": Python raises it */
            if (keepdims)
                shape[ndim++] = 1;
        } else {
            shape[ndim++] = a->shape[k];
        }
    }
    if (needs_elements && a->size == 0)
        return NULL;
    PyObject *result = hkp_new_array(ndim, shape, result_dtype, device);
    if (!result)
        return NULL;
    hk_array in, out;
    hkp_describe(a, &in);
    hkp_describe((const hkp_array *)result, &out);
    if (hk_reduce((hk_reduce_op)r->op, &in, (uint32_t)mask, &out, ddof, stream) != HK_SUCCESS) {
        Py_DECREF(result);
        return NULL;
    }
    return result;
}

struct reduce_keywords {
    const Reduction *r;
    int keepdims, ddof;
};

/* A whole number of 0 or more from ddof= or correction= (a Python int, or a float that is one); -1 if not. */
static int whole(PyObject *value)
{
    long long n = -1;
    if (PyLong_CheckExact(value))
        n = PyLong_AsLongLong(value);
    else if (PyFloat_CheckExact(value) && PyFloat_AS_DOUBLE(value) == (double)(long long)PyFloat_AS_DOUBLE(value))
        n = (long long)PyFloat_AS_DOUBLE(value);
    if (n == -1 && PyErr_Occurred())
        PyErr_Clear();
    return n >= 0 && n <= INT32_MAX ? (int)n : -1;
}

/* keepdims=True/False; out=None, and dtype=None where the function has one; var/std: ddof= or correction=
 * (one of them: both given is Python's error). */
static int reduce_keyword(PyObject *name, PyObject *value, void *state)
{
    struct reduce_keywords *k = state;
    if (name == n_keepdims && PyBool_Check(value)) {
        k->keepdims = value == Py_True;
        return 1;
    }
    if ((name == n_ddof || name == n_correction) && k->r->signature == 3 && k->ddof == 0) {
        k->ddof = whole(value);
        return k->ddof >= 0;
    }
    return (name == n_out || (name == n_dtype && (k->r->signature == 0 || k->r->signature == 3))) &&
           value == Py_None;
}

static PyObject *reduction_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (hkp_settle() < 0)
        return NULL;
    Reduction *r = (Reduction *)callable;
    PyObject *axis, *stream;
    struct reduce_keywords k = {r, 0, 0};
    if (hkp_axis_arguments(args, PyVectorcall_NARGS(nargsf), kwnames, Py_None, &axis, &stream, reduce_keyword, &k)) {
        PyObject *result = dispatch(r, args[0], axis, k.keepdims, k.ddof, stream);
        if (result)
            return result;
        PyErr_Clear();
    }
    return hkp_hand_on(&r->head, args, nargsf, kwnames);
}

HKP_CALLABLE_TYPE(reduction_type, "hipkit._native.Reduction", Reduction,
                  "A reduction with its common calls in C (see reduce.c).");

/* reduction(op, signature, result, fallback) -> a Reduction. */
static PyObject *make_reduction(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    (void)module;
    if (argc != 4 || !PyLong_CheckExact(argv[0]) || !PyLong_CheckExact(argv[1]) || !PyCallable_Check(argv[3])) {
        PyErr_SetString(PyExc_TypeError, "reduction(op, signature, result, fallback)");
        return NULL;
    }
    long op = PyLong_AsLong(argv[0]), signature = PyLong_AsLong(argv[1]);
    if (op < 0 || op >= HK_REDUCE_COUNT || signature < 0 || signature > 3) {
        PyErr_SetString(PyExc_ValueError, "reduction: an hk_reduce_op and a signature of 0, 1, 2 or 3");
        return NULL;
    }
    Reduction *r = PyObject_GC_New(Reduction, &reduction_type);
    if (!r)
        return NULL;
    hkp_callable_init(&r->head, reduction_call, argv[3]);
    r->op = (int)op;
    r->signature = (int)signature;
    PyObject_GC_Track((PyObject *)r);
    if (!hkp_dtype_table(argv[2], r->result, HKP_DTYPES)) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_ValueError, "reduction: result is bytes of 10 hk_dtype codes (-1: refused)");
        return NULL;
    }
    return (PyObject *)r;
}

PyMethodDef hkp_reduce_methods_module[] = {
    {"reduction", (PyCFunction)(void (*)(void))make_reduction, METH_FASTCALL,
     "reduction(op, signature, result, fallback): a reduction with its common calls in C."},
    {NULL, NULL, 0, NULL},
};

int hkp_reduce_ready(void)
{
    n_dtype = PyUnicode_InternFromString("dtype");
    n_out = PyUnicode_InternFromString("out");
    n_keepdims = PyUnicode_InternFromString("keepdims");
    n_ddof = PyUnicode_InternFromString("ddof");
    n_correction = PyUnicode_InternFromString("correction");
    if (!n_dtype || !n_out || !n_keepdims || !n_ddof || !n_correction)
        return -1;
    return PyType_Ready(&reduction_type);
}
