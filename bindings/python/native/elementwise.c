/* elementwise.c: the op table's elementwise functions and ndarray's operators in C.
 *
 * ufunc(op, arity, mode, loop, result, fallback) makes the callable behind hipkit.add & co. and
 * hipkit.where and clip (mode 0: (x1, x2, out=None, stream=None); where: (condition, x, y, out=None,
 * stream=None); clip: (a, a_min, a_max, out=None, stream=None), both bounds given), ndarray's operators (mode 1: (self, other)), in-place operators
 * (mode 2: self is out) and reflected operators (mode 3: other op self). `loop` and `result` are the
 * op's row of the dtype rules as Python works them out from the op table (_ops.elementwise._loop_dtypes): for the
 * promoted dtype T, the dtype the kernel computes in and the result's (bytes of hk_dtype codes, -1
 * where NumPy refuses); the promotion itself is configure()'s table (NumPy 2, NEP 50).
 *
 * What C does completely: operands that are hipkit arrays (any view: strides, offsets, broadcasting)
 * and Python bool/int/float scalars (weak: they take the arrays' dtype), an array cast to the loop
 * dtype through a temporary (default stream), a new output or an `out=` of the result's shape and
 * dtype (the same view as an input, or apart from every input), on the current device. Everything
 * else (NumPy scalars, host data, other devices, float16 scalars, integers out of the dtype's range,
 * casting into out, errors of any kind) goes to `fallback` with the same arguments: the Python path,
 * which handles every case or raises the right error. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "native.h"


typedef struct {
    hkp_callable head;
    int op, arity, mode;
    signed char loop[HKP_DTYPES], result[HKP_DTYPES];
} Ufunc;

static PyObject *n_out, *n_stream;

int hkp_scalar_kind(PyObject *x)
{
    if (x == Py_True || x == Py_False)
        return SCALAR_BOOL;
    if (PyLong_CheckExact(x))
        return SCALAR_INT;
    if (PyFloat_CheckExact(x))
        return SCALAR_FLOAT;
    return NOT_SCALAR;
}

int hkp_scalar_value(PyObject *x, int kind, int dtype, unsigned char *slot)
{
    if (dtype == HK_FLOAT32 || dtype == HK_FLOAT64) {
        double v = kind == SCALAR_FLOAT ? PyFloat_AS_DOUBLE(x) : kind == SCALAR_BOOL ? (x == Py_True) : PyLong_AsDouble(x);
        if (v == -1.0 && PyErr_Occurred())
            return 0;
        if (dtype == HK_FLOAT64) {
            memcpy(slot, &v, 8);
            return 1;
        }
        if (isfinite(v) && fabs(v) > FLT_MAX)
            return 0;
        float f = (float)v;
        memcpy(slot, &f, 4);
        return 1;
    }
    if (dtype == HK_BOOL) { /* any value converts (NumPy's astype(bool)): true unless zero */
        int truth = PyObject_IsTrue(x);
        if (truth < 0)
            return 0;
        slot[0] = (unsigned char)truth;
        return 1;
    }
    if (kind == SCALAR_FLOAT || dtype == HK_FLOAT16 || dtype == HK_COMPLEX64 || dtype == HK_COMPLEX128)
        return 0; /* complex values (16 bytes) and float16: the Python path */
    long long v = 0;
    unsigned long long u = 0;
    if (kind == SCALAR_BOOL) {
        v = x == Py_True;
    } else {
        int overflow = 0;
        v = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (overflow > 0 && dtype == HK_UINT64) {
            u = PyLong_AsUnsignedLongLong(x);
            if (PyErr_Occurred())
                return 0;
            memcpy(slot, &u, 8);
            return 1;
        }
        if (overflow || (v == -1 && PyErr_Occurred()))
            return 0;
    }
    long long lo = 0, hi = 0;
    switch (dtype) {
    case HK_INT8: lo = INT8_MIN, hi = INT8_MAX; break;
    case HK_UINT8: lo = 0, hi = UINT8_MAX; break;
    case HK_INT16: lo = INT16_MIN, hi = INT16_MAX; break;
    case HK_UINT16: lo = 0, hi = UINT16_MAX; break;
    case HK_INT32: lo = INT32_MIN, hi = INT32_MAX; break;
    case HK_UINT32: lo = 0, hi = UINT32_MAX; break;
    case HK_INT64: lo = INT64_MIN, hi = INT64_MAX; break;
    case HK_UINT64: lo = 0, hi = INT64_MAX; break;
    default: return 0;
    }
    if (v < lo || v > hi)
        return 0;
    u = (unsigned long long)v;
    size_t size = 0;
    (void)hk_dtype_size((hk_dtype)dtype, &size);
    for (size_t i = 0; i < size; i++) /* little-endian, as every host hipkit runs on */
        slot[i] = (unsigned char)(u >> (8 * i));
    return 1;
}

/* b, broadcast to out's shape, is the very view out (in-place ops). */
static int same_view(const hkp_array *out, const hkp_array *b)
{
    if (out->data != b->data || out->dtype != b->dtype || out->ndim != b->ndim)
        return 0;
    for (int k = 0; k < out->ndim; k++)
        if (out->shape[k] != b->shape[k] || (out->strides[k] != b->strides[k] && out->shape[k] != 1))
            return 0;
    return 1;
}

static int overlap(const hkp_array *x, const hkp_array *y)
{
    uintptr_t a0, a1, b0, b1;
    hkp_extent(x, &a0, &a1);
    hkp_extent(y, &b0, &b1);
    return a0 < a1 && b0 < b1 && a0 < b1 && b0 < a1;
}

/* The common case done, or NULL without an error when C hands the call to the Python path. */
static PyObject *dispatch(Ufunc *f, PyObject *const *in, int n, PyObject *out_object, PyObject *stream_object)
{
    /* where(condition, x, y): the condition is an array computed as bool; x and y make T (clip(a, lo,
     * hi): all three make T). */
    const int first = f->op == HK_OP_WHERE;
    int kinds[3], t = -1, arrays = 0, device = 0;
    PyObject *temps[3] = {NULL, NULL, NULL}, *result = NULL;
    for (int i = 0; i < n; i++) {
        if (hkp_is_array(in[i])) {
            const hkp_array *a = (const hkp_array *)in[i];
            if (!a->np_dtype)
                return NULL;
            kinds[i] = NOT_SCALAR;
            if (i >= first) {
                t = t < 0 ? a->dtype : hkp.promote[t][a->dtype];
                arrays++;
            }
        } else if (i < first || (kinds[i] = hkp_scalar_kind(in[i])) == NOT_SCALAR) {
            return NULL;
        }
    }
    if (!arrays || t < 0)
        return NULL;
    for (int i = first; i < n && t >= 0; i++)
        if (kinds[i] != NOT_SCALAR)
            t = hkp.weak[t][kinds[i]];
    if (t < 0 || f->loop[t] < 0 || f->result[t] < 0)
        return NULL;
    const int loop = f->loop[t], result_dtype = f->result[t];
#define LOOP_OF(i) ((i) < first ? HK_BOOL : loop)
    if (hk_device_get(&device) != HK_SUCCESS)
        return NULL;
    int stream_ok = 0;
    hk_stream stream = (hk_stream)hkp_stream_handle(stream_object, &stream_ok);
    if (!stream_ok)
        return NULL;

    /* The broadcast shape (NumPy's rules), right-aligned. */
    int ndim = 0;
    int64_t shape[HK_MAX_DIMS];
    for (int i = 0; i < n; i++)
        if (kinds[i] == NOT_SCALAR && ((hkp_array *)in[i])->ndim > ndim)
            ndim = ((hkp_array *)in[i])->ndim;
    for (int k = 0; k < ndim; k++)
        shape[k] = 1;
    for (int i = 0; i < n; i++) {
        if (kinds[i] != NOT_SCALAR)
            continue;
        const hkp_array *a = (const hkp_array *)in[i];
        if (a->device != device)
            return NULL;
        for (int k = 0; k < a->ndim; k++) {
            int64_t *s = &shape[ndim - a->ndim + k];
            const int64_t m = a->shape[k];
            if (*s == 1)
                *s = m;
            else if (m != 1 && m != *s)
                return NULL; /* the Python path raises NumPy's ValueError */
        }
    }

    const hkp_array *out = NULL;
    if (out_object) {
        if (!hkp_is_array(out_object))
            return NULL;
        out = (const hkp_array *)out_object;
        if (!out->np_dtype || out->dtype != result_dtype || out->device != device || out->ndim != ndim ||
            memcmp(out->shape, shape, sizeof(int64_t) * (size_t)ndim) != 0)
            return NULL;
        for (int i = 0; i < n; i++) {
            const hkp_array *a = (const hkp_array *)in[i];
            if (kinds[i] == NOT_SCALAR && a->dtype == LOOP_OF(i) && overlap(out, a) && !same_view(out, a))
                return NULL; /* the Python path computes into a temporary */
        }
    }

    hk_array descs[3], target;
    _Alignas(8) unsigned char values[3][8];
    for (int i = 0; i < n; i++) {
        if (kinds[i] != NOT_SCALAR) {
            if (!hkp_scalar_value(in[i], kinds[i], loop, values[i])) {
                PyErr_Clear();
                goto not_here;
            }
            descs[i].data = values[i];
            descs[i].dtype = (hk_dtype)loop;
            descs[i].ndim = HK_HOST_SCALAR;
            continue;
        }
        const hkp_array *a = (const hkp_array *)in[i];
        if (a->dtype == LOOP_OF(i)) {
            hkp_describe(a, &descs[i]);
            continue;
        }
        /* Cast through a temporary, freed (back to the default stream's pool) after the launch: only on
         * the default stream, where that order is the pool's. */
        if (stream)
            goto not_here;
        if (!(temps[i] = hkp_new_array(a->ndim, a->shape, LOOP_OF(i), device)))
            goto not_here;
        hk_array src;
        hkp_describe(a, &src);
        hkp_describe((const hkp_array *)temps[i], &descs[i]);
        if (hk_copy_array(&src, &descs[i], NULL) != HK_SUCCESS)
            goto not_here;
    }
    if (out) {
        result = Py_NewRef(out_object);
    } else if (!(result = hkp_new_array(ndim, shape, result_dtype, device))) {
        goto not_here;
    }
    hkp_describe((const hkp_array *)result, &target);
    if (((const hkp_array *)result)->size &&
        hk_elementwise((hk_op)f->op, descs, n, &target, stream) != HK_SUCCESS) {
        Py_CLEAR(result); /* the Python path repeats it and raises the library's error */
        goto not_here;
    }
#undef LOOP_OF
    for (int i = 0; i < n; i++)
        Py_XDECREF(temps[i]);
    return result;
not_here:
    for (int i = 0; i < n; i++)
        Py_XDECREF(temps[i]);
    PyErr_Clear();
    return NULL;
}

static PyObject *ufunc_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Ufunc *f = (Ufunc *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *out = NULL, *stream = Py_None;
    int ok = 1;
    if (f->mode == 0) {
        ok = nargs == f->arity;
        for (Py_ssize_t i = 0; ok && kwnames && i < PyTuple_GET_SIZE(kwnames); i++) {
            PyObject *name = PyTuple_GET_ITEM(kwnames, i), *value = args[nargs + i];
            if (name == n_out || PyUnicode_Compare(name, n_out) == 0)
                out = value == Py_None ? NULL : value;
            else if (name == n_stream || PyUnicode_Compare(name, n_stream) == 0)
                stream = value;
            else
                ok = 0;
        }
        PyErr_Clear();
    } else {
        ok = nargs == 2 && !kwnames && f->arity == 2;
    }
    if (ok && hkp.lazy_threads && f->mode != 2 && f->arity <= 2 && !out && stream == Py_None) {
        /* lazy mode: recorded (a pending array) unless the recorder hands it back (NotImplemented) */
        PyObject *op = PyLong_FromLong(f->op);
        if (!op)
            return NULL;
        PyObject *stack[3] = {op, f->mode == 3 ? args[1] : args[0], f->mode == 3 ? args[0] : args[1]};
        PyObject *recorded = PyObject_Vectorcall(hkp.lazy_record, stack, (size_t)(1 + f->arity), NULL);
        Py_DECREF(op);
        if (recorded != Py_NotImplemented)
            return recorded;
        Py_DECREF(recorded);
    }
    if (hkp_settle() < 0)
        return NULL;
    if (ok) {
        PyObject *result;
        if (f->mode == 3) {
            PyObject *swapped[2] = {args[1], args[0]};
            result = dispatch(f, swapped, 2, NULL, Py_None);
        } else {
            result = dispatch(f, args, f->arity, f->mode == 2 ? args[0] : out, stream);
        }
        if (result || PyErr_Occurred())
            return result;
    }
    return hkp_hand_on(&f->head, args, nargsf, kwnames);
}

HKP_CALLABLE_TYPE(ufunc_type, "hipkit._native.Ufunc", Ufunc,
                  "An elementwise op of the op table, its common calls in C (see elementwise.c).");

/* ufunc(op, arity, mode, loop, result, fallback) -> a Ufunc. */
static PyObject *make_ufunc(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    (void)module;
    if (argc != 6 || !PyLong_CheckExact(argv[0]) || !PyLong_CheckExact(argv[1]) || !PyLong_CheckExact(argv[2]) ||
        !PyCallable_Check(argv[5])) {
        PyErr_SetString(PyExc_TypeError, "ufunc(op, arity, mode, loop, result, fallback)");
        return NULL;
    }
    long arity = PyLong_AsLong(argv[1]), mode = PyLong_AsLong(argv[2]);
    if (arity < 1 || arity > 3 || mode < 0 || mode > 3 || (mode > 0 && arity != 2)) {
        PyErr_SetString(PyExc_ValueError, "ufunc: arity 1, 2 or 3 (where); mode 0 (function), or for arity 2 also 1 "
                                          "(operator), 2 (in place), 3 (reflected)");
        return NULL;
    }
    Ufunc *f = PyObject_GC_New(Ufunc, &ufunc_type);
    if (!f)
        return NULL;
    hkp_callable_init(&f->head, ufunc_call, argv[5]);
    f->op = (int)PyLong_AsLong(argv[0]);
    f->arity = (int)arity;
    f->mode = (int)mode;
    PyObject_GC_Track((PyObject *)f);
    if (!hkp_dtype_table(argv[3], f->loop, HKP_DTYPES) || !hkp_dtype_table(argv[4], f->result, HKP_DTYPES)) {
        Py_DECREF(f);
        PyErr_SetString(PyExc_ValueError, "ufunc: loop and result are bytes of 10 hk_dtype codes (-1: refused)");
        return NULL;
    }
    return (PyObject *)f;
}

PyMethodDef hkp_elementwise_methods_module[] = {
    {"ufunc", (PyCFunction)(void (*)(void))make_ufunc, METH_FASTCALL,
     "ufunc(op, arity, mode, loop, result, fallback): an elementwise op with its common cases in C."},
    {NULL, NULL, 0, NULL},
};

int hkp_elementwise_ready(PyObject *module)
{
    (void)module;
    n_out = PyUnicode_InternFromString("out");
    n_stream = PyUnicode_InternFromString("stream");
    if (!n_out || !n_stream)
        return -1;
    return PyType_Ready(&ufunc_type);
}
