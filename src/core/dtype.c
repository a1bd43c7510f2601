/* dtype.c: the dtypes' names and sizes, for the whole library and its users. */
#include "core/dtype.h"
#include "core/status.h"

static const size_t dtype_sizes[HK_DTYPE_COUNT] = {1, 1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 2, 8, 16};
static const char *const dtype_names[HK_DTYPE_COUNT] = {"bool",  "int8",   "uint8",     "int32",     "uint32",
                                                        "int64", "uint64", "float16",   "float32",   "float64",
                                                        "int16", "uint16", "complex64", "complex128"};
#define DTYPE_COUNT HK_DTYPE_COUNT

const char *hk_dtype_name(hk_dtype dtype)
{
    return (unsigned)dtype < DTYPE_COUNT ? dtype_names[dtype] : "invalid";
}

size_t hk__dtype_bytes(hk_dtype dtype)
{
    return (unsigned)dtype < DTYPE_COUNT ? dtype_sizes[dtype] : 0;
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
