/* random.c: the random-number entry points (Philox4x32-10; hipkit.h defines
 * which bits each element gets): validate dtype, parameters, pointer and
 * stream, as the other op families do, then the kind's random_numbers. */
#include <float.h>
#include <math.h>

#include "core/device.h"
#include "core/handles.h"
#include "kinds/kind.h"

static hk_status check_dtype(const char *fn, hk_dtype dtype)
{
    if ((unsigned)dtype >= HK_DTYPE_COUNT)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "dtype %d is not a hk_dtype (0..%d)", (int)dtype,
                        (int)HK_DTYPE_COUNT - 1);
    if (dtype != HK_FLOAT32 && dtype != HK_FLOAT64)
        return hk__fail(HK_ERROR_NOT_SUPPORTED, fn,
                        "dtype %s is not supported by random numbers (supported: float32, float64)",
                        hk_dtype_name(dtype));
    return HK_SUCCESS;
}

/* A parameter the kernel rounds to the element type: finite, and finite there. */
static hk_status check_parameter(const char *fn, const char *name, double value, hk_dtype dtype)
{
    if (!isfinite(value))
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s is %g; it must be a finite number", name, value);
    if (dtype == HK_FLOAT32 && fabs(value) > FLT_MAX)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s (%g) is beyond float32's largest finite value (%g)", name,
                        value, (double)FLT_MAX);
    return HK_SUCCESS;
}

/* low <= high, and high - low (subtracted in the element type, as the kernel
 * does) finite. */
static hk_status check_interval(const char *fn, double low, double high, hk_dtype dtype)
{
    if (low > high)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "low (%.17g) is greater than high (%.17g)", low, high);
    const double span = dtype == HK_FLOAT32 ? (double)((float)high - (float)low) : high - low;
    if (!isfinite(span))
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "high - low (%.17g - %.17g) overflows %s", high, low,
                        hk_dtype_name(dtype));
    return HK_SUCCESS;
}

/* dst for n elements: present, aligned, inside the address space. */
static hk_status check_dst(const char *fn, const void *dst, hk_dtype dtype, size_t n)
{
    const size_t size = dtype == HK_FLOAT32 ? 4 : 8;
    size_t bytes;
    if (hk__mul_overflows(n, size, &bytes) || (uintptr_t)dst > UINTPTR_MAX - bytes)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "dst: %zu elements of %s overflow the address space", n,
                        hk_dtype_name(dtype));
    if (!dst)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "dst is NULL but n is %zu", n);
    if ((uintptr_t)dst % size)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "dst (%p) is not aligned to its element size (%zu bytes)", dst,
                        size);
    return HK_SUCCESS;
}

/* Pointer, then stream (a stale one is an error even for n == 0), then a GPU. */
static hk_status generate(const char *fn, int normal, void *dst, hk_dtype dtype, size_t n, uint64_t seed,
                          uint64_t offset, double a, double b, hk_stream stream)
{
    if (n)
        HK_TRY(check_dst(fn, dst, dtype, n));
    void *vendor_stream = NULL;
    if (stream)
        HK_TRY(hk__resolve_stream(fn, stream, &vendor_stream));
    if (n == 0)
        return hk__ok();
    HK_TRY(hk__require_device(fn));
    hk_status s = hk__kind_current()->random_numbers(fn, vendor_stream, dtype, normal, dst, n, seed, offset, a, b);
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_random_uniform(void *dst, hk_dtype dtype, size_t n, uint64_t seed, uint64_t offset, double low,
                            double high, hk_stream stream)
{
    static const char fn[] = "hk_random_uniform";
    HK_TRY(check_dtype(fn, dtype));
    HK_TRY(check_parameter(fn, "low", low, dtype));
    HK_TRY(check_parameter(fn, "high", high, dtype));
    HK_TRY(check_interval(fn, low, high, dtype));
    return generate(fn, 0, dst, dtype, n, seed, offset, low, high, stream);
}

hk_status hk_random_normal(void *dst, hk_dtype dtype, size_t n, uint64_t seed, uint64_t offset, double mean,
                           double stddev, hk_stream stream)
{
    static const char fn[] = "hk_random_normal";
    HK_TRY(check_dtype(fn, dtype));
    HK_TRY(check_parameter(fn, "mean", mean, dtype));
    HK_TRY(check_parameter(fn, "stddev", stddev, dtype));
    if (stddev < 0)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "stddev is %g; it must not be negative", stddev);
    return generate(fn, 1, dst, dtype, n, seed, offset, mean, stddev, stream);
}
