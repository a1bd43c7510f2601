/* array.c: hipkit._native.ArrayBase, the base type of hipkit.ndarray. An array's metadata (address,
 * dtype, shape, strides, device, owner) lives in C fields, where the C paths read it without a
 * dictionary lookup; Python reads it through the attributes below. Views made in C (basic indexing,
 * .T, _view) cost one object; the memory of an owning array goes back to the pool (hk_free) when the
 * array is collected. */
#include <string.h>

#include "native.h"

hkp_config hkp;

int hkp_is_c_contiguous(int ndim, const int64_t *shape, const int64_t *strides)
{
    for (int k = 0; k < ndim; k++)
        if (shape[k] == 0)
            return 1;
    int64_t step = 1;
    for (int k = ndim - 1; k >= 0; k--) {
        if (shape[k] == 1)
            continue;
        if (strides[k] != step)
            return 0;
        step *= shape[k];
    }
    return 1;
}

void hkp_extent(const hkp_array *a, uintptr_t *lo, uintptr_t *hi)
{
    *lo = *hi = (uintptr_t)a->data;
    if (a->size == 0 || !a->data)
        return;
    int64_t first = 0, last = 0;
    for (int k = 0; k < a->ndim; k++) {
        int64_t reach = (a->shape[k] - 1) * a->strides[k];
        if (reach < 0)
            first += reach;
        else
            last += reach;
    }
    *lo = (uintptr_t)(a->data + first * a->itemsize);
    *hi = (uintptr_t)(a->data + (last + 1) * a->itemsize);
}

void hkp_describe(const hkp_array *a, hk_array *out)
{
    out->data = a->data;
    out->dtype = (hk_dtype)a->dtype;
    out->ndim = a->ndim;
    memcpy(out->shape, a->shape, sizeof(int64_t) * (size_t)a->ndim);
    memcpy(out->strides, a->strides, sizeof(int64_t) * (size_t)a->ndim);
}

/* An uninitialised object of the configured ndarray class (tp_alloc: zeroed, no __init__). */
static hkp_array *alloc_array(void)
{
    PyTypeObject *type = hkp.ndarray ? hkp.ndarray : &hkp_array_type;
    return (hkp_array *)type->tp_alloc(type, 0);
}

static void set_layout(hkp_array *a, int ndim, const int64_t *shape, const int64_t *strides, int dtype)
{
    a->ndim = ndim;
    a->dtype = dtype;
    size_t item = 0;
    (void)hk_dtype_size((hk_dtype)dtype, &item);
    a->itemsize = (int)item;
    int64_t size = 1;
    for (int k = 0; k < ndim; k++) {
        a->shape[k] = shape[k];
        a->strides[k] = strides[k];
        size *= shape[k];
    }
    a->size = size;
    a->contiguous = hkp_is_c_contiguous(ndim, shape, strides);
    Py_XSETREF(a->np_dtype, Py_NewRef(hkp.np_dtypes[dtype]));
}

PyObject *hkp_new_array(int ndim, const int64_t *shape, int dtype, int device)
{
    int64_t strides[HK_MAX_DIMS], step = 1;
    for (int k = ndim - 1; k >= 0; k--) {
        strides[k] = step;
        step *= shape[k] > 1 ? shape[k] : 1; /* a 0-length dimension counts as 1, as NumPy's */
    }
    hkp_array *a = alloc_array();
    if (!a)
        return NULL;
    set_layout(a, ndim, shape, strides, dtype);
    a->device = device;
    void *ptr = NULL;
    if (hk_malloc(&ptr, (size_t)a->size * (size_t)a->itemsize) != HK_SUCCESS) {
        Py_DECREF(a);
        return NULL; /* no Python error: the caller's Python path allocates again and raises the pool's error */
    }
    a->data = ptr;
    a->own = 1;
    return (PyObject *)a;
}

/* A view of `a`'s memory: `offset` elements from a's owner's first element. */
static PyObject *make_view(hkp_array *a, int ndim, const int64_t *shape, const int64_t *strides, int64_t offset)
{
    hkp_array *v = alloc_array();
    if (!v)
        return NULL;
    set_layout(v, ndim, shape, strides, a->dtype);
    v->device = a->device;
    v->offset = offset;
    PyObject *owner = a->base ? a->base : (PyObject *)a;
    v->base = Py_NewRef(owner);
    char *start = ((hkp_array *)owner)->data;
    v->data = start ? start + offset * a->itemsize : NULL;
    return (PyObject *)v;
}

static int array_traverse(PyObject *self, visitproc visit, void *arg)
{
    hkp_array *a = (hkp_array *)self;
    Py_VISIT(a->base);
    Py_VISIT(a->cdata);
    return 0; /* a Python subclass's own traverse visits its type and __dict__ */
}

static int array_clear(PyObject *self)
{
    hkp_array *a = (hkp_array *)self;
    Py_CLEAR(a->base);
    Py_CLEAR(a->cdata);
    Py_CLEAR(a->np_dtype);
    Py_CLEAR(a->shape_tuple);
    Py_CLEAR(a->strides_tuple);
    return 0;
}

static void array_dealloc(PyObject *self)
{
    hkp_array *a = (hkp_array *)self;
    PyObject_GC_UnTrack(self);
    if (a->own && a->data && !hkp.exiting)
        (void)hk_free(a->data); /* never raises: a failed free has nobody to report to */
    a->data = NULL;
    array_clear(self);
    PyTypeObject *type = Py_TYPE(self);
    type->tp_free(self);
}

/* ---------------------------------------------------------------- attributes */

static PyObject *tuple_of(int n, const int64_t *values, int64_t scale)
{
    PyObject *t = PyTuple_New(n);
    for (int k = 0; t && k < n; k++) {
        PyObject *v = PyLong_FromLongLong(values[k] * scale);
        if (!v) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, k, v);
    }
    return t;
}

/* A tuple of the view's n values, made on first use and kept in *slot (the metadata never changes). */
static PyObject *cached_tuple(PyObject **slot, int n, const int64_t *values)
{
    if (!*slot)
        *slot = tuple_of(n, values, 1);
    return Py_XNewRef(*slot);
}

static PyObject *get_shape(PyObject *self, void *closure)
{
    (void)closure;
    hkp_array *a = (hkp_array *)self;
    return cached_tuple(&a->shape_tuple, a->ndim, a->shape);
}

static PyObject *get_el_strides(PyObject *self, void *closure)
{
    (void)closure;
    hkp_array *a = (hkp_array *)self;
    return cached_tuple(&a->strides_tuple, a->ndim, a->strides);
}

static PyObject *get_strides(PyObject *self, void *closure)
{
    (void)closure;
    hkp_array *a = (hkp_array *)self;
    return tuple_of(a->ndim, a->strides, a->itemsize);
}

static PyObject *get_dtype(PyObject *self, void *closure)
{
    (void)closure;
    hkp_array *a = (hkp_array *)self;
    if (!a->np_dtype) {
        PyErr_SetString(PyExc_AttributeError, "hipkit.ndarray: this array was never set up");
        return NULL;
    }
    return Py_NewRef(a->np_dtype);
}

static PyObject *get_base(PyObject *self, void *closure)
{
    (void)closure;
    hkp_array *a = (hkp_array *)self;
    return Py_NewRef(a->base ? a->base : Py_None);
}

static PyObject *get_data(PyObject *self, void *closure)
{
    (void)closure;
    if (hkp_settle() < 0)
        return NULL;
    hkp_array *a = (hkp_array *)self;
    if (!a->cdata) {
        if (!hkp.make_pointer) {
            PyErr_SetString(PyExc_RuntimeError, "hipkit._native is not configured");
            return NULL;
        }
        PyObject *address = PyLong_FromVoidPtr(a->data);
        if (!address)
            return NULL;
        a->cdata = PyObject_CallOneArg(hkp.make_pointer, address);
        Py_DECREF(address);
    }
    return Py_XNewRef(a->cdata);
}

static PyObject *get_address(PyObject *self, void *closure)
{
    (void)closure;
    if (hkp_settle() < 0)
        return NULL;
    return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)((hkp_array *)self)->data);
}

#define INT_GETTER(name, expression)                                                                                  \
    static PyObject *name(PyObject *self, void *closure)                                                               \
    {                                                                                                                  \
        (void)closure;                                                                                                 \
        const hkp_array *a = (const hkp_array *)self;                                                                 \
        return PyLong_FromLongLong((long long)(expression));                                                          \
    }
INT_GETTER(get_size, a->size)
INT_GETTER(get_nbytes, a->size * a->itemsize)
INT_GETTER(get_ndim, a->ndim)
INT_GETTER(get_itemsize, a->itemsize)
INT_GETTER(get_hk_dtype, a->dtype)
INT_GETTER(get_offset, a->offset)
INT_GETTER(get_device_number, a->device)
#undef INT_GETTER

static PyObject *get_contiguous(PyObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(((hkp_array *)self)->contiguous);
}

static PyObject *get_own(PyObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(((hkp_array *)self)->own);
}

/* The transpose (all axes reversed): a view. */
static PyObject *get_transpose(PyObject *self, void *closure)
{
    (void)closure;
    hkp_array *a = (hkp_array *)self;
    int64_t shape[HK_MAX_DIMS], strides[HK_MAX_DIMS];
    for (int k = 0; k < a->ndim; k++) {
        shape[k] = a->shape[a->ndim - 1 - k];
        strides[k] = a->strides[a->ndim - 1 - k];
    }
    return make_view(a, a->ndim, shape, strides, a->offset);
}

static PyGetSetDef array_getset[] = {
    {"shape", get_shape, NULL, "the dimensions, a tuple of ints", NULL},
    {"dtype", get_dtype, NULL, "the numpy.dtype of the elements", NULL},
    {"size", get_size, NULL, "the number of elements", NULL},
    {"nbytes", get_nbytes, NULL, "size * itemsize", NULL},
    {"ndim", get_ndim, NULL, "the number of dimensions", NULL},
    {"itemsize", get_itemsize, NULL, "bytes per element", NULL},
    {"strides", get_strides, NULL, "bytes to step in each dimension, as NumPy's", NULL},
    {"base", get_base, NULL, "the array owning the memory of a view; None for an owner", NULL},
    {"ptr", get_address, NULL, "device address of the first element", NULL},
    {"T", get_transpose, NULL, "the transpose (axes reversed), a view", NULL},
    {"_hk_address", get_address, NULL, "the address of the first element, an int", NULL},
    {"_data", get_data, NULL, "the address of the first element as a cffi void *", NULL},
    {"_hk_dtype", get_hk_dtype, NULL, "the hk_dtype code", NULL},
    {"_el_strides", get_el_strides, NULL, "strides in elements", NULL},
    {"_contiguous", get_contiguous, NULL, "C-contiguous (NumPy's rule)", NULL},
    {"_offset", get_offset, NULL, "elements from the owner's first element", NULL},
    {"_device", get_device_number, NULL, "the device number", NULL},
    {"_base", get_base, NULL, "the owner of a view's memory, or None", NULL},
    {"_own", get_own, NULL, "whether this array frees its memory", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---------------------------------------------------------------- set-up from Python */

static int parse_dims(PyObject *tuple, int64_t *out, int *ndim, const char *what)
{
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) > HK_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "hipkit._native: %s must be a tuple of at most %d ints", what, HK_MAX_DIMS);
        return 0;
    }
    *ndim = (int)PyTuple_GET_SIZE(tuple);
    for (int k = 0; k < *ndim; k++) {
        out[k] = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple, k));
        if (out[k] == -1 && PyErr_Occurred())
            return 0;
    }
    return 1;
}

/* _setup(address, offset, shape, el_strides, hk_dtype, device, base, own): what Python-made arrays
 * (new ones, views worked out in Python, other libraries' memory) are. Once per array. */
static PyObject *array_setup(PyObject *self, PyObject *const *argv, Py_ssize_t argc)
{
    hkp_array *a = (hkp_array *)self;
    if (argc != 8) {
        PyErr_SetString(PyExc_TypeError, "_setup(address, offset, shape, el_strides, hk_dtype, device, base, own)");
        return NULL;
    }
    if (a->np_dtype) {
        PyErr_SetString(PyExc_RuntimeError, "hipkit.ndarray: an array is set up once");
        return NULL;
    }
    int64_t shape[HK_MAX_DIMS], strides[HK_MAX_DIMS];
    int ndim = 0, stride_dims = 0;
    void *address = PyLong_AsVoidPtr(argv[0]);
    long long offset = PyLong_AsLongLong(argv[1]);
    long dtype = PyLong_AsLong(argv[4]), device = PyLong_AsLong(argv[5]);
    if (PyErr_Occurred() || !parse_dims(argv[2], shape, &ndim, "shape") ||
        !parse_dims(argv[3], strides, &stride_dims, "el_strides"))
        return NULL;
    if (stride_dims != ndim || dtype < 0 || dtype >= HKP_DTYPES || !hkp.np_dtypes[dtype]) {
        PyErr_SetString(PyExc_ValueError, "hipkit._native: _setup got inconsistent shape, strides or dtype");
        return NULL;
    }
    set_layout(a, ndim, shape, strides, (int)dtype);
    a->data = address;
    a->offset = offset;
    a->device = (int)device;
    if (argv[6] != Py_None)
        a->base = Py_NewRef(argv[6]);
    a->own = PyObject_IsTrue(argv[7]) == 1;
    Py_RETURN_NONE;
}

/* _view(shape, el_strides, offset): a view of this array's memory, `offset` elements from its owner's
 * first element (the shape and strides worked out by the caller: reshape, transpose, ...). */
static PyObject *array_view(PyObject *self, PyObject *const *argv, Py_ssize_t argc)
{
    if (argc != 3) {
        PyErr_SetString(PyExc_TypeError, "_view(shape, el_strides, offset)");
        return NULL;
    }
    int64_t shape[HK_MAX_DIMS], strides[HK_MAX_DIMS];
    int ndim = 0, stride_dims = 0;
    if (!parse_dims(argv[0], shape, &ndim, "shape") || !parse_dims(argv[1], strides, &stride_dims, "el_strides"))
        return NULL;
    long long offset = PyLong_AsLongLong(argv[2]);
    if (offset == -1 && PyErr_Occurred())
        return NULL;
    if (stride_dims != ndim) {
        PyErr_SetString(PyExc_ValueError, "hipkit._native: _view got a shape and strides of different lengths");
        return NULL;
    }
    return make_view((hkp_array *)self, ndim, shape, strides, offset);
}

static PyObject *n_item_slow;

/* item(): the one element of a size-1 array as a Python scalar, read with a synchronous copy (after the
 * work queued before it); anything else (arguments, another size, another device) is Python's
 * (_item_slow), which handles it or raises NumPy's error. */
static PyObject *array_item(PyObject *self, PyObject *const *argv, Py_ssize_t argc)
{
    hkp_array *a = (hkp_array *)self;
    int device = 0;
    _Alignas(16) unsigned char v[16];
    if (hkp_settle() < 0)
        return NULL;
    if (argc || a->size != 1 || !a->np_dtype || hk_device_get(&device) != HK_SUCCESS || device != a->device ||
        hk_memcpy_dtoh(v, a->data, (size_t)a->itemsize) != HK_SUCCESS)
    {
        PyObject **stack = PyMem_Malloc(sizeof(PyObject *) * (size_t)(argc + 1));
        if (!stack)
            return PyErr_NoMemory();
        stack[0] = self;
        for (Py_ssize_t i = 0; i < argc; i++)
            stack[i + 1] = argv[i];
        PyObject *result = PyObject_VectorcallMethod(n_item_slow, stack, (size_t)argc + 1, NULL);
        PyMem_Free(stack);
        return result;
    }
    switch (a->dtype) {
    case HK_BOOL: return PyBool_FromLong(v[0] != 0);
    case HK_INT8: return PyLong_FromLong(*(int8_t *)v);
    case HK_UINT8: return PyLong_FromLong(*(uint8_t *)v);
    case HK_INT32: return PyLong_FromLong(*(int32_t *)v);
    case HK_UINT32: return PyLong_FromUnsignedLong(*(uint32_t *)v);
    case HK_INT64: return PyLong_FromLongLong(*(int64_t *)v);
    case HK_UINT64: return PyLong_FromUnsignedLongLong(*(uint64_t *)v);
    case HK_FLOAT16: return PyFloat_FromDouble(PyFloat_Unpack2((const char *)v, 1));
    case HK_FLOAT32: return PyFloat_FromDouble(*(float *)v);
    case HK_INT16: return PyLong_FromLong(*(int16_t *)v);
    case HK_UINT16: return PyLong_FromLong(*(uint16_t *)v);
    case HK_COMPLEX64: return PyComplex_FromDoubles(((float *)v)[0], ((float *)v)[1]);
    case HK_COMPLEX128: return PyComplex_FromDoubles(((double *)v)[0], ((double *)v)[1]);
    default: return PyFloat_FromDouble(*(double *)v);
    }
}

/* ---------------------------------------------------------------- methods in C, the rest in Python */

/* self.<name>(*args, **kwargs): the Python method behind a C one (its rare cases, its errors). */
static PyObject *slow(PyObject *self, PyObject *name, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    const Py_ssize_t total = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
    PyObject *small[8], **stack = total < 8 ? small : PyMem_Malloc(sizeof(PyObject *) * (size_t)(total + 1));
    if (!stack)
        return PyErr_NoMemory();
    stack[0] = self;
    for (Py_ssize_t i = 0; i < total; i++)
        stack[i + 1] = args[i];
    hkp_handed_on++;
    PyObject *result = PyObject_VectorcallMethod(name, stack, (size_t)(nargs + 1), kwnames);
    if (stack != small)
        PyMem_Free(stack);
    return result;
}

static PyObject *n_reshape_slow, *n_ravel_slow, *n_transpose_slow, *n_copy_slow, *n_astype_slow, *n_setitem_slow, *n_stream,
    *n_copy;

/* The dims of a reshape of `size` elements of `itemsize` bytes (ints, one of them -1 at most); 0 when C
 * leaves it to Python (other types, a size that does not match, dims NumPy refuses). */
static int reshape_dims(PyObject *const *items, Py_ssize_t count, int64_t size, int itemsize, int64_t *dims)
{
    if (count > HK_MAX_DIMS)
        return 0;
    int unknown = -1;
    int64_t known = 1, bytes = itemsize;
    for (Py_ssize_t k = 0; k < count; k++) {
        if (!PyLong_CheckExact(items[k]))
            return 0;
        int overflow = 0;
        long long n = PyLong_AsLongLongAndOverflow(items[k], &overflow);
        if (overflow || (n == -1 && PyErr_Occurred()))
            return 0;
        if (n == -1 && unknown < 0) {
            unknown = (int)k;
            continue;
        }
        if (n < 0 || (n && __builtin_mul_overflow(bytes, (int64_t)n, &bytes)))
            return 0;
        dims[k] = n;
        known *= n;
    }
    if (unknown >= 0) {
        if (known == 0 || size % known)
            return 0;
        dims[unknown] = size / known;
    } else if (known != size) {
        return 0;
    }
    return 1;
}

/* reshape(*shape): a C-contiguous array's new view; anything else is Python's (strided views, copies,
 * order=, errors). */
static PyObject *array_reshape(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    hkp_array *a = (hkp_array *)self;
    PyObject *const *items = args;
    Py_ssize_t count = nargs;
    if (nargs == 1 && PyTuple_CheckExact(args[0])) {
        items = &PyTuple_GET_ITEM(args[0], 0);
        count = PyTuple_GET_SIZE(args[0]);
    }
    int64_t dims[HK_MAX_DIMS], strides[HK_MAX_DIMS], step = 1;
    if (kwnames || !a->np_dtype || !a->contiguous || (nargs == 0) ||
        !reshape_dims(items, count, a->size, a->itemsize, dims))
        return slow(self, n_reshape_slow, args, nargs, kwnames);
    for (Py_ssize_t k = count - 1; k >= 0; k--) {
        strides[k] = step;
        step *= dims[k] > 1 ? dims[k] : 1;
    }
    return make_view(a, (int)count, dims, strides, a->offset);
}

/* ravel(): a C-contiguous array's 1-d view; else Python's (a copy; its errors). */
static PyObject *array_ravel(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    hkp_array *a = (hkp_array *)self;
    if (nargs || kwnames || !a->np_dtype || !a->contiguous)
        return slow(self, n_ravel_slow, args, nargs, kwnames);
    const int64_t one = 1;
    return make_view(a, 1, &a->size, &one, a->offset);
}

/* transpose(*axes): a view with the axes permuted (none: reversed); odd axes are Python's (its errors). */
static PyObject *array_transpose(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    hkp_array *a = (hkp_array *)self;
    if (!a->np_dtype || kwnames)
        return slow(self, n_transpose_slow, args, nargs, kwnames);
    if (nargs == 0 || (nargs == 1 && args[0] == Py_None))
        return get_transpose(self, NULL);
    PyObject *const *items = args;
    Py_ssize_t count = nargs;
    if (nargs == 1 && PyTuple_CheckExact(args[0])) {
        items = &PyTuple_GET_ITEM(args[0], 0);
        count = PyTuple_GET_SIZE(args[0]);
    }
    int64_t shape[HK_MAX_DIMS], strides[HK_MAX_DIMS];
    unsigned seen = 0;
    if (count != a->ndim)
        return slow(self, n_transpose_slow, args, nargs, kwnames);
    for (Py_ssize_t k = 0; k < count; k++) {
        long d = PyLong_CheckExact(items[k]) ? PyLong_AsLong(items[k]) : -1000;
        if (d == -1 && PyErr_Occurred())
            PyErr_Clear(), d = -1000;
        d = d < 0 ? d + a->ndim : d;
        if (d < 0 || d >= a->ndim || (seen >> d & 1))
            return slow(self, n_transpose_slow, args, nargs, kwnames);
        seen |= 1u << d;
        shape[k] = a->shape[d];
        strides[k] = a->strides[d];
    }
    return make_view(a, a->ndim, shape, strides, a->offset);
}

/* dst[...] = src (src broadcast and converted): a new contiguous array `dtype` of a's shape when dst is
 * NULL. Returns the new reference to dst (or the new array), or NULL without an error to hand over. */
static PyObject *copy_into(hkp_array *a, PyObject *dst_object, int dtype, hk_stream stream)
{
    int device = 0;
    if (hk_device_get(&device) != HK_SUCCESS || device != a->device)
        return NULL;
    PyObject *dst = dst_object ? Py_NewRef(dst_object) : hkp_new_array(a->ndim, a->shape, dtype, device);
    if (!dst)
        return NULL;
    const hkp_array *d = (const hkp_array *)dst;
    hk_status s = HK_SUCCESS;
    if (d->size) {
        if (!dst_object && a->contiguous && dtype == a->dtype) {
            const size_t bytes = (size_t)a->size * (size_t)a->itemsize;
            s = stream ? hk_memcpy_dtod_async(d->data, a->data, bytes, stream) : hk_memcpy_dtod(d->data, a->data, bytes);
        } else {
            hk_array src_d, dst_d;
            hkp_describe(a, &src_d);
            hkp_describe(d, &dst_d);
            s = hk_copy_array(&src_d, &dst_d, stream);
        }
    }
    if (s != HK_SUCCESS)
        Py_CLEAR(dst);
    return dst;
}

/* The positional-or-keyword `stream` argument at position `position` (None when absent); 0 when the
 * call has other keywords or too many arguments. */
static int stream_argument(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, Py_ssize_t position,
                           PyObject **stream)
{
    *stream = nargs > position ? args[position] : Py_None;
    if (nargs > position + 1)
        return 0;
    for (Py_ssize_t i = 0; kwnames && i < PyTuple_GET_SIZE(kwnames); i++) {
        if (PyTuple_GET_ITEM(kwnames, i) != n_stream || nargs > position)
            return 0;
        *stream = args[nargs + i];
    }
    return 1;
}

/* copy(stream=None): a C-contiguous copy on the same device. */
static PyObject *array_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    hkp_array *a = (hkp_array *)self;
    PyObject *stream_object;
    int ok = 0;
    if (hkp_settle() < 0)
        return NULL;
    if (a->np_dtype && stream_argument(args, nargs, kwnames, 0, &stream_object)) {
        hk_stream stream = (hk_stream)hkp_stream_handle(stream_object, &ok);
        PyObject *result = ok ? copy_into(a, NULL, a->dtype, stream) : NULL;
        if (result)
            return result;
        PyErr_Clear();
    }
    return slow(self, n_copy_slow, args, nargs, kwnames);
}

/* astype(dtype, copy=True, stream=None): the array converted to dtype (a new array; itself when the
 * dtype is its own and copy is False). */
static PyObject *array_astype(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    hkp_array *a = (hkp_array *)self;
    PyObject *dtype_object = nargs >= 1 ? args[0] : NULL, *copy = nargs >= 2 ? args[1] : Py_True,
             *stream_object = nargs >= 3 ? args[2] : Py_None;
    if (hkp_settle() < 0)
        return NULL;
    int ok = a->np_dtype && dtype_object && nargs <= 3;
    for (Py_ssize_t i = 0; ok && kwnames && i < PyTuple_GET_SIZE(kwnames); i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i);
        if (name == n_copy && nargs < 2)
            copy = args[nargs + i];
        else if (name == n_stream && nargs < 3)
            stream_object = args[nargs + i];
        else
            ok = 0;
    }
    PyObject *code = ok && hkp.dtype_codes ? PyDict_GetItemWithError(hkp.dtype_codes, dtype_object) : NULL;
    if (code && (copy == Py_True || copy == Py_False)) {
        const int dtype = (int)PyLong_AsLong(code);
        if (dtype == a->dtype && copy == Py_False)
            return Py_NewRef(self);
        int stream_ok = 0;
        hk_stream stream = (hk_stream)hkp_stream_handle(stream_object, &stream_ok);
        PyObject *result = stream_ok ? copy_into(a, NULL, dtype, stream) : NULL;
        if (result)
            return result;
    }
    PyErr_Clear();
    return slow(self, n_astype_slow, args, nargs, kwnames);
}

static PyObject *n_get_slow;

/* get(): a new NumPy array holding a C-contiguous array's elements (a synchronous copy, after the work
 * queued before it); anything else (stream=, out=, blocking=, strided views, another device) is
 * Python's (_get_slow). */
static PyObject *array_get(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    hkp_array *a = (hkp_array *)self;
    int device = 0;
    if (hkp_settle() < 0)
        return NULL;
    if (!nargs && !kwnames && a->np_dtype && a->contiguous && hkp.host_empty && hk_device_get(&device) == HK_SUCCESS &&
        device == a->device) {
        PyObject *shape = get_shape(self, NULL);
        PyObject *call[2] = {shape, a->np_dtype};
        PyObject *host = shape ? PyObject_Vectorcall(hkp.host_empty, call, 2, NULL) : NULL;
        Py_XDECREF(shape);
        Py_buffer view;
        if (host && PyObject_GetBuffer(host, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) == 0) {
            hk_status s = view.len ? hk_memcpy_dtoh(view.buf, a->data, (size_t)view.len) : HK_SUCCESS;
            PyBuffer_Release(&view);
            if (s == HK_SUCCESS)
                return host;
        }
        Py_XDECREF(host);
        PyErr_Clear();
    }
    return slow(self, n_get_slow, args, nargs, kwnames);
}

static PyMethodDef array_methods[] = {
    {"get", (PyCFunction)(void (*)(void))array_get, METH_FASTCALL | METH_KEYWORDS,
     "get(stream=None, out=None, blocking=True): a numpy.ndarray copy (into `out` when given); see _get_slow."},
    {"item", (PyCFunction)(void (*)(void))array_item, METH_FASTCALL, "The one element as a Python scalar."},
    {"reshape", (PyCFunction)(void (*)(void))array_reshape, METH_FASTCALL | METH_KEYWORDS,
     "reshape(*shape, order='C'): a view when the strides allow, else a copy."},
    {"ravel", (PyCFunction)(void (*)(void))array_ravel, METH_FASTCALL | METH_KEYWORDS,
     "ravel(): the array as 1-d, a view when it is C-contiguous, else a copy."},
    {"transpose", (PyCFunction)(void (*)(void))array_transpose, METH_FASTCALL | METH_KEYWORDS,
     "transpose(*axes): the axes permuted (none: reversed), a view."},
    {"copy", (PyCFunction)(void (*)(void))array_copy, METH_FASTCALL | METH_KEYWORDS,
     "copy(stream=None): a C-contiguous copy on the same device (a strided view is gathered there)."},
    {"astype", (PyCFunction)(void (*)(void))array_astype, METH_FASTCALL | METH_KEYWORDS,
     "astype(dtype, copy=True, stream=None): this array converted to dtype (NumPy's unsafe casting; floats out "
     "of an integer type's range saturate, NaN gives 0), on the same device."},
    {"_setup", (PyCFunction)(void (*)(void))array_setup, METH_FASTCALL, "Set up a new array (once)."},
    {"_view", (PyCFunction)(void (*)(void))array_view, METH_FASTCALL, "A view of this array's memory."},
    {NULL, NULL, 0, NULL},
};

/* ---------------------------------------------------------------- basic indexing in C */

/* view[key] for keys of ints, slices, `...` and None (tuples of them); NULL without an error when the
 * key is anything else or an error is due (the Python path raises NumPy's error, in NumPy's order). */
static PyObject *basic_index(hkp_array *a, PyObject *key)
{
    PyObject *single[1] = {key};
    PyObject *const *items = single;
    Py_ssize_t count = 1;
    if (PyTuple_CheckExact(key)) {
        items = &PyTuple_GET_ITEM(key, 0);
        count = PyTuple_GET_SIZE(key);
    }
    int used = 0, ellipsis = -1;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = items[i];
        if (PyLong_CheckExact(item) || PySlice_Check(item))
            used++;
        else if (item == Py_Ellipsis) {
            if (ellipsis >= 0)
                return NULL;
            ellipsis = (int)i;
        } else if (item != Py_None)
            return NULL; /* bools, arrays, lists, NumPy integers, bad types: Python */
    }
    if (used > a->ndim)
        return NULL;
    int64_t shape[HK_MAX_DIMS], strides[HK_MAX_DIMS], offset = a->offset;
    int dim = 0, out = 0;
    for (Py_ssize_t i = 0; i <= count; i++) {
        PyObject *item = i < count ? items[i] : NULL;
        if (item == NULL && ellipsis >= 0)
            break;
        if (item == NULL || item == Py_Ellipsis) { /* the trailing dimensions, kept whole */
            int fill = a->ndim - used;
            if (out + fill > HK_MAX_DIMS)
                return NULL;
            for (int k = 0; k < fill; k++, dim++, out++) {
                shape[out] = a->shape[dim];
                strides[out] = a->strides[dim];
            }
        } else if (item == Py_None) {
            if (out >= HK_MAX_DIMS)
                return NULL;
            shape[out] = 1;
            strides[out++] = 0; /* NumPy gives inserted axes stride 0 */
        } else if (PyLong_CheckExact(item)) {
            int overflow = 0;
            long long v = PyLong_AsLongLongAndOverflow(item, &overflow);
            const int64_t n = a->shape[dim];
            if (overflow || v < -n || v >= n)
                return NULL;
            offset += (v < 0 ? v + n : v) * a->strides[dim++];
        } else {
            Py_ssize_t start, stop, step;
            if (PySlice_Unpack(item, &start, &stop, &step) < 0) {
                PyErr_Clear();
                return NULL;
            }
            Py_ssize_t length = PySlice_AdjustIndices((Py_ssize_t)a->shape[dim], &start, &stop, step);
            if (out >= HK_MAX_DIMS)
                return NULL;
            if (length == 0)
                start = 0, step = 1; /* NumPy: an empty slice points at the start, stride unchanged */
            offset += start * a->strides[dim];
            shape[out] = length;
            strides[out++] = a->strides[dim++] * step;
        }
    }
    return make_view(a, out, shape, strides, offset);
}

/* view[indices] for an int64 hipkit array of indices on the same device (a gather along axis 0:
 * hk_take, which checks the indices, waiting for the device to learn whether one is out of range); NULL
 * without an error for anything else or any failure (the Python path raises IndexError naming it). */
static PyObject *take_index(hkp_array *a, PyObject *key)
{
    if (!hkp_is_array(key) || a->ndim == 0)
        return NULL;
    const hkp_array *k = (const hkp_array *)key;
    int device = 0;
    if (!k->np_dtype || k->dtype != HK_INT64 || k->ndim + a->ndim - 1 > HK_MAX_DIMS ||
        hk_device_get(&device) != HK_SUCCESS || a->device != device || k->device != device)
        return NULL;
    int64_t shape[HK_MAX_DIMS];
    int ndim = 0;
    for (int d = 0; d < k->ndim; d++)
        shape[ndim++] = k->shape[d];
    for (int d = 1; d < a->ndim; d++)
        shape[ndim++] = a->shape[d];
    PyObject *result = hkp_new_array(ndim, shape, a->dtype, device);
    if (!result)
        return NULL;
    hk_array in, indices, out;
    hkp_describe(a, &in);
    hkp_describe(k, &indices);
    hkp_describe((const hkp_array *)result, &out);
    if (hk_take(&in, &indices, 0, &out, HK_TAKE_RAISE, NULL) != HK_SUCCESS) {
        Py_DECREF(result);
        return NULL;
    }
    return result;
}

/* view[mask] for a bool hipkit array of view's shape on the same device: the selected elements, 1-d,
 * computed on the device with only their count read back (hk_mask_count, hk_mask_select); NULL without
 * an error for anything else or any failure (the Python path handles it or raises NumPy's error). */
static PyObject *mask_index(hkp_array *a, PyObject *key)
{
    if (!hkp_is_array(key) || a->ndim == 0)
        return NULL;
    const hkp_array *k = (const hkp_array *)key;
    int device = 0;
    if (!k->np_dtype || k->dtype != HK_BOOL || k->ndim != a->ndim ||
        memcmp(k->shape, a->shape, sizeof(int64_t) * (size_t)a->ndim) != 0 || hk_device_get(&device) != HK_SUCCESS ||
        a->device != device || k->device != device)
        return NULL;
    hk_array in, mask, out;
    hkp_describe(a, &in);
    hkp_describe(k, &mask);
    int64_t count = 0;
    if (hk_mask_count(&mask, &count, NULL) != HK_SUCCESS)
        return NULL;
    PyObject *result = hkp_new_array(1, &count, a->dtype, device);
    if (!result)
        return NULL;
    hkp_describe((const hkp_array *)result, &out);
    if (count && hk_mask_select(&in, &mask, &out, NULL) != HK_SUCCESS) {
        Py_DECREF(result);
        return NULL;
    }
    return result;
}

static PyObject *n_getitem_slow;

static PyObject *array_subscript(PyObject *self, PyObject *key)
{
    if (self->ob_type == hkp.ndarray) {
        PyObject *view = basic_index((hkp_array *)self, key);
        if (!view && !PyErr_Occurred() && hkp_settle() == 0) /* reads data: what lazy mode holds runs first */
            view = take_index((hkp_array *)self, key);
        if (!view && !PyErr_Occurred())
            view = mask_index((hkp_array *)self, key);
        if (view || PyErr_Occurred())
            return view;
    }
    hkp_handed_on++;
    return PyObject_CallMethodOneArg(self, n_getitem_slow, key);
}

/* view[key] = value for a basic key and a Python scalar (hk_fill) or a hipkit array apart from the view
 * (hk_copy_array: broadcast, converted) on the same device; else Python's (advanced keys, NumPy and host
 * values, casts C does not make, overlap, deletion, errors). */
/* view[mask] = scalar for a bool hipkit mask of view's shape and a Python scalar that view's dtype holds:
 * where(mask, scalar, view) into view, one launch and no wait; 0 when C leaves it to Python. */
static int mask_assign(hkp_array *a, PyObject *key, PyObject *value)
{
    const int kind = hkp_scalar_kind(value);
    if (kind == NOT_SCALAR || !hkp_is_array(key))
        return 0;
    const hkp_array *k = (const hkp_array *)key;
    int device = 0;
    _Alignas(8) unsigned char bits[8];
    if (!k->np_dtype || k->dtype != HK_BOOL || k->ndim != a->ndim ||
        memcmp(k->shape, a->shape, sizeof(int64_t) * (size_t)a->ndim) != 0 || hk_device_get(&device) != HK_SUCCESS ||
        a->device != device || k->device != device || !hkp_scalar_value(value, kind, a->dtype, bits))
        return 0;
    uintptr_t a0, a1, b0, b1;
    hkp_extent(a, &a0, &a1);
    hkp_extent(k, &b0, &b1);
    if (a0 < a1 && b0 < b1 && a0 < b1 && b0 < a1)
        return 0; /* the mask overlaps the array (a bool array masking itself): Python */
    hk_array in[3], out;
    hkp_describe(k, &in[0]);
    in[1].data = bits;
    in[1].dtype = (hk_dtype)a->dtype;
    in[1].ndim = HK_HOST_SCALAR;
    hkp_describe(a, &in[2]);
    hkp_describe(a, &out);
    return !a->size || hk_elementwise(HK_OP_WHERE, in, 3, &out, NULL) == HK_SUCCESS;
}

/* view[indices] = value for an int64 hipkit index array on the same device (a scatter along axis 0:
 * hk_put, which checks the indices, waiting for the device) and a value that is a Python scalar the
 * view's dtype holds or a hipkit array of the view's dtype broadcast to indices.shape + view.shape[1:],
 * apart from the view; 0 when C leaves it to Python (casts, overlap, odd shapes, errors). */
static int put_assign(hkp_array *a, PyObject *key, PyObject *value)
{
    if (!hkp_is_array(key) || a->ndim == 0)
        return 0;
    const hkp_array *k = (const hkp_array *)key;
    int device = 0;
    if (!k->np_dtype || k->dtype != HK_INT64 || k->ndim + a->ndim - 1 > HK_MAX_DIMS ||
        hk_device_get(&device) != HK_SUCCESS || a->device != device || k->device != device)
        return 0;
    hk_array values, indices, out;
    values.dtype = (hk_dtype)a->dtype;
    values.ndim = k->ndim + a->ndim - 1;
    for (int d = 0; d < k->ndim; d++)
        values.shape[d] = k->shape[d];
    for (int d = 1; d < a->ndim; d++)
        values.shape[k->ndim + d - 1] = a->shape[d];
    PyObject *held = NULL; /* the one-element buffer of a scalar value */
    const int kind = hkp_scalar_kind(value);
    if (kind != NOT_SCALAR) {
        _Alignas(8) unsigned char bits[8];
        if (!hkp_scalar_value(value, kind, a->dtype, bits) || !(held = hkp_new_array(0, NULL, a->dtype, device)))
            return 0;
        hk_array one;
        hkp_describe((const hkp_array *)held, &one);
        if (hk_fill(&one, bits, NULL) != HK_SUCCESS) {
            Py_DECREF(held);
            return 0;
        }
        values.data = ((hkp_array *)held)->data;
        for (int d = 0; d < values.ndim; d++)
            values.strides[d] = 0;
    } else {
        if (!hkp_is_array(value))
            return 0;
        const hkp_array *v = (const hkp_array *)value;
        uintptr_t a0, a1, b0, b1;
        hkp_extent(a, &a0, &a1);
        hkp_extent(v, &b0, &b1);
        if (!v->np_dtype || v->dtype != a->dtype || v->device != device || v->ndim > values.ndim ||
            (a0 < a1 && b0 < b1 && a0 < b1 && b0 < a1))
            return 0;
        values.data = v->data;
        for (int d = 0; d < values.ndim; d++) { /* NumPy's broadcasting of value to the values' shape */
            const int e = d - (values.ndim - v->ndim);
            if (e < 0 || v->shape[e] == 1)
                values.strides[d] = 0;
            else if (v->shape[e] == values.shape[d])
                values.strides[d] = v->strides[e];
            else
                return 0;
        }
    }
    hkp_describe(k, &indices);
    hkp_describe(a, &out);
    const int done = hk_put(&values, &indices, 0, &out, HK_TAKE_RAISE, NULL) == HK_SUCCESS;
    Py_XDECREF(held);
    return done;
}

static int array_ass_subscript(PyObject *self, PyObject *key, PyObject *value)
{
    if (hkp_settle() < 0)
        return -1;
    PyObject *target = value && self->ob_type == hkp.ndarray ? basic_index((hkp_array *)self, key) : NULL;
    int done = value && !target && self->ob_type == hkp.ndarray &&
               (mask_assign((hkp_array *)self, key, value) || put_assign((hkp_array *)self, key, value));
    if (target) {
        hkp_array *t = (hkp_array *)target;
        int kind = hkp_scalar_kind(value), device = 0;
        _Alignas(8) unsigned char bits[8];
        hk_array d;
        hkp_describe(t, &d);
        if (hk_device_get(&device) != HK_SUCCESS || device != t->device) {
            done = 0;
        } else if (kind != NOT_SCALAR) {
            done = hkp_scalar_value(value, kind, t->dtype, bits) && (!t->size || hk_fill(&d, bits, NULL) == HK_SUCCESS);
        } else if (hkp_is_array(value) && ((hkp_array *)value)->np_dtype && ((hkp_array *)value)->device == device) {
            const hkp_array *v = (const hkp_array *)value;
            uintptr_t a0, a1, b0, b1;
            hkp_extent(t, &a0, &a1);
            hkp_extent(v, &b0, &b1);
            if (v->data == t->data && v->dtype == t->dtype && v->ndim == t->ndim &&
                !memcmp(v->shape, t->shape, sizeof(int64_t) * (size_t)t->ndim) &&
                !memcmp(v->strides, t->strides, sizeof(int64_t) * (size_t)t->ndim)) {
                done = 1; /* the view itself (x[k] += 1 assigns the result back): nothing to copy */
            } else if (!(a0 < a1 && b0 < b1 && a0 < b1 && b0 < a1)) {
                PyObject *r = copy_into((hkp_array *)value, target, t->dtype, NULL);
                done = r != NULL;
                Py_XDECREF(r);
            }
        }
        Py_DECREF(target);
    }
    PyErr_Clear();
    if (done)
        return 0;
    if (!value) {
        PyErr_SetString(PyExc_ValueError, "cannot delete array elements"); /* NumPy's words */
        return -1;
    }
    PyObject *args[2] = {key, value};
    PyObject *r = slow(self, n_setitem_slow, args, 2, NULL);
    if (!r)
        return -1;
    Py_DECREF(r);
    return 0;
}

static PyMappingMethods array_mapping = {.mp_subscript = array_subscript, .mp_ass_subscript = array_ass_subscript};

PyTypeObject hkp_array_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hipkit._native.ArrayBase",
    .tp_basicsize = sizeof(hkp_array),
    .tp_dealloc = array_dealloc,
    .tp_as_mapping = &array_mapping,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "hipkit.ndarray's data in C: address, dtype, shape, strides, device, owner (see array.c).",
    .tp_traverse = array_traverse,
    .tp_clear = array_clear,
    .tp_methods = array_methods,
    .tp_getset = array_getset,
    .tp_new = PyType_GenericNew,
};

/* is_c_contiguous(shape, el_strides) -> bool: NumPy's C_CONTIGUOUS rule (the one the arrays use). */
static PyObject *is_c_contiguous(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    (void)module;
    int64_t shape[HK_MAX_DIMS], strides[HK_MAX_DIMS];
    int ndim = 0, stride_dims = 0;
    if (argc != 2) {
        PyErr_SetString(PyExc_TypeError, "is_c_contiguous(shape, el_strides)");
        return NULL;
    }
    if (!parse_dims(argv[0], shape, &ndim, "shape") || !parse_dims(argv[1], strides, &stride_dims, "el_strides"))
        return NULL;
    if (ndim != stride_dims) {
        PyErr_SetString(PyExc_ValueError, "is_c_contiguous: shape and strides differ in length");
        return NULL;
    }
    return PyBool_FromLong(hkp_is_c_contiguous(ndim, shape, strides));
}

PyMethodDef hkp_array_methods_module[] = {
    {"is_c_contiguous", (PyCFunction)(void (*)(void))is_c_contiguous, METH_FASTCALL,
     "NumPy's C_CONTIGUOUS rule over element strides."},
    {NULL, NULL, 0, NULL},
};

int hkp_array_ready(PyObject *module)
{
    n_getitem_slow = PyUnicode_InternFromString("_getitem_slow");
    n_item_slow = PyUnicode_InternFromString("_item_slow");
    n_get_slow = PyUnicode_InternFromString("_get_slow");
    n_reshape_slow = PyUnicode_InternFromString("_reshape_slow");
    n_ravel_slow = PyUnicode_InternFromString("_ravel_slow");
    n_transpose_slow = PyUnicode_InternFromString("_transpose_slow");
    n_copy_slow = PyUnicode_InternFromString("_copy_slow");
    n_astype_slow = PyUnicode_InternFromString("_astype_slow");
    n_setitem_slow = PyUnicode_InternFromString("_setitem_slow");
    n_stream = PyUnicode_InternFromString("stream");
    n_copy = PyUnicode_InternFromString("copy");
    if (!n_getitem_slow || !n_item_slow || !n_get_slow || !n_reshape_slow || !n_ravel_slow || !n_transpose_slow || !n_copy_slow || !n_astype_slow ||
        !n_setitem_slow || !n_stream || !n_copy || PyType_Ready(&hkp_array_type) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "ArrayBase", (PyObject *)&hkp_array_type);
}
