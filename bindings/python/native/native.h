/* native.h: hipkit._native, the Python binding's C core (declarations shared by its files).
 *
 *   array.c        hipkit.ndarray's base type: the array's metadata in C fields, views made in C
 *   elementwise.c  the op table's elementwise functions and operators: promotion, broadcasting,
 *                  output allocation and the launch, in C
 *   creation.c     empty, zeros, ones, full
 *   matmul.c       matmul and @
 *   scan.c         cumsum and cumprod, sort and argsort
 *   reduce.c       the reductions (sum, prod, mean, min, max, any, all, argmin, argmax) over axes
 *   launch.c       RawKernel launches: arguments packed straight into hk_kernel_launch_packed's layout
 *   module.c       the module: configure() (what Python hands C once), streams, the current device
 *
 * The rule of the whole module: C does the common case completely; whatever it does not
 * handle, it hands unchanged to the Python function behind it (the "fallback"), which does
 * every case or raises the precise error. C never raises for a user's bad argument itself. */
#ifndef HIPKIT_NATIVE_H
#define HIPKIT_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "hipkit/hipkit.h"

#define HKP_DTYPES HK_DTYPE_COUNT /* hk_dtype HK_BOOL .. HK_COMPLEX128 */

/* An array: hipkit.ndarray is a Python subclass of this type (its methods in Python, its data here). */
typedef struct {
    PyObject_HEAD char *data; /* address of the view's first element (NULL for no bytes) */
    int64_t offset;           /* elements from the owner's first element to this view's */
    int64_t size;             /* elements */
    int64_t shape[HK_MAX_DIMS];
    int64_t strides[HK_MAX_DIMS]; /* in elements, as hk_array's */
    int ndim, dtype, itemsize, device;
    int contiguous; /* C-contiguous (NumPy's flag: length-1 dimensions' strides do not count) */
    int own;        /* frees data with hk_free when collected */
    PyObject *np_dtype;             /* the numpy.dtype */
    PyObject *base;                 /* the owner of a view's memory, or NULL */
    PyObject *shape_tuple, *strides_tuple, *cdata; /* made on first use */
} hkp_array;

extern PyTypeObject hkp_array_type;

/* What Python hands C once (configure()): the ndarray class that C makes, numpy dtypes by code,
 * NumPy 2's promotion of two array dtypes, a Python scalar's effect on an array's dtype, and the
 * function that makes a cffi pointer. */
typedef struct {
    PyTypeObject *ndarray;
    PyObject *np_dtypes[HKP_DTYPES];
    signed char promote[HKP_DTYPES][HKP_DTYPES]; /* result_type(a, b), hk_dtype codes */
    signed char weak[HKP_DTYPES][3];             /* result_type(array of d, True / 1 / 1.0) */
    PyObject *make_pointer;                      /* address (int) -> cffi void * */
    PyObject *dtype_codes;                       /* what dtype= may be (np.dtype, np.float32, "float32", float) -> code */
    PyObject *host_empty;                        /* numpy.empty: the host arrays get() makes */
    int exiting; /* interpreter exit: memory is left to the process exit */
    /* Lazy mode (hipkit/_lazy.py): lazy_threads, how many threads record elementwise ops (then every
     * elementwise call asks lazy_record first); lazy_pending, whether recorded ops wait to run (then every
     * other entry that reads or writes array data calls lazy_flush first: hkp_settle). */
    int lazy_threads, lazy_pending;
    PyObject *lazy_record, *lazy_flush;
} hkp_config;

extern hkp_config hkp;

/* Runs what lazy mode has recorded (lazy_flush); -1 with a Python error set when that fails. */
int hkp_settle_slow(void);
/* Every entry here that reads or writes array data, and is not an elementwise op being recorded, calls
 * this first: then ops run in the order the program issued them, as without lazy mode. */
static inline int hkp_settle(void)
{
    return hkp.lazy_pending ? hkp_settle_slow() : 0;
}

static inline int hkp_is_array(PyObject *o)
{
    return PyObject_TypeCheck(o, &hkp_array_type);
}

/* A new C-contiguous array of `dtype` on `device` (current), from hk_malloc, owning its memory; NULL with
 * a Python error set, or NULL without one when hk_malloc failed (the caller's fallback reports it). */
PyObject *hkp_new_array(int ndim, const int64_t *shape, int dtype, int device);
/* The hk_array describing `a`. */
void hkp_describe(const hkp_array *a, hk_array *out);
/* NumPy's C_CONTIGUOUS rule over element strides. */
int hkp_is_c_contiguous(int ndim, const int64_t *shape, const int64_t *strides);
/* The first and one-past-last byte addresses a view touches (lo == hi: none). */
void hkp_extent(const hkp_array *a, uintptr_t *lo, uintptr_t *hi);

/* The head of every callable here that does the common calls of a Python function in C and hands the
 * rest to that function (`fallback`, its __wrapped__). Its type's shared slots are hkp_callable_*. */
typedef struct {
    PyObject_HEAD vectorcallfunc vectorcall;
    PyObject *fallback;
    PyObject *dict; /* __name__, __doc__, __wrapped__ ... (functools.update_wrapper) */
} hkp_callable;

/* The calls handed to the Python path so far (fallback_count(): tests). */
extern unsigned long long hkp_handed_on;

/* The fallback called with the same arguments (and counted). */
PyObject *hkp_hand_on(hkp_callable *c, PyObject *const *args, size_t nargsf, PyObject *kwnames);
/* Initialises a callable's head: its vectorcall and fallback (GC-tracked by the caller after). */
void hkp_callable_init(hkp_callable *c, vectorcallfunc call, PyObject *fallback);

/* A type of such callables: the slots they share (repr, method binding, GC, __dict__). */
#define HKP_CALLABLE_TYPE(variable, type_name, object, doc)                                                           \
    static PyTypeObject variable = {                                                                                  \
        PyVarObject_HEAD_INIT(NULL, 0).tp_name = type_name,                                                           \
        .tp_basicsize = sizeof(object),                                                                               \
        .tp_dealloc = hkp_callable_dealloc,                                                                           \
        .tp_vectorcall_offset = offsetof(hkp_callable, vectorcall),                                                   \
        .tp_call = PyVectorcall_Call,                                                                                 \
        .tp_repr = hkp_callable_repr,                                                                                 \
        .tp_getattro = PyObject_GenericGetAttr,                                                                       \
        .tp_setattro = PyObject_GenericSetAttr,                                                                       \
        .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |                            \
                    Py_TPFLAGS_METHOD_DESCRIPTOR,                                                                     \
        .tp_doc = doc,                                                                                                \
        .tp_traverse = hkp_callable_traverse,                                                                         \
        .tp_clear = hkp_callable_clear,                                                                               \
        .tp_descr_get = hkp_callable_get,                                                                             \
        .tp_dictoffset = offsetof(hkp_callable, dict),                                                                \
        .tp_getset = hkp_callable_getset,                                                                             \
    }
PyObject *hkp_callable_repr(PyObject *self);
PyObject *hkp_callable_get(PyObject *self, PyObject *instance, PyObject *owner);
int hkp_callable_traverse(PyObject *self, visitproc visit, void *arg);
int hkp_callable_clear(PyObject *self);
void hkp_callable_dealloc(PyObject *self);
extern PyGetSetDef hkp_callable_getset[];

/* Python bool, int, float (exact types): NEP 50's weak scalars. */
enum { SCALAR_BOOL = 0, SCALAR_INT = 1, SCALAR_FLOAT = 2, NOT_SCALAR = 3 };
int hkp_scalar_kind(PyObject *x);
/* The Python scalar x (of that kind) as one element of `dtype` in `slot` (8 bytes); 0 when C does not
 * convert it (float16; an int out of the dtype's range; a float into an integer dtype): the Python path
 * does, or raises OverflowError as NumPy 2 does. Into bool any value converts (true unless zero). */
int hkp_scalar_value(PyObject *x, int kind, int dtype, unsigned char *slot);

/* `size` hk_dtype codes from a bytes object of that length into out (255: -1, refused); 0 if it is not one. */
int hkp_dtype_table(PyObject *bytes, signed char *out, Py_ssize_t size);

/* A keyword other than axis= and stream= that a C path accepts (1) or hands to Python (0). */
typedef int (*hkp_extra_keyword)(PyObject *name, PyObject *value, void *state);
/* The arguments (a, axis=default_axis, ..., stream=None) of the reductions, scans and sorts: `a` and an
 * optional positional axis, keywords axis= and stream=, and what `extra` accepts; 0 for anything else. */
int hkp_axis_arguments(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject *default_axis,
                       PyObject **axis, PyObject **stream, hkp_extra_keyword extra, void *state);

/* None -> the default stream (NULL, *ok = 1); a hipkit.Stream -> its handle (its _hk_stream); else *ok = 0. */
void *hkp_stream_handle(PyObject *stream, int *ok);

/* Module parts (each file's own functions and types). */
int hkp_array_ready(PyObject *module);
int hkp_elementwise_ready(PyObject *module);
int hkp_reduce_ready(void);
int hkp_creation_ready(void);
int hkp_matmul_ready(void);
int hkp_scan_ready(void);
extern PyMethodDef hkp_array_methods_module[];
extern PyMethodDef hkp_elementwise_methods_module[];
extern PyMethodDef hkp_reduce_methods_module[];
extern PyMethodDef hkp_creation_methods_module[];
extern PyMethodDef hkp_matmul_methods_module[];
extern PyMethodDef hkp_scan_methods_module[];
extern PyMethodDef hkp_launch_methods_module[];

#endif
