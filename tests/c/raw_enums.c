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
