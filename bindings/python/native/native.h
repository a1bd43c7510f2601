/* native.h: hipkit._native, the Python binding's C core (declarations shared by its files).
 *
 *   array.c        hipkit.ndarray's base type: the array's metadata in C fields, views made in C
 *   elementwise.c  the op table's elementwise functions and operators: promotion, broadcasting,
 *                  output allocation and the launch, in C
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

#define HKP_DTYPES 10 /* hk_dtype HK_BOOL .. HK_FLOAT64 */

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
    int exiting; /* interpreter exit: memory is left to the process exit */
} hkp_config;

extern hkp_config hkp;

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

/* `size` hk_dtype codes from a bytes object of that length into out (255: -1, refused); 0 if it is not one. */
int hkp_dtype_table(PyObject *bytes, signed char *out, Py_ssize_t size);

/* None -> the default stream (NULL, *ok = 1); a hipkit.Stream -> its handle (its _hk_stream); else *ok = 0. */
void *hkp_stream_handle(PyObject *stream, int *ok);

/* Module parts (each file's own functions and types). */
int hkp_array_ready(PyObject *module);
int hkp_elementwise_ready(PyObject *module);
extern PyMethodDef hkp_array_methods_module[];
extern PyMethodDef hkp_elementwise_methods_module[];
extern PyMethodDef hkp_launch_methods_module[];

#endif
