/* raw_enums.h: the API's enum-taking calls with plain int arguments (see raw_enums.c). */
#ifndef HIPKIT_TESTS_RAW_ENUMS_H
#define HIPKIT_TESTS_RAW_ENUMS_H

#include <hipkit/hipkit.h>

#ifdef __cplusplus
extern "C" {
#endif

const char *hktest_status_name(int status);
const char *hktest_platform_name(int platform);
const char *hktest_dtype_name(int dtype);
hk_status hktest_dtype_size(int dtype, size_t *bytes);
hk_status hktest_fill(void *dst, int dtype, size_t n, const void *value, hk_stream stream);
hk_status hktest_iota(void *dst, int dtype, size_t n, const void *start, const void *step, hk_stream stream);
hk_status hktest_axpy(int dtype, size_t n, const void *alpha, const void *x, void *y, hk_stream stream);
hk_status hktest_binary(int op, int dtype, size_t n, const void *a, const void *b, void *out, hk_stream stream);
hk_status hktest_sum(int dtype, size_t n, const void *x, void *result_device, hk_stream stream);

#ifdef __cplusplus
}
#endif
#endif
