/* gpu_ops.c: the GPU kind's op families that are one launch of the built-in kernels (hip_kernels/),
 * with the scratch the caller took for them. */
#include "../../hip_kernels/copy/copy.h"
#include "../../hip_kernels/elementwise/elementwise.h"
#include "../../hip_kernels/random/random.h"
#include "../../hip_kernels/reduce/reduce.h"
#include "kinds/gpu_internal.h"

hk_status hk__gpu_iota(const char *fn, void *stream, hk_dtype dtype, void *out, int64_t stride, size_t n,
                       const void *start, const void *step)
{
    hkk_launch l = hk__gpu_launch(stream);
    return hk__gpu_check(fn, hkk_iota(&l, dtype, out, stride, n, start, step), "launching the iota kernel");
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

/* The sum of a whole contiguous float32/float64 array of more than 2^16 elements runs the single-pass kernel
 * of hip_kernels/reduce/whole_sum.hip (16-byte loads, one partial per block, one block over the partials): on the
 * H200 it is 3-5 % quicker at 2^27-2^28 elements and 22 % at 2^20 than the general two-pass reduction,
 * which is quicker at 1000 elements (reduce/sum time 1.03, 1.05, 1.29 and 0.77 measured side by side). */
static bool whole_float_sum(hk_reduce_op op, hk_dtype dtype, const hkk_reduce_layout *layout)
{
    return op == HK_REDUCE_SUM && (dtype == HK_FLOAT32 || dtype == HK_FLOAT64) && layout->outputs == 1 &&
           layout->kept_ndim == 0 && layout->red_ndim == 1 && layout->red_in[0] == 1 && layout->count > 65536;
}

size_t hk__gpu_reduce_scratch_bytes(hk_reduce_op op, hk_dtype in_dtype, const void *in, const hkk_reduce_layout *layout)
{
    hkk_launch l = hk__gpu_launch(NULL);
    if (whole_float_sum(op, in_dtype, layout))
        return hkk_whole_sum_scratch_bytes(&l, in_dtype, (size_t)layout->count);
    return hkk_reduce_scratch_bytes(&l, op, in_dtype, in, layout);
}

hk_status hk__gpu_reduce(const char *fn, void *stream, hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out,
                         const hkk_reduce_layout *layout, int ddof, void *scratch)
{
    hkk_launch l = hk__gpu_launch(stream);
    if (whole_float_sum(op, in_dtype, layout))
        return hk__gpu_check(fn, hkk_whole_sum(&l, in_dtype, (size_t)layout->count, in, scratch, out),
                             "launching the sum kernels");
    return hk__gpu_check(fn, hkk_reduce(&l, op, in_dtype, in, out, scratch, layout, ddof),
                         "launching the reduction kernels");
}
