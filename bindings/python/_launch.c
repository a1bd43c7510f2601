/* _launch.c: hipkit._launch, the hot path of RawKernel calls in C. cffi
 * converts a seven-argument call and struct.pack builds the buffer in about
 * a microsecond of Python per launch; here the common cases (ints, floats,
 * True/False, hipkit arrays, None) are packed straight into the layout
 * hk_kernel_launch_packed takes. Anything else returns -1 and the caller
 * takes its checked path, which either launches or raises a precise error:
 * this module never raises for a bad argument itself. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "hipkit/hipkit.h"

#define NOT_HANDLED (-1)

static PyObject *address_name; /* "_hk_address", interned */
static PyObject *ndarray_type; /* hipkit.ndarray, given by configure() */
static PyObject *bool_dtype;   /* numpy.dtype(bool), given by configure(): the dtype of comparisons' results */
static PyObject *n_dtype, *n_shape, *n_contiguous, *n_size, *n_nbytes, *n_device; /* interned attribute names */
static PyObject *stream_name; /* "_hk_stream", interned: a hipkit.Stream's handle as an int */

static int dimension(PyObject *value, hk_dim3 *out)
{
    unsigned long long d[3] = {1, 1, 1};
    if (PyLong_CheckExact(value)) {
        d[0] = PyLong_AsUnsignedLongLong(value);
    } else if (PyTuple_CheckExact(value) && PyTuple_GET_SIZE(value) >= 1 && PyTuple_GET_SIZE(value) <= 3) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(value); i++) {
            PyObject *item = PyTuple_GET_ITEM(value, i);
            if (!PyLong_CheckExact(item))
                return 0;
            d[i] = PyLong_AsUnsignedLongLong(item);
        }
    } else {
        return 0;
    }
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    for (int i = 0; i < 3; i++)
        if (d[i] < 1 || d[i] > 0xffffffffULL)
            return 0;
    *out = (hk_dim3){(unsigned int)d[0], (unsigned int)d[1], (unsigned int)d[2]};
    return 1;
}

static const unsigned char sizes[] = {
    [HK_ARG_POINTER] = 8, [HK_ARG_INT8] = 1,    [HK_ARG_UINT8] = 1,   [HK_ARG_INT16] = 2,
    [HK_ARG_UINT16] = 2,  [HK_ARG_INT32] = 4,   [HK_ARG_UINT32] = 4,  [HK_ARG_INT64] = 8,
    [HK_ARG_UINT64] = 8,  [HK_ARG_FLOAT32] = 4, [HK_ARG_FLOAT64] = 8, [HK_ARG_BOOL] = 1,
};

/* One argument into its slot; 0 when it is not a case handled here. */
static int put(unsigned char type, PyObject *value, unsigned char *slot)
{
    switch (type) {
    case HK_ARG_POINTER: {
        unsigned long long address = 0;
        if (value == Py_None)
            address = 0;
        else if (PyLong_CheckExact(value))
            address = PyLong_AsUnsignedLongLong(value);
        else {
            PyObject *attribute = PyObject_GetAttr(value, address_name);
            if (!attribute) {
                PyErr_Clear();
                return 0;
            }
            if (!PyLong_CheckExact(attribute)) {
                Py_DECREF(attribute);
                return 0;
            }
            address = PyLong_AsUnsignedLongLong(attribute);
            Py_DECREF(attribute);
        }
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        memcpy(slot, &address, 8);
        return 1;
    }
    case HK_ARG_BOOL:
        if (value != Py_True && value != Py_False)
            return 0;
        slot[0] = value == Py_True;
        return 1;
    case HK_ARG_FLOAT32:
    case HK_ARG_FLOAT64: {
        double v;
        if (PyFloat_CheckExact(value))
            v = PyFloat_AS_DOUBLE(value);
        else if (PyLong_CheckExact(value)) {
            v = PyLong_AsDouble(value);
            if (v == -1.0 && PyErr_Occurred()) {
                PyErr_Clear();
                return 0;
            }
        } else {
            return 0;
        }
        if (type == HK_ARG_FLOAT64) {
            memcpy(slot, &v, 8);
            return 1;
        }
        if (isfinite(v) && fabs(v) > FLT_MAX)
            return 0; /* the checked path raises OverflowError */
        float f = (float)v;
        memcpy(slot, &f, 4);
        return 1;
    }
    default: { /* integers */
        if (!PyLong_CheckExact(value))
            return 0;
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
        unsigned long long u = 0;
        if (overflow > 0 && type == HK_ARG_UINT64) {
            u = PyLong_AsUnsignedLongLong(value);
            if (PyErr_Occurred()) {
                PyErr_Clear();
                return 0;
            }
        } else if (overflow || (v == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return 0;
        } else {
            static const long long lo[] = {[HK_ARG_INT8] = -128,
                                           [HK_ARG_INT16] = -32768,
                                           [HK_ARG_INT32] = -2147483647LL - 1,
                                           [HK_ARG_INT64] = INT64_MIN};
            static const long long hi[] = {
                [HK_ARG_INT8] = 127,        [HK_ARG_UINT8] = 255,        [HK_ARG_INT16] = 32767,
                [HK_ARG_UINT16] = 65535,    [HK_ARG_INT32] = 2147483647, [HK_ARG_UINT32] = 4294967295LL,
                [HK_ARG_INT64] = INT64_MAX, [HK_ARG_UINT64] = INT64_MAX};
            int is_signed = type == HK_ARG_INT8 || type == HK_ARG_INT16 || type == HK_ARG_INT32 || type == HK_ARG_INT64;
            if (v < (is_signed ? lo[type] : 0) || v > hi[type])
                return 0;
            u = (unsigned long long)v;
        }
        for (unsigned i = 0; i < sizes[type]; i++) /* little-endian, as every GPU host is */
            slot[i] = (unsigned char)(u >> (8 * i));
        return 1;
    }
    }
}

/* Packs `args` by `types` into buffer; the packed size, or -1. */
static Py_ssize_t pack(PyObject *types, PyObject *args, unsigned char *buffer)
{
    if (!PyBytes_CheckExact(types) || !(PyTuple_CheckExact(args) || PyList_CheckExact(args)))
        return -1;
    Py_ssize_t count = PyBytes_GET_SIZE(types);
    if (count > HK_KERNEL_MAX_PARAMS || PySequence_Fast_GET_SIZE(args) != count)
        return -1;
    const unsigned char *t = (const unsigned char *)PyBytes_AS_STRING(types);
    PyObject **items = PySequence_Fast_ITEMS(args);
    size_t offset = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (t[i] > HK_ARG_BOOL)
            return -1;
        size_t size = sizes[t[i]];
        offset = (offset + size - 1) / size * size;
        if (!put(t[i], items[i], buffer + offset))
            return -1;
        offset += size;
    }
    return (Py_ssize_t)offset;
}

/* The kernel handle: `kernel` is an int (the handle), or a list indexed by
 * device number (several devices) whose entry for the calling thread's current
 * device is the handle, or 0 / missing when the kernel is not loaded there
 * yet. 0 when there is none. */
static void *kernel_for_device(PyObject *kernel)
{
    if (PyLong_CheckExact(kernel))
        return PyLong_AsVoidPtr(kernel);
    if (!PyList_CheckExact(kernel))
        return NULL;
    int device = -1;
    if (hk_device_get(&device) != HK_SUCCESS || device < 0 || device >= PyList_GET_SIZE(kernel))
        return NULL;
    PyObject *item = PyList_GET_ITEM(kernel, device);
    return PyLong_CheckExact(item) ? PyLong_AsVoidPtr(item) : NULL;
}

/* The stream handle: None is the default stream (0); a hipkit.Stream carries
 * its handle as the int attribute _hk_stream. 0 with *ok = 0 otherwise. */
static void *stream_handle(PyObject *stream, int *ok)
{
    *ok = 1;
    if (stream == Py_None)
        return NULL;
    *ok = 0;
    PyObject *attribute = PyObject_GetAttr(stream, stream_name);
    if (!attribute) {
        PyErr_Clear();
        return NULL;
    }
    void *handle = NULL;
    if (PyLong_CheckExact(attribute)) {
        handle = PyLong_AsVoidPtr(attribute);
        *ok = handle != NULL;
    }
    Py_DECREF(attribute);
    return handle;
}

/* launch(kernel, grid, block, args, types, shared_mem, stream) -> hk_status,
 * or -1 when the call is not one handled here. kernel: see kernel_for_device;
 * stream: None or a hipkit.Stream. */
static PyObject *launch(PyObject *self, PyObject *const *argv, Py_ssize_t argc)
{
    (void)self;
    if (argc != 7)
        return PyLong_FromLong(NOT_HANDLED);
    hk_dim3 grid, block;
    _Alignas(8) unsigned char buffer[HK_KERNEL_MAX_PARAMS * 8];
    if (!dimension(argv[1], &grid) || !dimension(argv[2], &block) || !PyLong_CheckExact(argv[5]))
        return PyLong_FromLong(NOT_HANDLED);
    Py_ssize_t size = pack(argv[4], argv[3], buffer);
    void *kernel = kernel_for_device(argv[0]);
    unsigned long long shared = PyLong_AsUnsignedLongLong(argv[5]);
    int stream_ok = 0;
    void *stream = stream_handle(argv[6], &stream_ok);
    if (size < 0 || !kernel || !stream_ok || PyErr_Occurred()) {
        PyErr_Clear();
        return PyLong_FromLong(NOT_HANDLED);
    }
    hk_status status = hk_kernel_launch_packed((hk_kernel)kernel, grid, block, (size_t)shared, (hk_stream)stream,
                                               buffer, (size_t)size);
    return PyLong_FromLong(status);
}

/* One operand of fast_binary(): an exact hipkit.ndarray, C-contiguous, on the
 * current device. 0 when it is not (the caller's Python path decides). */
typedef struct operand {
    long dtype;
    unsigned long long item; /* bytes per element */
    PyObject *shape;         /* borrowed from the object, valid while it lives */
    unsigned long long address, nbytes;
    PyObject *object; /* the array itself (borrowed) */
} operand;

/* What get_operand needs of an array, worked out on its first use and kept
 * in its __dict__ as _hk_meta: one dictionary lookup per operand instead of
 * six plus their checks (ops_bench). The attributes it is made from (shape,
 * _hk_dtype, nbytes, _device, _contiguous, the address) are set when the array
 * is made and never change; _hk_address is cached on the same grounds. */
typedef struct {
    PyObject_HEAD long dtype, device;
    int contiguous;
    unsigned item; /* bytes per element; 0 for a dtype code the library does not know */
    unsigned long long address, nbytes;
    PyObject *shape; /* a tuple of ints (no reference cycle possible) */
} Meta;

static void meta_dealloc(PyObject *o)
{
    Py_XDECREF(((Meta *)o)->shape);
    Py_TYPE(o)->tp_free(o);
}

static PyTypeObject meta_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hipkit._launch.Meta",
    .tp_basicsize = sizeof(Meta),
    .tp_dealloc = meta_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "What the fast elementwise path reads of a hipkit.ndarray (its _hk_meta).",
};

static PyObject *n_meta; /* "_hk_meta", interned */

/* A new Meta stored in `dict` as _hk_meta; borrowed (the dict holds it), or
 * NULL (with or without a Python error) when an attribute is missing or odd. */
static PyObject *store_meta(PyObject *dict, long dtype, long device, int contiguous, unsigned long long address,
                            unsigned long long nbytes, PyObject *shape)
{
    Meta *m = PyObject_New(Meta, &meta_type);
    if (!m)
        return NULL;
    size_t item = 0;
    m->dtype = dtype, m->device = device, m->contiguous = contiguous;
    m->item = hk_dtype_size((hk_dtype)dtype, &item) == HK_SUCCESS ? (unsigned)item : 0;
    m->address = address, m->nbytes = nbytes;
    m->shape = Py_NewRef(shape);
    int stored = PyDict_SetItem(dict, n_meta, (PyObject *)m);
    Py_DECREF(m);
    return stored < 0 ? NULL : (PyObject *)m;
}

/* The array's Meta worked out from its attributes (plain instance attributes,
 * read from the __dict__); _hk_address is made by getattr when absent (a
 * non-data descriptor, hipkit/kernel/_args.py). Borrowed, or NULL. */
static PyObject *make_meta(PyObject *x, PyObject *dict)
{
    PyObject *contiguous = PyDict_GetItemWithError(dict, n_contiguous);
    PyObject *dtype = PyDict_GetItemWithError(dict, n_dtype);
    PyObject *on = PyDict_GetItemWithError(dict, n_device);
    PyObject *shape = PyDict_GetItemWithError(dict, n_shape);
    PyObject *nbytes = PyDict_GetItemWithError(dict, n_nbytes);
    if (!contiguous || !dtype || !PyLong_CheckExact(dtype) || !on || !PyLong_CheckExact(on) || !shape ||
        !PyTuple_CheckExact(shape) || !nbytes || !PyLong_CheckExact(nbytes) || PyErr_Occurred())
        return NULL;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(shape); k++)
        if (!PyLong_CheckExact(PyTuple_GET_ITEM(shape, k)))
            return NULL;
    PyObject *made = PyObject_GetAttr(x, address_name); /* from the dict when cached there */
    if (!made || !PyLong_CheckExact(made)) {
        Py_XDECREF(made);
        return NULL;
    }
    unsigned long long address = PyLong_AsUnsignedLongLong(made);
    Py_DECREF(made);
    long dtype_code = PyLong_AsLong(dtype), device = PyLong_AsLong(on);
    unsigned long long bytes = PyLong_AsUnsignedLongLong(nbytes);
    if (PyErr_Occurred())
        return NULL;
    return store_meta(dict, dtype_code, device, contiguous == Py_True, address, bytes, shape);
}

/* One operand of fast_binary(): an exact hipkit.ndarray, C-contiguous, on
 * `device`. 0 when it is not (the caller's Python path decides). */
static int get_operand(PyObject *x, int device, operand *out)
{
    if (!ndarray_type || Py_TYPE(x) != (PyTypeObject *)ndarray_type)
        return 0;
    out->object = x;
    PyObject *dict = PyObject_GenericGetDict(x, NULL);
    if (!dict)
        return 0;
    PyObject *m = PyDict_GetItemWithError(dict, n_meta);
    if (!m && !PyErr_Occurred())
        m = make_meta(x, dict);
    Py_DECREF(dict); /* the array keeps it, and so the borrowed Meta */
    if (!m || Py_TYPE(m) != &meta_type)
        return 0;
    const Meta *meta = (const Meta *)m;
    if (!meta->contiguous || meta->device != device)
        return 0;
    if (meta->item == 0)
        return 0;
    out->dtype = meta->dtype;
    out->item = meta->item;
    out->shape = meta->shape;
    out->address = meta->address;
    out->nbytes = meta->nbytes;
    return 1;
}

static int overlaps_partly(const operand *x, const operand *y)
{
    if (x->address == y->address || !x->nbytes || !y->nbytes)
        return 0;
    return x->address < y->address + y->nbytes && y->address < x->address + x->nbytes;
}

/* ---- elementwise binary ops on hipkit arrays without Python frames
 *
 * fast_binary(op, dtype_mask, gives_bool, mode, fallback) makes a callable
 * for hipkit.add & co. (mode 0: (x1, x2, out=None, stream=None)), for
 * ndarray's operators (mode 1: (self, other)) and in-place operators (mode
 * 2: out is self), from the op's row of the op table (hk_op_get_info: its
 * hk_op, the dtypes its kernel takes, whether its result is bool). The case
 * handled: hk_elementwise on C-contiguous hipkit arrays of one shape and one
 * dtype (its bit set in dtype_mask) on the current device, where NumPy's
 * result dtype is that dtype (or bool), passed as 1-d views; the output
 * either identical to an input or apart from both; or a new output:
 * the memory comes from hk_malloc and the new array is built here, owning it
 * through an Owner (freed when the array and its views are gone); its cffi
 * pointer (_data) is made on first use from _hk_address (hipkit/array.py).
 * Anything else, and any failure, goes to `fallback` with the same
 * arguments: the Python path, which handles every case or raises the right
 * error. Called as a method (it is a method descriptor), so the operator
 * slots pass self without making a bound method. */

static int exiting; /* set at interpreter exit: memory is then left to the process exit */

typedef struct {
    PyObject_HEAD void *ptr;
} Owner;

static void owner_dealloc(PyObject *o)
{
    Owner *w = (Owner *)o;
    if (w->ptr && !exiting)
        (void)hk_free(w->ptr); /* a failed free has nobody to report to */
    Py_TYPE(o)->tp_free(o);
}

static PyTypeObject owner_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hipkit._launch.Owner",
    .tp_basicsize = sizeof(Owner),
    .tp_dealloc = owner_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Device memory from hk_malloc, freed with the object.",
};

typedef struct {
    PyObject_HEAD vectorcallfunc vectorcall;
    long op, mask;
    int mode, gives_bool;
    PyObject *fallback;
    PyObject *dict; /* __name__, __doc__, __wrapped__ ... (functools.update_wrapper) */
} FastBinary;

static PyObject *n_out, *n_stream, *n_el_strides, *n_offset, *n_owner, *n_dtype_np, *zero;

/* A new C-contiguous hipkit.ndarray shaped like `a`, at ptr (owned), of a's
 * dtype or bool (as_bool). NULL on a Python error. Its attributes go straight
 * into its __dict__ (what setattr does for them: none is a data descriptor),
 * size and device copied from `a`'s. */
static PyObject *new_array(const operand *a, int device, void *ptr, int as_bool)
{
    PyTypeObject *type = (PyTypeObject *)ndarray_type;
    PyObject *result = type->tp_alloc(type, 0);
    if (!result)
        return NULL;
    Owner *owner = PyObject_New(Owner, &owner_type);
    if (!owner) {
        Py_DECREF(result);
        return NULL;
    }
    owner->ptr = ptr;
    Py_ssize_t ndim = PyTuple_GET_SIZE(a->shape);
    PyObject *strides = PyTuple_New(ndim);
    long long step = 1;
    for (Py_ssize_t k = ndim - 1; strides && k >= 0; k--) {
        PyTuple_SET_ITEM(strides, k, PyLong_FromLongLong(step));
        if (!PyTuple_GET_ITEM(strides, k))
            Py_CLEAR(strides);
        else
            step *= PyLong_AsLongLong(PyTuple_GET_ITEM(a->shape, k));
    }
    PyObject *address = PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)ptr);
    PyObject *from = PyObject_GenericGetDict(a->object, NULL), *to = PyObject_GenericGetDict(result, NULL);
    int bad = !strides || !address || !from || !to;
    PyObject *const copied[] = {n_size, n_device, n_dtype_np, n_nbytes, n_dtype};
    const size_t same = as_bool ? 2 : 5; /* a bool result takes its own dtype, nbytes and code */
    for (size_t k = 0; !bad && k < same; k++) {
        PyObject *value = PyDict_GetItemWithError(from, copied[k]);
        bad = !value || PyDict_SetItem(to, copied[k], value) < 0;
    }
    const unsigned long long nbytes = as_bool ? a->nbytes / a->item : a->nbytes;
    if (!bad && as_bool) {
        PyObject *size = PyDict_GetItemWithError(from, n_size), *code = PyLong_FromLong(HK_BOOL);
        bad = !size || !code || PyDict_SetItem(to, n_dtype_np, bool_dtype) < 0 ||
              PyDict_SetItem(to, n_nbytes, size) < 0 || PyDict_SetItem(to, n_dtype, code) < 0;
        Py_XDECREF(code);
    }
    bad =
        bad || PyDict_SetItem(to, n_owner, (PyObject *)owner) < 0 || PyDict_SetItem(to, n_shape, a->shape) < 0 ||
        PyDict_SetItem(to, n_el_strides, strides) < 0 || PyDict_SetItem(to, n_contiguous, Py_True) < 0 ||
        PyDict_SetItem(to, n_offset, zero) < 0 || PyDict_SetItem(to, address_name, address) < 0 ||
        !store_meta(to, as_bool ? HK_BOOL : a->dtype, device, 1, (unsigned long long)(uintptr_t)ptr, nbytes, a->shape);
    if (bad && !PyErr_Occurred())
        PyErr_SetString(PyExc_RuntimeError, "hipkit: an array attribute is missing");
    Py_DECREF(owner); /* the array holds it now (or, on failure, nothing does and it frees ptr) */
    Py_XDECREF(strides);
    Py_XDECREF(address);
    Py_XDECREF(from);
    Py_XDECREF(to);
    if (bad) {
        Py_DECREF(result);
        return NULL;
    }
    return result;
}

/* A 1-d hk_array of n elements at address. */
static hk_array flat_view(unsigned long long address, long dtype, unsigned long long n)
{
    hk_array v; /* ndim 1: nothing past shape[0] and strides[0] is read */
    v.data = (void *)(uintptr_t)address;
    v.dtype = (hk_dtype)dtype;
    v.ndim = 1;
    v.shape[0] = (int64_t)n;
    v.strides[0] = 1;
    return v;
}

/* The fast case, or NULL without an error set when it does not apply or fails. */
static PyObject *fast_case(FastBinary *f, PyObject *x1, PyObject *x2, PyObject *out, PyObject *stream_object)
{
    int device = 0;
    if (hk_device_get(&device) != HK_SUCCESS)
        return NULL;
    operand a, b, o;
    if (!get_operand(x1, device, &a) || !get_operand(x2, device, &b) || (out && !get_operand(out, device, &o)))
        goto not_here;
    if (a.dtype != b.dtype || a.dtype < 0 || a.dtype > 30 || !(f->mask >> a.dtype & 1))
        goto not_here;
    if (a.shape != b.shape && PyObject_RichCompareBool(a.shape, b.shape, Py_EQ) != 1)
        goto not_here;
    const long out_dtype = f->gives_bool ? HK_BOOL : a.dtype;
    if (out && (o.dtype != out_dtype || overlaps_partly(&a, &o) || overlaps_partly(&b, &o) ||
                (o.shape != a.shape && PyObject_RichCompareBool(a.shape, o.shape, Py_EQ) != 1)))
        goto not_here;
    int stream_ok = 0;
    void *stream = stream_handle(stream_object, &stream_ok);
    if (!stream_ok || PyErr_Occurred())
        goto not_here;
    const unsigned long long n = a.nbytes / a.item;
    const hk_array in[2] = {flat_view(a.address, a.dtype, n), flat_view(b.address, b.dtype, n)};
    if (out) {
        const hk_array target = flat_view(o.address, out_dtype, n);
        if (hk_elementwise((hk_op)f->op, in, 2, &target, (hk_stream)stream) != HK_SUCCESS)
            goto not_here; /* the fallback repeats it and raises the library's error */
        return Py_NewRef(out);
    }
    void *ptr = NULL;
    if (hk_malloc(&ptr, f->gives_bool ? n : a.nbytes) != HK_SUCCESS)
        goto not_here; /* the fallback allocates again: OutOfMemoryError with the pool's figures */
    const hk_array target = flat_view((unsigned long long)(uintptr_t)ptr, out_dtype, n);
    if (hk_elementwise((hk_op)f->op, in, 2, &target, (hk_stream)stream) != HK_SUCCESS) {
        (void)hk_free(ptr);
        goto not_here;
    }
    PyObject *result = new_array(&a, device, ptr, f->gives_bool);
    if (!result) { /* a Python error (no memory): the kernel may still write ptr */
        PyObject *type, *value, *trace;
        PyErr_Fetch(&type, &value, &trace);
        (void)hk_stream_synchronize((hk_stream)stream);
        PyErr_Restore(type, value, trace);
    }
    return result; /* on failure new_array's Owner freed ptr */
not_here:
    PyErr_Clear();
    return NULL;
}

static PyObject *fast_binary_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    FastBinary *f = (FastBinary *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *out = NULL, *stream = Py_None;
    if (nargs == 2) {
        int ok = 1;
        if (kwnames) {
            ok = f->mode == 0;
            for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(kwnames); i++) {
                PyObject *name = PyTuple_GET_ITEM(kwnames, i), *value = args[nargs + i];
                if (PyUnicode_Compare(name, n_out) == 0)
                    out = value == Py_None ? NULL : value;
                else if (PyUnicode_Compare(name, n_stream) == 0)
                    stream = value;
                else
                    ok = 0;
            }
            PyErr_Clear();
        }
        if (f->mode == 2)
            out = args[0];
        if (ok) {
            PyObject *result = fast_case(f, args[0], args[1], out, stream);
            if (result || PyErr_Occurred())
                return result;
        }
    }
    return PyObject_Vectorcall(f->fallback, args, nargsf, kwnames);
}

static PyObject *fast_binary_repr(PyObject *self)
{
    FastBinary *f = (FastBinary *)self;
    PyObject *name = f->dict ? PyDict_GetItemString(f->dict, "__name__") : NULL;
    if (name)
        return PyUnicode_FromFormat("<hipkit function %S (C fast path)>", name);
    return PyUnicode_FromString("<hipkit function (C fast path)>");
}

static PyObject *fast_binary_get(PyObject *self, PyObject *instance, PyObject *owner)
{
    (void)owner;
    if (!instance)
        return Py_NewRef(self);
    return PyMethod_New(self, instance);
}

static int fast_binary_traverse(PyObject *self, visitproc visit, void *arg)
{
    FastBinary *f = (FastBinary *)self;
    Py_VISIT(f->fallback);
    Py_VISIT(f->dict);
    return 0;
}

static int fast_binary_clear(PyObject *self)
{
    FastBinary *f = (FastBinary *)self;
    Py_CLEAR(f->fallback);
    Py_CLEAR(f->dict);
    return 0;
}

static void fast_binary_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    fast_binary_clear(self);
    Py_TYPE(self)->tp_free(self);
}

static PyGetSetDef fast_binary_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject fast_binary_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hipkit._launch.FastBinary",
    .tp_basicsize = sizeof(FastBinary),
    .tp_dealloc = fast_binary_dealloc,
    .tp_vectorcall_offset = offsetof(FastBinary, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_repr = fast_binary_repr,
    .tp_getattro = PyObject_GenericGetAttr,
    .tp_setattro = PyObject_GenericSetAttr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "An elementwise binary op with its common case in C (see _launch.c).",
    .tp_traverse = fast_binary_traverse,
    .tp_clear = fast_binary_clear,
    .tp_descr_get = fast_binary_get,
    .tp_dictoffset = offsetof(FastBinary, dict),
    .tp_getset = fast_binary_getset,
};

/* fast_binary(op, dtype_mask, gives_bool, mode, fallback) -> a FastBinary. */
static PyObject *fast_binary(PyObject *self, PyObject *const *argv, Py_ssize_t argc)
{
    (void)self;
    if (argc != 5 || !PyLong_CheckExact(argv[0]) || !PyLong_CheckExact(argv[1]) || !PyLong_CheckExact(argv[2]) ||
        !PyLong_CheckExact(argv[3]) || !PyCallable_Check(argv[4])) {
        PyErr_SetString(PyExc_TypeError, "fast_binary(op, dtype_mask, gives_bool, mode, fallback)");
        return NULL;
    }
    long mode = PyLong_AsLong(argv[3]);
    if (mode < 0 || mode > 2) {
        PyErr_SetString(PyExc_ValueError, "fast_binary: mode is 0 (function), 1 (operator) or 2 (in place)");
        return NULL;
    }
    FastBinary *f = PyObject_GC_New(FastBinary, &fast_binary_type);
    if (!f)
        return NULL;
    f->vectorcall = fast_binary_call;
    f->op = PyLong_AsLong(argv[0]);
    f->mask = PyLong_AsLong(argv[1]);
    f->gives_bool = PyObject_IsTrue(argv[2]) == 1;
    f->mode = (int)mode;
    f->fallback = Py_NewRef(argv[4]);
    f->dict = NULL;
    PyObject_GC_Track((PyObject *)f);
    return (PyObject *)f;
}

/* exiting(): from now on arrays made here leave their memory to the process exit. */
static PyObject *set_exiting(PyObject *self, PyObject *const *argv, Py_ssize_t argc)
{
    (void)self;
    (void)argv;
    (void)argc;
    exiting = 1;
    Py_RETURN_NONE;
}

/* configure(ndarray, bool_dtype): the array class fast_binary() accepts, and
 * numpy.dtype(bool) for the arrays it makes from comparisons. */
static PyObject *configure(PyObject *self, PyObject *const *argv, Py_ssize_t argc)
{
    (void)self;
    if (argc != 2 || !PyType_Check(argv[0])) {
        PyErr_SetString(PyExc_TypeError, "configure(ndarray_class, bool_dtype)");
        return NULL;
    }
    Py_XSETREF(ndarray_type, Py_NewRef(argv[0]));
    Py_XSETREF(bool_dtype, Py_NewRef(argv[1]));
    Py_RETURN_NONE;
}

/* pack(types, args) -> bytes or None: the buffer launch() would pass (tests). */
static PyObject *pack_only(PyObject *self, PyObject *const *argv, Py_ssize_t argc)
{
    (void)self;
    _Alignas(8) unsigned char buffer[HK_KERNEL_MAX_PARAMS * 8];
    memset(buffer, 0, sizeof buffer); /* padding reads as zeros, as struct.pack writes it */
    Py_ssize_t size = argc == 2 ? pack(argv[0], argv[1], buffer) : -1;
    if (size < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return PyBytes_FromStringAndSize((const char *)buffer, size);
}

/* current_device() -> the calling thread's hipkit device (hk_device_get),
 * without cffi's box and call (about 0.5 us on a slow host). */
static PyObject *current_device(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    int device = 0;
    (void)hk_device_get(&device); /* cannot fail with a non-NULL argument */
    return PyLong_FromLong(device);
}

static PyMethodDef methods[] = {
    {"current_device", current_device, METH_NOARGS, "The calling thread's hipkit device (hk_device_get)."},
    {"launch", (PyCFunction)(void (*)(void))launch, METH_FASTCALL, "Packed kernel launch (see _launch.c)."},
    {"pack", (PyCFunction)(void (*)(void))pack_only, METH_FASTCALL, "The packed arguments (for tests)."},
    {"configure", (PyCFunction)(void (*)(void))configure, METH_FASTCALL,
     "Set the hipkit.ndarray class and numpy's bool dtype."},
    {"fast_binary", (PyCFunction)(void (*)(void))fast_binary, METH_FASTCALL,
     "fast_binary(op, dtype_mask, gives_bool, mode, fallback): an elementwise op with its common case in C."},
    {"exiting", (PyCFunction)(void (*)(void))set_exiting, METH_FASTCALL,
     "Interpreter exit: memory of arrays made here is left to the process exit."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "hipkit._launch", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__launch(void)
{
    address_name = PyUnicode_InternFromString("_hk_address");
    stream_name = PyUnicode_InternFromString("_hk_stream");
    n_dtype = PyUnicode_InternFromString("_hk_dtype");
    n_shape = PyUnicode_InternFromString("shape");
    n_contiguous = PyUnicode_InternFromString("_contiguous");
    n_size = PyUnicode_InternFromString("size");
    n_nbytes = PyUnicode_InternFromString("nbytes");
    n_device = PyUnicode_InternFromString("_device");
    n_out = PyUnicode_InternFromString("out");
    n_stream = PyUnicode_InternFromString("stream");
    n_el_strides = PyUnicode_InternFromString("_el_strides");
    n_offset = PyUnicode_InternFromString("_offset");
    n_owner = PyUnicode_InternFromString("_owner");
    n_dtype_np = PyUnicode_InternFromString("dtype");
    n_meta = PyUnicode_InternFromString("_hk_meta");
    zero = PyLong_FromLong(0);
    if (!address_name || !stream_name || !n_dtype || !n_shape || !n_contiguous || !n_size || !n_nbytes || !n_device ||
        !n_out || !n_stream || !n_el_strides || !n_offset || !n_owner || !n_dtype_np || !n_meta || !zero)
        return NULL;
    if (PyType_Ready(&owner_type) < 0 || PyType_Ready(&fast_binary_type) < 0 || PyType_Ready(&meta_type) < 0)
        return NULL;
    return PyModule_Create(&module);
}
