/* creation.c: empty, zeros, ones and full in C.
 *
 * creation(kind, fallback) makes the callable behind hipkit.empty (kind 0: (shape, dtype=None, *,
 * device=None)), zeros (1) and ones (2) ((shape, dtype=None, stream=None, *, device=None)), full (3:
 * (shape, fill_value, dtype=None, stream=None, *, device=None)) and asarray (4: (obj, dtype=None, *,
 * device=None, copy=None); C takes obj alone: a hipkit array, or a C-contiguous NumPy array of one of
 * the ten dtypes, copied in), arange (5: Python ints; int64 or a dtype= of hk_iota's) and concatenate (6:
 * hipkit arrays of one dtype along an int axis).
 *
 * What C does completely: a shape that is an int or a tuple of ints, a dtype= that configure()'s dict
 * knows (None: float64, for full the fill value's: bool, int64, float64), a Python bool/int/float fill
 * value that the dtype holds, a stream, on the current device (device=None). Everything else (other
 * devices, a fill value that is an array or a NumPy scalar or needs a cast, float16 fills, shapes
 * NumPy refuses) goes to `fallback`, which handles it or raises NumPy's error. */
#include <string.h>

#include "native.h"

enum { EMPTY = 0, ZEROS = 1, ONES = 2, FULL = 3, ASARRAY = 4, ARANGE = 5, CONCATENATE = 6 };

typedef struct {
    hkp_callable head;
    int kind;
    PyObject *host_type; /* asarray: numpy.ndarray, the host arrays it copies in C */
} Creation;

static PyObject *n_dtype, *n_stream, *n_device, *n_axis, *n_out, *one;

/* shape as dims; 0 when C leaves it to Python (not ints, negative, too many dimensions, too big). */
static int parse_shape(PyObject *shape, int64_t *dims, int *ndim, int itemsize)
{
    PyObject *single[1] = {shape};
    PyObject *const *items = single;
    Py_ssize_t count = 1;
    if (PyTuple_CheckExact(shape)) {
        items = &PyTuple_GET_ITEM(shape, 0);
        count = PyTuple_GET_SIZE(shape);
    }
    if (count > HK_MAX_DIMS)
        return 0;
    int64_t bytes = itemsize;
    for (Py_ssize_t k = 0; k < count; k++) {
        if (!PyLong_CheckExact(items[k]))
            return 0;
        int overflow = 0;
        long long n = PyLong_AsLongLongAndOverflow(items[k], &overflow);
        if (overflow || n < 0 || (n == -1 && PyErr_Occurred()))
            return 0;
        dims[k] = n;
        /* NumPy's rule: the non-zero extents times the itemsize fit a signed 64-bit size. */
        if (n && __builtin_mul_overflow(bytes, (int64_t)n, &bytes))
            return 0;
    }
    *ndim = (int)count;
    return 1;
}

static PyObject *dispatch(Creation *c, PyObject *shape_object, PyObject *fill, PyObject *dtype_object,
                          PyObject *stream_object)
{
    int dtype = HK_FLOAT64, fill_kind = NOT_SCALAR;
    if (c->kind == FULL) {
        if ((fill_kind = hkp_scalar_kind(fill)) == NOT_SCALAR)
            return NULL;
        dtype = fill_kind == SCALAR_BOOL ? HK_BOOL : fill_kind == SCALAR_INT ? HK_INT64 : HK_FLOAT64;
    }
    if (dtype_object != Py_None) {
        PyObject *code = hkp.dtype_codes ? PyDict_GetItemWithError(hkp.dtype_codes, dtype_object) : NULL;
        if (!code)
            return NULL; /* also an unhashable dtype= (TypeError, cleared by the caller) */
        dtype = (int)PyLong_AsLong(code);
        if (dtype < 0 || dtype >= HKP_DTYPES)
            return NULL;
    }
    int device = 0, stream_ok = 0, ndim = 0;
    int64_t shape[HK_MAX_DIMS];
    size_t itemsize = 0;
    (void)hk_dtype_size((hk_dtype)dtype, &itemsize);
    hk_stream stream = (hk_stream)hkp_stream_handle(stream_object, &stream_ok);
    if (!stream_ok || hk_device_get(&device) != HK_SUCCESS || !parse_shape(shape_object, shape, &ndim, (int)itemsize))
        return NULL;
    _Alignas(16) unsigned char value[16] = {0}; /* one element: 16 bytes for complex128 */
    if ((c->kind == ONES && !hkp_scalar_value(one, SCALAR_INT, dtype, value)) ||
        (c->kind == FULL && !hkp_scalar_value(fill, fill_kind, dtype, value)))
        return NULL;
    PyObject *result = hkp_new_array(ndim, shape, dtype, device);
    if (!result || c->kind == EMPTY || ((hkp_array *)result)->size == 0)
        return result;
    hk_array out;
    hkp_describe((const hkp_array *)result, &out);
    if (hk_fill(&out, value, stream) != HK_SUCCESS)
        Py_CLEAR(result);
    return result;
}

/* The hk_dtype of a buffer's struct format (NumPy's for its arrays, native byte order), or -1. */
static int format_dtype(const char *format, Py_ssize_t itemsize)
{
    if (format[0] == '=' || format[0] == '<' || format[0] == '@')
        format++;
    int dtype = -1;
    if (format[0] == 'Z' && (format[1] == 'f' || format[1] == 'd') && !format[2])
        dtype = format[1] == 'f' ? HK_COMPLEX64 : HK_COMPLEX128;
    else if (!format[0] || format[1])
        return -1;
    switch (dtype >= 0 ? 0 : format[0]) {
    case 0: break;
    case '?': dtype = HK_BOOL; break;
    case 'h': dtype = HK_INT16; break;
    case 'H': dtype = HK_UINT16; break;
    case 'b': dtype = HK_INT8; break;
    case 'B': dtype = HK_UINT8; break;
    case 'i': dtype = HK_INT32; break;
    case 'I': dtype = HK_UINT32; break;
    case 'l': case 'q': dtype = HK_INT64; break;
    case 'L': case 'Q': dtype = HK_UINT64; break;
    case 'e': dtype = HK_FLOAT16; break;
    case 'f': dtype = HK_FLOAT32; break;
    case 'd': dtype = HK_FLOAT64; break;
    default: return -1;
    }
    size_t size = 0;
    (void)hk_dtype_size((hk_dtype)dtype, &size);
    return (Py_ssize_t)size == itemsize ? dtype : -1;
}

/* asarray(obj): a hipkit array given back as it is; a C-contiguous NumPy array of one of the ten dtypes
 * copied to a new array on the current device (a synchronous copy, as the Python path's). */
static PyObject *asarray(Creation *c, PyObject *obj)
{
    if (hkp_is_array(obj) && ((hkp_array *)obj)->np_dtype) {
        int device = 0;
        return hk_device_get(&device) == HK_SUCCESS ? Py_NewRef(obj) : NULL; /* its own device, as Python's */
    }
    if (!c->host_type || Py_TYPE(obj) != (PyTypeObject *)c->host_type)
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL; /* strided, read-only or odd: the Python path */
    PyObject *result = NULL;
    int device = 0, dtype = view.format ? format_dtype(view.format, view.itemsize) : -1;
    int64_t shape[HK_MAX_DIMS];
    if (dtype >= 0 && view.ndim <= HK_MAX_DIMS && hk_device_get(&device) == HK_SUCCESS) {
        for (int k = 0; k < view.ndim; k++)
            shape[k] = view.shape ? view.shape[k] : view.len / view.itemsize;
        result = hkp_new_array(view.ndim, shape, dtype, device);
        if (result && view.len && hk_memcpy_htod(((hkp_array *)result)->data, view.buf, (size_t)view.len) != HK_SUCCESS)
            Py_CLEAR(result);
    }
    PyBuffer_Release(&view);
    return result;
}

/* arange(stop) / arange(start, stop[, step]) of Python ints (int64, or a dtype= hk_iota takes), on the
 * current device: hk_iota. NULL without an error for anything else (floats, NumPy scalars, other dtypes,
 * a zero step: the Python path). */
static PyObject *arange(PyObject *const *args, Py_ssize_t nargs, PyObject *dtype_object)
{
    long long v[3] = {0, 0, 1};
    for (Py_ssize_t i = 0; i < nargs; i++) {
        if (!PyLong_CheckExact(args[i]))
            return NULL;
        int overflow = 0;
        v[nargs == 1 ? 1 : i] = PyLong_AsLongLongAndOverflow(args[i], &overflow);
        if (overflow || PyErr_Occurred())
            return NULL;
    }
    const long long start = v[0], stop = v[1], step = v[2];
    int dtype = HK_INT64;
    if (dtype_object != Py_None) {
        PyObject *code = hkp.dtype_codes ? PyDict_GetItemWithError(hkp.dtype_codes, dtype_object) : NULL;
        dtype = code ? (int)PyLong_AsLong(code) : -1;
    }
    if (step == 0 || (dtype != HK_INT64 && dtype != HK_INT32 && dtype != HK_FLOAT32 && dtype != HK_FLOAT64))
        return NULL;
    /* len(range(start, stop, step)), without overflow: the span as unsigned */
    int64_t n = 0;
    if (step > 0 && start < stop)
        n = (int64_t)(((unsigned long long)stop - (unsigned long long)start - 1) / (unsigned long long)step + 1);
    else if (step < 0 && start > stop)
        n = (int64_t)(((unsigned long long)start - (unsigned long long)stop - 1) / (0ULL - (unsigned long long)step) + 1);
    _Alignas(8) unsigned char first[8], delta[8];
    int device = 0;
    if (dtype == HK_INT32 && (start < INT32_MIN || start > INT32_MAX || step < INT32_MIN || step > INT32_MAX))
        return NULL;
    switch (dtype) {
    case HK_INT64: memcpy(first, &start, 8), memcpy(delta, &step, 8); break;
    case HK_INT32: { int32_t a = (int32_t)start, b = (int32_t)step; memcpy(first, &a, 4), memcpy(delta, &b, 4); } break;
    case HK_FLOAT32: { float a = (float)start, b = (float)step; memcpy(first, &a, 4), memcpy(delta, &b, 4); } break;
    default: { double a = (double)start, b = (double)step; memcpy(first, &a, 8), memcpy(delta, &b, 8); } break;
    }
    if (hk_device_get(&device) != HK_SUCCESS)
        return NULL;
    PyObject *result = hkp_new_array(1, &n, dtype, device);
    if (!result || !n)
        return result;
    hk_array out;
    hkp_describe((const hkp_array *)result, &out);
    if (hk_iota(&out, first, delta, NULL) != HK_SUCCESS)
        Py_CLEAR(result);
    return result;
}

/* concatenate(arrays, axis): hipkit arrays (a list or tuple) of one dtype and ndim >= 1 on the current device,
 * equal but along `axis` (an int); each copied into its slice of a new array. NULL without an error for
 * anything else (other dtypes to promote, axis None, host data, shapes that do not fit: the Python path). */
static PyObject *concatenate(PyObject *seq, PyObject *axis_object)
{
    if (!(PyList_CheckExact(seq) || PyTuple_CheckExact(seq)) || !PyLong_CheckExact(axis_object))
        return NULL;
    const Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    int device = 0;
    if (count < 1 || !hkp_is_array(items[0]) || hk_device_get(&device) != HK_SUCCESS)
        return NULL;
    const hkp_array *first = (const hkp_array *)items[0];
    const int ndim = first->ndim;
    long k = PyLong_AsLong(axis_object);
    if (!first->np_dtype || ndim == 0 || (k == -1 && PyErr_Occurred()) || k < -ndim || k >= ndim)
        return NULL;
    const int axis = (int)(k < 0 ? k + ndim : k);
    int64_t shape[HK_MAX_DIMS];
    memcpy(shape, first->shape, sizeof(int64_t) * (size_t)ndim);
    shape[axis] = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (!hkp_is_array(items[i]))
            return NULL;
        const hkp_array *a = (const hkp_array *)items[i];
        if (!a->np_dtype || a->dtype != first->dtype || a->ndim != ndim || a->device != device)
            return NULL;
        for (int d = 0; d < ndim; d++)
            if (d != axis && a->shape[d] != first->shape[d])
                return NULL;
        shape[axis] += a->shape[axis];
    }
    PyObject *result = hkp_new_array(ndim, shape, first->dtype, device);
    if (!result)
        return NULL;
    hk_array out, piece;
    hkp_describe((const hkp_array *)result, &out);
    char *const start = out.data;
    int64_t offset = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        const hkp_array *a = (const hkp_array *)items[i];
        out.shape[axis] = a->shape[axis];
        out.data = start + offset * out.strides[axis] * first->itemsize;
        offset += a->shape[axis];
        hkp_describe(a, &piece);
        if (a->size && hk_copy_array(&piece, &out, NULL) != HK_SUCCESS) {
            Py_DECREF(result);
            return NULL;
        }
    }
    return result;
}

static PyObject *creation_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Creation *c = (Creation *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (c->kind == CONCATENATE) { /* (arrays, axis=0, out=None, dtype=None) */
        if (hkp_settle() < 0)
            return NULL;
        static PyObject *zero;
        if (!zero && !(zero = PyLong_FromLong(0)))
            return NULL;
        PyObject *axis = nargs >= 2 ? args[1] : zero, *result = NULL;
        int ok = nargs >= 1 && nargs <= 2;
        for (Py_ssize_t i = 0; ok && kwnames && i < PyTuple_GET_SIZE(kwnames); i++) {
            PyObject *name = PyTuple_GET_ITEM(kwnames, i), *value = args[nargs + i];
            if (name == n_axis && nargs < 2)
                axis = value;
            else if (!((name == n_out || name == n_dtype) && value == Py_None))
                ok = 0;
        }
        if (ok && !(result = concatenate(args[0], axis)))
            PyErr_Clear();
        return result ? result : hkp_hand_on(&c->head, args, nargsf, kwnames);
    }
    if (c->kind == ARANGE) { /* (start, stop=None, step=1, dtype=None, stream=None, *, device=None) */
        PyObject *dtype = Py_None, *result = NULL;
        int ok = nargs >= 1 && nargs <= 3;
        for (Py_ssize_t i = 0; ok && kwnames && i < PyTuple_GET_SIZE(kwnames); i++)
            if (PyTuple_GET_ITEM(kwnames, i) == n_dtype)
                dtype = args[nargs + i];
            else
                ok = 0;
        if (ok && !(result = arange(args, nargs, dtype)))
            PyErr_Clear();
        return result ? result : hkp_hand_on(&c->head, args, nargsf, kwnames);
    }
    if (c->kind == ASARRAY) { /* (obj, dtype=None, *, device=None, copy=None): the common call, obj alone */
        PyObject *result = nargs == 1 && !kwnames ? asarray(c, args[0]) : NULL;
        if (result)
            return result;
        PyErr_Clear();
        return hkp_hand_on(&c->head, args, nargsf, kwnames);
    }
    /* Positional parameters: shape, [fill_value], dtype, [stream] (empty has no stream). */
    const int fills = c->kind == FULL, streams = c->kind != EMPTY;
    const Py_ssize_t most = 2 + fills + streams;
    PyObject *shape = nargs >= 1 ? args[0] : NULL, *fill = fills && nargs >= 2 ? args[1] : NULL;
    PyObject *dtype = nargs >= 2 + fills ? args[1 + fills] : Py_None;
    PyObject *stream = streams && nargs >= 3 + fills ? args[2 + fills] : Py_None;
    int ok = nargs >= 1 + fills && nargs <= most;
    for (Py_ssize_t i = 0; ok && kwnames && i < PyTuple_GET_SIZE(kwnames); i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i), *value = args[nargs + i];
        if (name == n_dtype && nargs < 2 + fills)
            dtype = value;
        else if (name == n_stream && streams && nargs < 3 + fills)
            stream = value;
        else if (!(name == n_device && value == Py_None))
            ok = 0;
    }
    if (ok) {
        PyObject *result = dispatch(c, shape, fill, dtype, stream);
        if (result)
            return result;
        PyErr_Clear();
    }
    return hkp_hand_on(&c->head, args, nargsf, kwnames);
}

static void creation_dealloc(PyObject *self)
{
    Py_CLEAR(((Creation *)self)->host_type); /* a type: no cycle through it */
    hkp_callable_dealloc(self);
}

static PyTypeObject creation_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hipkit._native.Creation",
    .tp_basicsize = sizeof(Creation),
    .tp_dealloc = creation_dealloc,
    .tp_vectorcall_offset = offsetof(hkp_callable, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_repr = hkp_callable_repr,
    .tp_getattro = PyObject_GenericGetAttr,
    .tp_setattro = PyObject_GenericSetAttr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "A creation function with its common calls in C (see creation.c).",
    .tp_traverse = hkp_callable_traverse,
    .tp_clear = hkp_callable_clear,
    .tp_dictoffset = offsetof(hkp_callable, dict),
    .tp_getset = hkp_callable_getset,
};

/* creation(kind, fallback[, host_type]) -> a Creation; asarray (kind 4) takes numpy.ndarray. */
static PyObject *make_creation(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    (void)module;
    long kind = (argc == 2 || argc == 3) && PyLong_CheckExact(argv[0]) ? PyLong_AsLong(argv[0]) : -1;
    if (kind < EMPTY || kind > CONCATENATE || !PyCallable_Check(argv[1]) || (kind == ASARRAY) != (argc == 3) ||
        (argc == 3 && !PyType_Check(argv[2]))) {
        PyErr_SetString(PyExc_TypeError,
                        "creation(kind: 0 empty, 1 zeros, 2 ones, 3 full, 4 asarray, 5 arange, 6 concatenate, "
                        "fallback[, "
                        "numpy.ndarray])");
        return NULL;
    }
    Creation *c = PyObject_GC_New(Creation, &creation_type);
    if (!c)
        return NULL;
    hkp_callable_init(&c->head, creation_call, argv[1]);
    c->kind = (int)kind;
    c->host_type = argc == 3 ? Py_NewRef(argv[2]) : NULL;
    PyObject_GC_Track((PyObject *)c);
    return (PyObject *)c;
}

PyMethodDef hkp_creation_methods_module[] = {
    {"creation", (PyCFunction)(void (*)(void))make_creation, METH_FASTCALL,
     "creation(kind, fallback): empty (0), zeros (1), ones (2) or full (3) with their common calls in C."},
    {NULL, NULL, 0, NULL},
};

int hkp_creation_ready(void)
{
    n_dtype = PyUnicode_InternFromString("dtype");
    n_stream = PyUnicode_InternFromString("stream");
    n_device = PyUnicode_InternFromString("device");
    n_axis = PyUnicode_InternFromString("axis");
    n_out = PyUnicode_InternFromString("out");
    one = PyLong_FromLong(1);
    if (!n_dtype || !n_stream || !n_device || !n_axis || !n_out || !one)
        return -1;
    return PyType_Ready(&creation_type);
}
