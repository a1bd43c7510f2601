/* gpu_ops.c: the GPU kind's op families that are one launch of the built-in kernels (hip_kernels/),
 * with the scratch the caller took for them. */
#include "../../hip_kernels/elementwise/elementwise.h"
#include "../../hip_kernels/kernels_reduce.h"
#include "kinds/gpu_internal.h"

hk_status hk__gpu_fill(const char *fn, void *stream, hk_dtype dtype, void *dst, size_t n, const void *value)
{
    hkk_launch l = hk__gpu_launch(stream);
    return hk__gpu_check(fn, hkk_fill(&l, dtype, dst, n, value), "launching the fill kernel");
}

hk_status hk__gpu_iota(const char *fn, void *stream, hk_dtype dtype, void *dst, size_t n, const void *start,
                       const void *step)
{
    hkk_launch l = hk__gpu_launch(stream);
    return hk__gpu_check(fn, hkk_iota(&l, dtype, dst, n, start, step), "launching the iota kernel");
}

hk_status hk__gpu_axpy(const char *fn, void *stream, hk_dtype dtype, size_t n, const void *alpha, const void *x,
                       void *y)
{
    hkk_launch l = hk__gpu_launch(stream);
    return hk__gpu_check(fn, hkk_axpy(&l, dtype, n, alpha, x, y), "launching the axpy kernel");
}

hk_status hk__gpu_binary(const char *fn, void *stream, hk_binary_op op, hk_dtype dtype, size_t n, const void *a,
                         const void *b, void *out)
{
    hkk_launch l = hk__gpu_launch(stream);
    return hk__gpu_check(fn, hkk_binary(&l, op, dtype, n, a, b, out), "launching the elementwise kernel");
}

size_t hk__gpu_sum_scratch_bytes(hk_dtype dtype, size_t n)
{
    hkk_launch l = hk__gpu_launch(NULL);
    return hkk_sum_scratch_bytes(&l, dtype, n);
}

hk_status hk__gpu_sum(const char *fn, void *stream, hk_dtype dtype, size_t n, const void *x, void *scratch,
                      void *result)
{
    hkk_launch l = hk__gpu_launch(stream);
    return hk__gpu_check(fn, hkk_sum(&l, dtype, n, x, scratch, result), "launching the sum kernels");
}

hk_status hk__gpu_random_numbers(const char *fn, void *stream, hk_dtype dtype, int normal, void *dst, size_t n,
                                 uint64_t seed, uint64_t offset, double a, double b)
{
    hkk_launch l = hk__gpu_launch(stream);
    return hk__gpu_check(fn, hkk_random(&l, dtype, normal, dst, n, seed, offset, a, b), "launching the random kernel");
}

hk_status hk__gpu_copy_array(const char *fn, void *stream, hk_dtype src_dtype, hk_dtype dst_dtype, const void *src,
                             void *dst, size_t n, const hkk_layout *layout)
{
    hkk_launch l = hk__gpu_launch(stream);
    return hk__gpu_check(fn, hkk_copy_array(&l, src_dtype, dst_dtype, src, dst, n, layout),
                         "launching the copy kernel");
}

hk_status hk__gpu_elementwise(const char *fn, void *stream, const hkk_ew_call *call)
{
    hkk_launch l = hk__gpu_launch(stream);
    return hk__gpu_check(fn, hkk_elementwise(&l, call), "launching the elementwise kernel");
}

size_t hk__gpu_reduce_scratch_bytes(hk_reduce_op op, hk_dtype in_dtype, const void *in, const hkk_reduce_layout *layout)
{
    hkk_launch l = hk__gpu_launch(NULL);
    return hkk_reduce_scratch_bytes(&l, op, in_dtype, in, layout);
}

hk_status hk__gpu_reduce(const char *fn, void *stream, hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out,
                         const hkk_reduce_layout *layout, int ddof, void *scratch)
{
    hkk_launch l = hk__gpu_launch(stream);
    return hk__gpu_check(fn, hkk_reduce(&l, op, in_dtype, in, out, scratch, layout, ddof),
                         "launching the reduction kernels");
}
