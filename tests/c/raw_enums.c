/* raw_enums.c: calls that pass a plain int where the API takes an enum, for the
 * tests of out-of-range values. C converts any int to an enum type; in C++ a
 * value outside the enumeration's range is undefined behaviour (and UBSan
 * stops on it), so these calls are made from C. */
#include <hipkit/hipkit.h>

#include "raw_enums.h"

const char *hktest_status_name(int status)
{
    return hk_status_name((hk_status)status);
}
const char *hktest_platform_name(int platform)
{
    return hk_platform_name((hk_platform)platform);
}
const char *hktest_dtype_name(int dtype)
{
    return hk_dtype_name((hk_dtype)dtype);
}
hk_status hktest_dtype_size(int dtype, size_t *bytes)
{
    return hk_dtype_size((hk_dtype)dtype, bytes);
}

hk_status hktest_fill(void *dst, int dtype, size_t n, const void *value, hk_stream stream)
{
    return hk_fill(dst, (hk_dtype)dtype, n, value, stream);
}

hk_status hktest_iota(void *dst, int dtype, size_t n, const void *start, const void *step, hk_stream stream)
{
    return hk_iota(dst, (hk_dtype)dtype, n, start, step, stream);
}

hk_status hktest_axpy(int dtype, size_t n, const void *alpha, const void *x, void *y, hk_stream stream)
{
    return hk_axpy((hk_dtype)dtype, n, alpha, x, y, stream);
}

hk_status hktest_binary(int op, int dtype, size_t n, const void *a, const void *b, void *out, hk_stream stream)
{
    return hk_binary((hk_binary_op)op, (hk_dtype)dtype, n, a, b, out, stream);
}

hk_status hktest_sum(int dtype, size_t n, const void *x, void *result_device, hk_stream stream)
{
    return hk_sum((hk_dtype)dtype, n, x, result_device, stream);
}
