/* matmul_internal.h: what the matmul family's host files share: src/matmul.c validates and lays out
 * the problem, src/matmul_gpu.c runs it on the GPU (the backend table's matmul and take entries). */
#ifndef HIPKIT_MATMUL_INTERNAL_H
#define HIPKIT_MATMUL_INTERNAL_H

#include "../hip_kernels/index/index.h"
#include "../hip_kernels/matmul/matmul.h"
#include "internal.h"

/* out = a @ b as `args` describes it; use_vendor: cuBLAS / rocBLAS (k == 0 always runs the own kernel,
 * which writes the zeros), else hipkit's kernel. `stream` is the vendor stream. */
hk_status hk__gpu_matmul(const char *fn, void *stream, const hkk_matmul_args *args, int use_vendor);

/* numpy.take as `args` describes it; RAISE checks the indices first and waits for `stream`. `axis`
 * (the caller's, normalised) only names the axis in the error message. */
hk_status hk__gpu_take(const char *fn, void *stream, const hkk_take_args *args, int axis);

/* RAISE mode's index check of hk_take and hk_put (issue 5): runs the check kernel over the indices
 * described by args (indices, axis_size and the idx_* layout), waits for `stream`, and fails with
 * HK_ERROR_INVALID_ARGUMENT naming the first index outside [-axis_size, axis_size) ("index 7 is out of
 * bounds for axis `axis` with size 5"), or returns HK_SUCCESS. */
hk_status hk__take_check_indices(const char *fn, void *stream, const hkk_take_args *args, int axis);

/* Whole rows copied as wider units (take and put): the widest power-of-two width in (item,
 * max_width] that divides the last extent, axis_stride and every other stride of a and b (all in
 * elements), with both pointers aligned to it. When one fits, rescales shape[ndim - 1], *count,
 * *axis_stride and the strides of a and b to units of that width and returns it in bytes; else
 * returns 0 and changes nothing. The caller has checked that the last dimension is contiguous. */
int hk__widen_units(int ndim, int64_t *shape, int64_t *count, int64_t *axis_stride, int64_t *a_strides,
                    int64_t *b_strides, const void *a, const void *b, size_t item, size_t max_width);

/* Drop extent-1 dimensions, then merge neighbours that each of the `arrays` stride lists walks as one
 * (strides[a][k] * shape[k] == strides[a][k - 1]); in place. Returns the new ndim (0: one element). */
int hk__matmul_coalesce(int ndim, int64_t *shape, int64_t *const *strides, int arrays);

#endif
