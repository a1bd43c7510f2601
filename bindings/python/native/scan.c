/* scan.c: cumsum and cumprod, sort and argsort in C.
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

static PyObject *n_dtype, *n_out;

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

/* dtype=None, out=None. */
static int scan_keyword(PyObject *name, PyObject *value, void *state)
{
    (void)state;
    return (name == n_dtype || name == n_out) && value == Py_None;
}

static PyObject *scan_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (hkp_settle() < 0)
        return NULL;
    Scan *s = (Scan *)callable;
    PyObject *axis, *stream;
    if (hkp_axis_arguments(args, PyVectorcall_NARGS(nargsf), kwnames, Py_None, &axis, &stream, scan_keyword, NULL)) {
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

/* ---------------------------------------------------------------- sort, argsort
 *
 * sorting(indices, fallback) makes the callable behind hipkit.sort (0) and argsort (1) ((a, axis=-1, *,
 * descending=False, stable=True, stream=None)). C does an array of one or more dimensions on the current
 * device along any axis (an int), ascending, into a new output; everything else (axis None, descending,
 * 0-d arrays, bad axes) goes to `fallback`. */

typedef struct {
    hkp_callable head;
    int indices;
} Sorting;

static PyObject *n_descending, *n_stable;

/* d with dimensions `axis` and the last swapped (hk_sort sorts along the last). */
static void axis_last(hk_array *d, int axis)
{
    const int last = d->ndim - 1;
    int64_t n = d->shape[axis], s = d->strides[axis];
    d->shape[axis] = d->shape[last], d->strides[axis] = d->strides[last];
    d->shape[last] = n, d->strides[last] = s;
}

static PyObject *sort_dispatch(Sorting *q, PyObject *x, PyObject *axis_object, PyObject *stream_object)
{
    if (!hkp_is_array(x) || !PyLong_CheckExact(axis_object))
        return NULL;
    const hkp_array *a = (const hkp_array *)x;
    int device = 0, stream_ok = 0;
    long k = PyLong_AsLong(axis_object);
    if (!a->np_dtype || a->ndim == 0 || (k == -1 && PyErr_Occurred()) || k < -a->ndim || k >= a->ndim ||
        hk_device_get(&device) != HK_SUCCESS || a->device != device)
        return NULL;
    hk_stream stream = (hk_stream)hkp_stream_handle(stream_object, &stream_ok);
    if (!stream_ok)
        return NULL;
    const int axis = (int)(k < 0 ? k + a->ndim : k);
    PyObject *result = hkp_new_array(a->ndim, a->shape, q->indices ? HK_INT64 : a->dtype, device);
    if (!result)
        return NULL;
    hk_array in, out;
    hkp_describe(a, &in);
    hkp_describe((const hkp_array *)result, &out);
    axis_last(&in, axis);
    axis_last(&out, axis);
    if (hk_sort(&in, q->indices ? NULL : &out, q->indices ? &out : NULL, stream) != HK_SUCCESS)
        Py_CLEAR(result);
    return result;
}

/* descending=False (True: Python), stable=True/False (every sort here is stable). */
static int sort_keyword(PyObject *name, PyObject *value, void *state)
{
    (void)state;
    return (name == n_descending && value == Py_False) || (name == n_stable && PyBool_Check(value));
}

static PyObject *sorting_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (hkp_settle() < 0)
        return NULL;
    Sorting *q = (Sorting *)callable;
    static PyObject *minus_one;
    if (!minus_one && !(minus_one = PyLong_FromLong(-1)))
        return NULL;
    PyObject *axis, *stream;
    if (hkp_axis_arguments(args, PyVectorcall_NARGS(nargsf), kwnames, minus_one, &axis, &stream, sort_keyword, NULL)) {
        PyObject *result = sort_dispatch(q, args[0], axis, stream);
        if (result)
            return result;
        PyErr_Clear();
    }
    return hkp_hand_on(&q->head, args, nargsf, kwnames);
}

HKP_CALLABLE_TYPE(sorting_type, "hipkit._native.Sorting", Sorting,
                  "sort/argsort with their common calls in C (see scan.c).");

/* sorting(indices, fallback) -> a Sorting. */
static PyObject *make_sorting(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    (void)module;
    if (argc != 2 || !PyBool_Check(argv[0]) || !PyCallable_Check(argv[1])) {
        PyErr_SetString(PyExc_TypeError, "sorting(indices: bool, fallback)");
        return NULL;
    }
    Sorting *q = PyObject_GC_New(Sorting, &sorting_type);
    if (!q)
        return NULL;
    hkp_callable_init(&q->head, sorting_call, argv[1]);
    q->indices = argv[0] == Py_True;
    PyObject_GC_Track((PyObject *)q);
    return (PyObject *)q;
}

PyMethodDef hkp_scan_methods_module[] = {
    {"sorting", (PyCFunction)(void (*)(void))make_sorting, METH_FASTCALL,
     "sorting(indices, fallback): sort (False) or argsort (True) with their common calls in C."},
    {"scan", (PyCFunction)(void (*)(void))make_scan, METH_FASTCALL,
     "scan(op, result, fallback): cumsum or cumprod with their common calls in C."},
    {NULL, NULL, 0, NULL},
};

int hkp_scan_ready(void)
{
    n_dtype = PyUnicode_InternFromString("dtype");
    n_out = PyUnicode_InternFromString("out");
    n_descending = PyUnicode_InternFromString("descending");
    n_stable = PyUnicode_InternFromString("stable");
    if (!n_dtype || !n_out || !n_descending || !n_stable)
        return -1;
    return PyType_Ready(&scan_type) < 0 ? -1 : PyType_Ready(&sorting_type);
}
