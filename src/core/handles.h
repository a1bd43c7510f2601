/* handles.h: opaque handle values (streams, events, programs, modules, kernels) encoding slot and
 * generation, so a stale or invented handle is recognised without dereferencing anything, and the
 * resolution of a stream handle for the calling thread's current device. */
#ifndef HIPKIT_CORE_HANDLES_H
#define HIPKIT_CORE_HANDLES_H

#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"

typedef enum hk__handle_kind {
    HK__HANDLE_STREAM = 1,
    HK__HANDLE_EVENT = 2,
    HK__HANDLE_PROGRAM = 3,
    HK__HANDLE_MODULE = 4,
    HK__HANDLE_KERNEL = 5
} hk__handle_kind;

/* The table stores the object (never NULL) and its device by value, so a lookup racing a destroy
 * never reads freed memory. */
/* Returns a new handle value (0 on failure: table full or no host memory). */
uintptr_t hk__handle_insert(hk__handle_kind kind, void *object, int device);
/* Copies out the object and device of a live handle; false if not live. */
bool hk__handle_lookup(hk__handle_kind kind, uintptr_t handle, void **object, int *device);
/* Removes a live handle, copying out what it held; false if not live. */
bool hk__handle_remove(hk__handle_kind kind, uintptr_t handle, void **object, int *device);

/* "<what> <handle> is not live (already destroyed, or never created by hipkit)". */
hk_status hk__stale_handle(const char *function, const char *what, const void *handle);
/* "the <what> belongs to device <owner> but this thread's current device is ...". */
hk_status hk__wrong_device(const char *function, const char *what, int owner);

/* The kind's stream (as void*) for a hipkit stream; NULL handle -> default stream (and a GPU must
 * exist). Checks the handle is live and belongs to the current device. */
hk_status hk__resolve_stream(const char *function, hk_stream stream, void **vendor_stream);

#endif
