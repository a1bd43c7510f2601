/* launch.c: RawKernel's launch path in C. cffi converts a seven-argument call and struct.pack builds
 * the buffer in about a microsecond of Python per launch; here the common cases (ints, floats,
 * True/False, hipkit arrays, None) are packed straight into the layout hk_kernel_launch_packed takes.
 * Anything else returns -1 and the caller takes its checked path, which either launches or raises a
 * precise error: this file never raises for a bad argument itself. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "native.h"

#define NOT_HANDLED (-1)

static PyObject *address_name; /* "_hk_address", interned: what a non-array pointer argument carries */

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
        else if (hkp_is_array(value))
            address = (unsigned long long)(uintptr_t)((hkp_array *)value)->data;
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

/* The launch both entries below make: argv = (kernel, grid, block, args, description, shared_mem, stream),
 * the arguments packed by `packer` from args and the description. */
static PyObject *launch_packed_by(PyObject *const *argv, Py_ssize_t argc,
                                  Py_ssize_t (*packer)(PyObject *, PyObject *, unsigned char *))
{
    if (hkp_settle() < 0) /* a kernel reads and writes arrays: what lazy mode holds runs first */
        return NULL;
    if (argc != 7)
        return PyLong_FromLong(NOT_HANDLED);
    hk_dim3 grid, block;
    _Alignas(8) unsigned char buffer[HK_KERNEL_MAX_PARAMS * 8];
    if (!dimension(argv[1], &grid) || !dimension(argv[2], &block) || !PyLong_CheckExact(argv[5]))
        return PyLong_FromLong(NOT_HANDLED);
    Py_ssize_t size = packer(argv[4], argv[3], buffer);
    void *kernel = kernel_for_device(argv[0]);
    unsigned long long shared = PyLong_AsUnsignedLongLong(argv[5]);
    int stream_ok = 0;
    void *stream = hkp_stream_handle(argv[6], &stream_ok);
    if (size < 0 || !kernel || !stream_ok || PyErr_Occurred()) {
        PyErr_Clear();
        return PyLong_FromLong(NOT_HANDLED);
    }
    hk_status status = hk_kernel_launch_packed((hk_kernel)kernel, grid, block, (size_t)shared, (hk_stream)stream,
                                               buffer, (size_t)size);
    return PyLong_FromLong(status);
}

/* launch(kernel, grid, block, args, types, shared_mem, stream) -> hk_status,
 * or -1 when the call is not one handled here. kernel: see kernel_for_device;
 * stream: None or a hipkit.Stream. */
static PyObject *launch(PyObject *self, PyObject *const *argv, Py_ssize_t argc)
{
    (void)self;
    return launch_packed_by(argv, argc, pack);
}

/* @hipkit.jit's launches (bindings/python/hipkit/kernel/_jit.py): `sig` describes the arguments of one
 * specialisation, one entry per Python argument: an hk_arg_type byte for a number (HK_ARG_INT64 takes an
 * int, HK_ARG_BOOL True/False), HKP_JIT_FLOAT64 for a float64 that takes a Python float only (an int
 * selects another specialisation), or HKP_JIT_ARRAY and two bytes (hk_dtype; ndim, | 0x80 when the
 * specialisation is C-contiguous) for a hipkit array of exactly that dtype, ndim and contiguity, packed as
 * its data pointer, its extents and, not contiguous, its strides in elements: the parameters the
 * translator declares for it. Any other argument is not this specialisation's: -1. */
#define HKP_JIT_ARRAY 0xF0
#define HKP_JIT_FLOAT64 0xF1

static Py_ssize_t pack_jit(PyObject *sig, PyObject *args, unsigned char *buffer)
{
    if (!PyBytes_CheckExact(sig) || !PyTuple_CheckExact(args))
        return -1;
    const unsigned char *t = (const unsigned char *)PyBytes_AS_STRING(sig);
    const Py_ssize_t tn = PyBytes_GET_SIZE(sig), nargs = PyTuple_GET_SIZE(args);
    Py_ssize_t ti = 0, ai = 0;
    size_t offset = 0;
    int params = 0;
    while (ti < tn) {
        if (ai >= nargs)
            return -1;
        PyObject *value = PyTuple_GET_ITEM(args, ai++);
        const unsigned char code = t[ti++];
        if (code == HKP_JIT_ARRAY) {
            if (ti + 2 > tn || !hkp_is_array(value))
                return -1;
            const hkp_array *a = (const hkp_array *)value;
            const int dtype = t[ti], ndim = t[ti + 1] & 0x7f, contiguous = t[ti + 1] >> 7;
            ti += 2;
            if (a->dtype != dtype || a->ndim != ndim || (a->contiguous != 0) != contiguous)
                return -1;
            params += 1 + ndim * (contiguous ? 1 : 2);
            if (params > HK_KERNEL_MAX_PARAMS)
                return -1;
            offset = (offset + 7) / 8 * 8;
            const unsigned long long address = (unsigned long long)(uintptr_t)a->data;
            memcpy(buffer + offset, &address, 8);
            offset += 8;
            memcpy(buffer + offset, a->shape, 8 * (size_t)ndim);
            offset += 8 * (size_t)ndim;
            if (!contiguous) {
                memcpy(buffer + offset, a->strides, 8 * (size_t)ndim);
                offset += 8 * (size_t)ndim;
            }
            continue;
        }
        if (++params > HK_KERNEL_MAX_PARAMS)
            return -1;
        if (code == HKP_JIT_FLOAT64) {
            if (!PyFloat_CheckExact(value))
                return -1;
            const double v = PyFloat_AS_DOUBLE(value);
            offset = (offset + 7) / 8 * 8;
            memcpy(buffer + offset, &v, 8);
            offset += 8;
            continue;
        }
        if (code > HK_ARG_BOOL || code == HK_ARG_POINTER)
            return -1;
        const size_t size = sizes[code];
        offset = (offset + size - 1) / size * size;
        if (!put(code, value, buffer + offset))
            return -1;
        offset += size;
    }
    return ai == nargs ? (Py_ssize_t)offset : -1;
}

/* jit_launch(kernel, grid, block, args, sig, shared_mem, stream) -> hk_status, or -1 when the call is
 * not one handled here (arguments of another specialisation, an unusual grid, ...): as launch(), with
 * the arguments packed by pack_jit. */
static PyObject *jit_launch(PyObject *self, PyObject *const *argv, Py_ssize_t argc)
{
    (void)self;
    return launch_packed_by(argv, argc, pack_jit);
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


PyMethodDef hkp_launch_methods_module[] = {
    {"launch", (PyCFunction)(void (*)(void))launch, METH_FASTCALL, "Packed kernel launch (see launch.c)."},
    {"pack", (PyCFunction)(void (*)(void))pack_only, METH_FASTCALL, "The packed arguments (for tests)."},
    {"jit_launch", (PyCFunction)(void (*)(void))jit_launch, METH_FASTCALL,
     "@hipkit.jit's launch of one specialisation (see launch.c)."},
    {NULL, NULL, 0, NULL},
};

int hkp_launch_ready(void)
{
    address_name = PyUnicode_InternFromString("_hk_address");
    return address_name ? 0 : -1;
}
