/* module.c: hipkit._native, the module: what Python hands C once (configure), streams, the
 * current device, interpreter exit. The parts are listed in native.h. */
#include <string.h>

#include "native.h"

int hkp_launch_ready(void);

static PyObject *stream_name; /* "_hk_stream", interned: a hipkit.Stream's handle as an int */

void *hkp_stream_handle(PyObject *stream, int *ok)
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

int hkp_dtype_table(PyObject *bytes, signed char *out, Py_ssize_t size)
{
    if (!PyBytes_CheckExact(bytes) || PyBytes_GET_SIZE(bytes) != size)
        return 0;
    memcpy(out, PyBytes_AS_STRING(bytes), (size_t)size);
    for (Py_ssize_t i = 0; i < size; i++)
        if (out[i] >= HKP_DTYPES)
            return 0;
    return 1;
}

/* configure(ndarray, np_dtypes, promote, weak, make_pointer, dtype_codes, host_empty): the ndarray class C makes (a
 * subclass of ArrayBase), the ten numpy.dtypes by hk_dtype code, NumPy 2's promotion of two array dtypes
 * (100 bytes, [a * 10 + b]), a Python bool/int/float's effect on an array's dtype (30 bytes, [d * 3 +
 * kind]), address -> cffi void *, a dict of the common spellings of dtype= to codes, and numpy.empty. The tables are
 * hipkit._dtypes's rules, worked out once in Python. */
static PyObject *configure(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    (void)module;
    if (argc != 7 || !PyType_Check(argv[0]) || !PyType_IsSubtype((PyTypeObject *)argv[0], &hkp_array_type) ||
        !PyTuple_Check(argv[1]) || PyTuple_GET_SIZE(argv[1]) != HKP_DTYPES || !PyCallable_Check(argv[4]) ||
        !PyDict_CheckExact(argv[5]) || !PyCallable_Check(argv[6])) {
        PyErr_SetString(PyExc_TypeError,
                        "configure(ndarray, np_dtypes, promote, weak, make_pointer, dtype_codes, host_empty)");
        return NULL;
    }
    if (!hkp_dtype_table(argv[2], &hkp.promote[0][0], HKP_DTYPES * HKP_DTYPES) ||
        !hkp_dtype_table(argv[3], &hkp.weak[0][0], HKP_DTYPES * 3)) {
        PyErr_SetString(PyExc_ValueError, "configure: promote is 100 bytes, weak 30 bytes of hk_dtype codes");
        return NULL;
    }
    Py_XSETREF(hkp.ndarray, (PyTypeObject *)Py_NewRef(argv[0]));
    for (int d = 0; d < HKP_DTYPES; d++)
        Py_XSETREF(hkp.np_dtypes[d], Py_NewRef(PyTuple_GET_ITEM(argv[1], d)));
    Py_XSETREF(hkp.make_pointer, Py_NewRef(argv[4]));
    Py_XSETREF(hkp.dtype_codes, Py_NewRef(argv[5]));
    Py_XSETREF(hkp.host_empty, Py_NewRef(argv[6]));
    Py_RETURN_NONE;
}

unsigned long long hkp_handed_on;

PyObject *hkp_hand_on(hkp_callable *c, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    hkp_handed_on++;
    return PyObject_Vectorcall(c->fallback, args, nargsf, kwnames);
}

void hkp_callable_init(hkp_callable *c, vectorcallfunc call, PyObject *fallback)
{
    c->vectorcall = call;
    c->fallback = Py_NewRef(fallback);
    c->dict = NULL;
}

PyObject *hkp_callable_repr(PyObject *self)
{
    hkp_callable *c = (hkp_callable *)self;
    PyObject *name = c->dict ? PyDict_GetItemString(c->dict, "__name__") : NULL;
    if (name)
        return PyUnicode_FromFormat("<hipkit function %S>", name);
    return PyUnicode_FromString("<hipkit function>");
}

/* Bound as a method (ndarray.sum, ndarray.__add__): self becomes the first argument. */
PyObject *hkp_callable_get(PyObject *self, PyObject *instance, PyObject *owner)
{
    (void)owner;
    if (!instance)
        return Py_NewRef(self);
    return PyMethod_New(self, instance);
}

int hkp_callable_traverse(PyObject *self, visitproc visit, void *arg)
{
    hkp_callable *c = (hkp_callable *)self;
    Py_VISIT(c->fallback);
    Py_VISIT(c->dict);
    return 0;
}

int hkp_callable_clear(PyObject *self)
{
    hkp_callable *c = (hkp_callable *)self;
    Py_CLEAR(c->fallback);
    Py_CLEAR(c->dict);
    return 0;
}

void hkp_callable_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    hkp_callable_clear(self);
    Py_TYPE(self)->tp_free(self);
}

PyGetSetDef hkp_callable_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *n_axis_name, *n_stream_name;

int hkp_axis_arguments(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject *default_axis,
                       PyObject **axis, PyObject **stream, hkp_extra_keyword extra, void *state)
{
    *axis = nargs >= 2 ? args[1] : default_axis;
    *stream = Py_None;
    int ok = nargs >= 1 && nargs <= 2;
    for (Py_ssize_t i = 0; ok && kwnames && i < PyTuple_GET_SIZE(kwnames); i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i), *value = args[nargs + i];
        if (name == n_axis_name && nargs < 2)
            *axis = value;
        else if (name == n_stream_name)
            *stream = value;
        else
            ok = extra(name, value, state); /* other spellings (not interned) and values: Python */
    }
    return ok;
}

/* fallback_count() -> how many calls C has handed to the Python path so far (for tests: a common call
 * must not be one of them). */
static PyObject *fallback_count(PyObject *module, PyObject *unused)
{
    (void)module, (void)unused;
    return PyLong_FromUnsignedLongLong(hkp_handed_on);
}

/* exiting(): from now on arrays leave their memory to the process exit. */
static PyObject *set_exiting(PyObject *module, PyObject *unused)
{
    (void)module, (void)unused;
    hkp.exiting = 1;
    Py_RETURN_NONE;
}

int hkp_settle_slow(void)
{
    hkp.lazy_pending = 0; /* the flush itself runs ops through these entries */
    if (!hkp.lazy_flush)
        return 0;
    PyObject *r = PyObject_CallNoArgs(hkp.lazy_flush);
    if (!r)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* lazy_configure(record, flush): lazy mode's two functions (hipkit/_lazy.py), once. */
static PyObject *lazy_configure(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    (void)module;
    if (argc != 2 || !PyCallable_Check(argv[0]) || !PyCallable_Check(argv[1])) {
        PyErr_SetString(PyExc_TypeError, "lazy_configure(record, flush)");
        return NULL;
    }
    Py_XSETREF(hkp.lazy_record, Py_NewRef(argv[0]));
    Py_XSETREF(hkp.lazy_flush, Py_NewRef(argv[1]));
    Py_RETURN_NONE;
}

/* lazy_state(threads, pending): how many threads record, and whether anything waits to run. */
static PyObject *lazy_state(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    (void)module;
    if (argc != 2 || !PyLong_Check(argv[0]) || !PyLong_Check(argv[1])) {
        PyErr_SetString(PyExc_TypeError, "lazy_state(threads, pending)");
        return NULL;
    }
    int threads = (int)PyLong_AsLong(argv[0]), pending = (int)PyLong_AsLong(argv[1]);
    if (PyErr_Occurred())
        return NULL;
    hkp.lazy_threads = threads > 0 && hkp.lazy_record ? threads : 0;
    hkp.lazy_pending = pending != 0 && hkp.lazy_flush;
    Py_RETURN_NONE;
}

/* settle(): runs what lazy mode holds, if anything (before a synchronisation). */
static PyObject *settle(PyObject *module, PyObject *unused)
{
    (void)module, (void)unused;
    if (hkp_settle() < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* current_device() -> the calling thread's hipkit device (hk_device_get), without cffi's box and call
 * (about 0.5 us on a slow host). */
static PyObject *current_device(PyObject *module, PyObject *unused)
{
    (void)module, (void)unused;
    int device = 0;
    (void)hk_device_get(&device); /* cannot fail with a non-NULL argument */
    return PyLong_FromLong(device);
}

static PyMethodDef methods[] = {
    {"configure", (PyCFunction)(void (*)(void))configure, METH_FASTCALL,
     "configure(ndarray, np_dtypes, promote, weak, make_pointer, dtype_codes, host_empty): what C needs of Python, "
     "once."},
    {"exiting", set_exiting, METH_NOARGS, "Interpreter exit: arrays' memory is left to the process exit."},
    {"fallback_count", fallback_count, METH_NOARGS, "Calls handed to the Python path so far (tests)."},
    {"current_device", current_device, METH_NOARGS, "The calling thread's hipkit device (hk_device_get)."},
    {"settle", settle, METH_NOARGS, "Runs what lazy mode holds, if anything."},
    {"lazy_configure", (PyCFunction)(void (*)(void))lazy_configure, METH_FASTCALL,
     "lazy_configure(record, flush): lazy mode's functions (hipkit/_lazy.py)."},
    {"lazy_state", (PyCFunction)(void (*)(void))lazy_state, METH_FASTCALL,
     "lazy_state(threads, pending): threads recording elementwise ops; whether recorded ops wait to run."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "hipkit._native",
                                        "hipkit's Python binding in C (bindings/python/native/native.h)", -1,
                                        methods, NULL, NULL, NULL, NULL};

static int add_functions(PyObject *module, PyMethodDef *defs)
{
    return PyModule_AddFunctions(module, defs);
}

PyMODINIT_FUNC PyInit__native(void)
{
    stream_name = PyUnicode_InternFromString("_hk_stream");
    n_axis_name = PyUnicode_InternFromString("axis");
    n_stream_name = PyUnicode_InternFromString("stream");
    if (!stream_name || !n_axis_name || !n_stream_name || hkp_launch_ready() < 0)
        return NULL;
    PyObject *module = PyModule_Create(&module_def);
    if (!module)
        return NULL;
    if (hkp_array_ready(module) < 0 || hkp_elementwise_ready(module) < 0 || hkp_reduce_ready() < 0 || hkp_creation_ready() < 0 || hkp_matmul_ready() < 0 || hkp_scan_ready() < 0 ||
        add_functions(module, hkp_array_methods_module) < 0 || add_functions(module, hkp_elementwise_methods_module) < 0 ||
        add_functions(module, hkp_reduce_methods_module) < 0 ||
        add_functions(module, hkp_creation_methods_module) < 0 || add_functions(module, hkp_matmul_methods_module) < 0 ||
        add_functions(module, hkp_scan_methods_module) < 0 || add_functions(module, hkp_launch_methods_module) < 0 ||
        PyModule_AddIntConstant(module, "MAX_DIMS", HK_MAX_DIMS) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
