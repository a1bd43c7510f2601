/* status.h: recording a failure for hk_last_error(), and the small helpers every checking function
 * uses. Every other file of the library builds on this one; it uses none of them. */
#ifndef HIPKIT_CORE_STATUS_H
#define HIPKIT_CORE_STATUS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hipkit/hipkit.h"

#if defined(__GNUC__)
#define HK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define HK_PRINTF(f, a)
#endif

/* Record a failure for hk_last_error() and return `status`. `fmt` continues the sentence after
 * "<function>: ". */
hk_status hk__fail(hk_status status, const char *function, const char *fmt, ...) HK_PRINTF(3, 4);
/* Clear hk_last_error() and return HK_SUCCESS. Every successful public call ends here. */
hk_status hk__ok(void);
/* Same, but for query calls that return HK_ERROR_NOT_READY without an error text. */
hk_status hk__not_ready(void);
/* "1.0 MiB", "139.1 GiB"... into buf. */
const char *hk__format_bytes(size_t bytes, char *buf, size_t size);

/* For clean-up that goes on after a failure: between begin and end, the first failure recorded
 * keeps its sentence, and later ones only return their status. */
void hk__first_failure_begin(void);
void hk__first_failure_end(void);

/* Return the status of `expr` from the calling function unless it succeeded. */
#define HK_TRY(expr)                                                                                                   \
    do {                                                                                                               \
        hk_status hk_try_status_ = (expr);                                                                             \
        if (hk_try_status_ != HK_SUCCESS)                                                                              \
            return hk_try_status_;                                                                                     \
    } while (0)

static inline bool hk__mul_overflows(size_t a, size_t b, size_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}

#endif
