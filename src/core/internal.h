/* internal.h: what the host runtime's files share: error recording, device
 * checks, handle tables and the device-kind backend table. Not installed. */
#ifndef HIPKIT_INTERNAL_H
#define HIPKIT_INTERNAL_H

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

/* ---- errors (status.c) */

/* Record a failure for hk_last_error() and return `status`. `fmt` continues
 * the sentence after "<function>: ". */
hk_status hk__fail(hk_status status, const char *function, const char *fmt, ...) HK_PRINTF(3, 4);
/* Clear hk_last_error() and return HK_SUCCESS. Every successful API call ends here. */
hk_status hk__ok(void);
/* Same, but for query calls that return HK_ERROR_NOT_READY without an error text. */
hk_status hk__not_ready(void);
/* "1.0 MiB", "139.1 GiB"... into buf. */
const char *hk__format_bytes(size_t bytes, char *buf, size_t size);

/* A vendor call failed: map its error code (an int holding hipError_t) to a
 * status, and write "<function>: <what> on device <d> (<name>): <vendor name>: <vendor text>". */
hk_status hk__fail_gpu(int gpu_error, const char *function, const char *what);

/* ---- devices (device.c) */

/* Number of devices, computed once. 0 when there is no GPU or no driver. */
int hk__device_count(void);
/* The calling thread's current device. */
int hk__current_device(void);
/* HK_SUCCESS if at least one GPU exists, else records HK_ERROR_NO_DEVICE for `function`. */
hk_status hk__require_gpu(const char *function);
/* Validates an ordinal (and that a GPU exists). */
hk_status hk__check_device(const char *function, int device);
/* Cached device name for messages ("NVIDIA H200"); "?" if unknown. */
const char *hk__device_name(int device);
/* Cached properties needed for launches. */
typedef struct hk__device_props {
    int multiprocessor_count;
    int max_threads_per_block;
    int warp_size;
    int max_block_dim[3];
    int max_grid_dim[3];
    size_t max_shared_per_block; /* including the opt-in beyond the default where the vendor has one */
    char arch[HK_DEVICE_ARCH_MAX];
} hk__device_props;
const hk__device_props *hk__device_properties(int device);
/* Make the vendor runtime's current device on this thread `device`. */
hk_status hk__activate_device(const char *function, int device);

/* ---- handles (handles.c): opaque values encoding slot + generation, so a
 * stale or invented handle is recognised without dereferencing anything. */

typedef enum hk__handle_kind {
    HK__HANDLE_STREAM = 1,
    HK__HANDLE_EVENT = 2,
    HK__HANDLE_PROGRAM = 3,
    HK__HANDLE_MODULE = 4,
    HK__HANDLE_KERNEL = 5
} hk__handle_kind;

/* The table stores the vendor object (never NULL) and its device by value, so
 * a lookup racing a destroy never reads freed memory. */
/* Returns a new handle value (0 on failure: table full or no host memory). */
uintptr_t hk__handle_insert(hk__handle_kind kind, void *object, int device);
/* Copies out the object and device of a live handle; false if not live. */
bool hk__handle_lookup(hk__handle_kind kind, uintptr_t handle, void **object, int *device);
/* Removes a live handle, copying out what it held; false if not live. */
bool hk__handle_remove(hk__handle_kind kind, uintptr_t handle, void **object, int *device);

/* ---- streams (stream.c) */

/* The vendor stream (as void*) for a hipkit stream; NULL handle -> default stream.
 * Checks the handle is live and belongs to the current device. */
hk_status hk__resolve_stream(const char *function, hk_stream stream, void **vendor_stream);

/* ---- memory (memory_pool.c) */

hk_status hk__pool_alloc(const char *function, void **ptr, size_t bytes, void *vendor_stream);
hk_status hk__pool_free(const char *function, void *ptr, void *vendor_stream, bool use_own_stream);
/* Blocks cached for vendor_stream become usable by everyone (called before the stream dies). */
void hk__pool_forget_stream(void *vendor_stream);

/* ---- staging.c: a synchronous copy between large pageable host memory and
 * the device, pipelined through pinned buffers. Sets *done when it did the
 * copy; leaves it false (HK_SUCCESS) when the plain vendor copy should. */
hk_status hk__staged_copy(const char *fn, void *dst, const void *src, size_t bytes, int to_device, bool *done);

/* Return the status of `expr` from the calling function unless it succeeded. */
#define HK_TRY(expr)                                                                                                   \
    do {                                                                                                               \
        hk_status hk_try_status_ = (expr);                                                                             \
        if (hk_try_status_ != HK_SUCCESS)                                                                              \
            return hk_try_status_;                                                                                     \
    } while (0)

/* ---- checked arithmetic */
static inline bool hk__mul_overflows(size_t a, size_t b, size_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}

#endif
