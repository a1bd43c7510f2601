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

#ifdef __cplusplus
}
#endif
#endif
