/* ops.c: the built-in kernels' public entry points: validate dtype, sizes,
 * pointers, overlap and stream, then dispatch to the current device's backend. */
#include "core/device.h"
#include "core/handles.h"
#include "ops/backend.h"

static const size_t dtype_sizes[] = {1, 1, 1, 4, 4, 8, 8, 2, 4, 8};
static const char *const dtype_names[] = {"bool",  "int8",   "uint8",   "int32",   "uint32",
                                          "int64", "uint64", "float16", "float32", "float64"};
#define DTYPE_COUNT (sizeof dtype_sizes / sizeof dtype_sizes[0])

const char *hk_dtype_name(hk_dtype dtype)
{
    return (unsigned)dtype < DTYPE_COUNT ? dtype_names[dtype] : "invalid";
}

hk_status hk_dtype_size(hk_dtype dtype, size_t *bytes)
{
    if (!bytes)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, "hk_dtype_size", "bytes must not be NULL");
    if ((unsigned)dtype >= DTYPE_COUNT)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, "hk_dtype_size", "dtype %d is not a hk_dtype (0..%d)", (int)dtype,
                        (int)DTYPE_COUNT - 1);
    *bytes = dtype_sizes[dtype];
    return hk__ok();
}

enum { ANY_ARITHMETIC, FLOATS_ONLY };

/* dtype known and implemented by this op family */
static hk_status check_dtype(const char *fn, hk_dtype dtype, int allowed)
{
    if ((unsigned)dtype >= DTYPE_COUNT)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "dtype %d is not a hk_dtype (0..%d)", (int)dtype,
                        (int)DTYPE_COUNT - 1);
    bool is_float = dtype == HK_FLOAT32 || dtype == HK_FLOAT64;
    bool is_int = dtype == HK_INT32 || dtype == HK_INT64;
    if (is_float || (is_int && allowed == ANY_ARITHMETIC))
        return HK_SUCCESS;
    return hk__fail(HK_ERROR_NOT_SUPPORTED, fn, "dtype %s is not supported by this operation yet (supported: %s)",
                    dtype_names[dtype], allowed == FLOATS_ONLY ? "float32, float64" : "float32, float64, int32, int64");
}

/* A device array argument of n elements: present, aligned, inside the address space. */
static hk_status check_array(const char *fn, const char *name, const void *p, hk_dtype dtype, size_t n)
{
    size_t bytes;
    if (hk__mul_overflows(n, dtype_sizes[dtype], &bytes) || (uintptr_t)p > UINTPTR_MAX - bytes)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s: %zu elements of %s overflow the address space", name, n,
                        dtype_names[dtype]);
    if (!p)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s is NULL but n is %zu", name, n);
    if ((uintptr_t)p % dtype_sizes[dtype])
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s (%p) is not aligned to its element size (%zu bytes)", name,
                        p, dtype_sizes[dtype]);
    return HK_SUCCESS;
}

static hk_status check_host_value(const char *fn, const char *name, const void *p)
{
    return p ? HK_SUCCESS : hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s must point to one host element", name);
}

/* Outputs may alias an input exactly (in place) but not partially. */
static hk_status check_overlap(const char *fn, const char *in_name, const void *in, const char *out_name,
                               const void *out, size_t bytes)
{
    uintptr_t a = (uintptr_t)in, b = (uintptr_t)out;
    if (a != b && a < b + bytes && b < a + bytes)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "%s and %s overlap without being the same array; use a separate output", in_name, out_name);
    return HK_SUCCESS;
}

/* Stream handle first (a stale one is an error even for n == 0); then, when
 * there is work, a GPU. Sets *skip for n == 0. */
static hk_status begin(const char *fn, hk_stream stream, size_t n, void **vendor_stream, bool *skip)
{
    *vendor_stream = NULL;
    *skip = n == 0;
    if (stream) {
        hk_status s = hk__resolve_stream(fn, stream, vendor_stream);
        if (s != HK_SUCCESS)
            return s;
    }
    return *skip ? HK_SUCCESS : hk__require_gpu(fn);
}

static hk_status finish(hk_status s)
{
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_fill(void *dst, hk_dtype dtype, size_t n, const void *value, hk_stream stream)
{
    static const char fn[] = "hk_fill";
    HK_TRY(check_dtype(fn, dtype, ANY_ARITHMETIC));
    void *vs;
    bool skip;
    if (n) {
        HK_TRY(check_array(fn, "dst", dst, dtype, n));
        HK_TRY(check_host_value(fn, "value", value));
    }
    HK_TRY(begin(fn, stream, n, &vs, &skip));
    return skip ? hk__ok() : finish(hk__backend_current()->fill(fn, vs, dtype, dst, n, value));
}

hk_status hk_iota(void *dst, hk_dtype dtype, size_t n, const void *start, const void *step, hk_stream stream)
{
    static const char fn[] = "hk_iota";
    HK_TRY(check_dtype(fn, dtype, ANY_ARITHMETIC));
    void *vs;
    bool skip;
    if (n) {
        HK_TRY(check_array(fn, "dst", dst, dtype, n));
        HK_TRY(check_host_value(fn, "start", start));
        HK_TRY(check_host_value(fn, "step", step));
    }
    HK_TRY(begin(fn, stream, n, &vs, &skip));
    return skip ? hk__ok() : finish(hk__backend_current()->iota(fn, vs, dtype, dst, n, start, step));
}

hk_status hk_axpy(hk_dtype dtype, size_t n, const void *alpha, const void *x, void *y, hk_stream stream)
{
    static const char fn[] = "hk_axpy";
    HK_TRY(check_dtype(fn, dtype, ANY_ARITHMETIC));
    void *vs;
    bool skip;
    if (n) {
        HK_TRY(check_host_value(fn, "alpha", alpha));
        HK_TRY(check_array(fn, "x", x, dtype, n));
        HK_TRY(check_array(fn, "y", y, dtype, n));
        HK_TRY(check_overlap(fn, "x", x, "y", y, n * dtype_sizes[dtype]));
    }
    HK_TRY(begin(fn, stream, n, &vs, &skip));
    return skip ? hk__ok() : finish(hk__backend_current()->axpy(fn, vs, dtype, n, alpha, x, y));
}

hk_status hk_binary(hk_binary_op op, hk_dtype dtype, size_t n, const void *a, const void *b, void *out,
                    hk_stream stream)
{
    static const char fn[] = "hk_binary";
    if ((unsigned)op > HK_DIVIDE)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "op %d is not a hk_binary_op (0..%d)", (int)op, HK_DIVIDE);
    HK_TRY(check_dtype(fn, dtype, ANY_ARITHMETIC));
    void *vs;
    bool skip;
    if (n) {
        HK_TRY(check_array(fn, "a", a, dtype, n));
        HK_TRY(check_array(fn, "b", b, dtype, n));
        HK_TRY(check_array(fn, "out", out, dtype, n));
        HK_TRY(check_overlap(fn, "a", a, "out", out, n * dtype_sizes[dtype]));
        HK_TRY(check_overlap(fn, "b", b, "out", out, n * dtype_sizes[dtype]));
    }
    HK_TRY(begin(fn, stream, n, &vs, &skip));
    return skip ? hk__ok() : finish(hk__backend_current()->binary(fn, vs, op, dtype, n, a, b, out));
}

hk_status hk_sum(hk_dtype dtype, size_t n, const void *x, void *result, hk_stream stream)
{
    static const char fn[] = "hk_sum";
    HK_TRY(check_dtype(fn, dtype, FLOATS_ONLY));
    HK_TRY(check_array(fn, "result_device", result, dtype, 1));
    if (n) {
        HK_TRY(check_array(fn, "x", x, dtype, n));
        uintptr_t r = (uintptr_t)result, first = (uintptr_t)x, bytes = n * dtype_sizes[dtype];
        if (r < first + bytes && first < r + dtype_sizes[dtype])
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "result_device lies inside x; use a separate output");
    }
    void *vs;
    bool skip;
    HK_TRY(begin(fn, stream, 1, &vs, &skip)); /* n == 0 still writes the zero */
    return finish(hk__backend_current()->sum(fn, vs, dtype, n, x, result));
}
