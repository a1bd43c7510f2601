/* backend.c: the op-family calls of ops.c and elementwise.c over the current kind's table. */
#include "ops/backend.h"
#include "ops/scratch.h"

static hk_status fill(const char *fn, void *stream, hk_dtype dtype, void *dst, size_t n, const void *value)
{
    return hk__kind_current()->fill(fn, stream, dtype, dst, n, value);
}

static hk_status iota(const char *fn, void *stream, hk_dtype dtype, void *dst, size_t n, const void *start,
                      const void *step)
{
    return hk__kind_current()->iota(fn, stream, dtype, dst, n, start, step);
}

static hk_status axpy(const char *fn, void *stream, hk_dtype dtype, size_t n, const void *alpha, const void *x, void *y)
{
    return hk__kind_current()->axpy(fn, stream, dtype, n, alpha, x, y);
}

static hk_status binary(const char *fn, void *stream, hk_binary_op op, hk_dtype dtype, size_t n, const void *a,
                        const void *b, void *out)
{
    return hk__kind_current()->binary(fn, stream, op, dtype, n, a, b, out);
}

static hk_status sum(const char *fn, void *stream, hk_dtype dtype, size_t n, const void *x, void *result)
{
    const hk__kind *kind = hk__kind_current();
    void *scratch;
    HK_TRY(hk__scratch_alloc(fn, &scratch, kind->sum_scratch_bytes(dtype, n), stream));
    return hk__scratch_free(fn, scratch, stream, kind->sum(fn, stream, dtype, n, x, scratch, result));
}

static hk_status elementwise(const char *fn, void *stream, const struct hkk_ew_call *call)
{
    return hk__kind_current()->elementwise(fn, stream, call);
}

static const hk__backend calls = {
    .fill = fill,
    .iota = iota,
    .axpy = axpy,
    .binary = binary,
    .sum = sum,
    .elementwise = elementwise,
};

const hk__backend *hk__backend_current(void)
{
    return &calls;
}
