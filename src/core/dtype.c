/* dtype.c: the dtypes' names and sizes, for the whole library and its users. */
#include "core/dtype.h"
#include "core/status.h"

static const size_t dtype_sizes[] = {1, 1, 1, 4, 4, 8, 8, 2, 4, 8};
static const char *const dtype_names[] = {"bool",  "int8",   "uint8",   "int32",   "uint32",
                                          "int64", "uint64", "float16", "float32", "float64"};
#define DTYPE_COUNT (sizeof dtype_sizes / sizeof dtype_sizes[0])

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
