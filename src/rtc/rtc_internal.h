/* rtc_internal.h: what rtc.c (compile + cache), module.c (load + launch) and
 * kernel_signature.c share. */
#ifndef HIPKIT_RTC_INTERNAL_H
#define HIPKIT_RTC_INTERNAL_H

#include "core/status.h"

typedef struct hk__program {
    char *source;
    char *name;
    char *target;
    char *log;
    void *binary;
    size_t binary_size;
    int cached;
} hk__program;

/* The parameter types of kernel `name` as declared in `source`: the count,
 * or -1 when they cannot be read with confidence. */
int hk__parse_kernel_params(const char *source, const char *name, hk_arg_type *types, int capacity);

/* The program behind a handle, or NULL with HK_ERROR_INVALID_HANDLE recorded. */
hk__program *hk__program_lookup(const char *fn, hk_program program);

/* The device prelude's text (generated from hip_kernels/common/hipkit_device.h). */
extern const char hk__prelude_source[];

#endif
