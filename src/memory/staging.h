/* staging.h: a synchronous copy between large pageable host memory and the device, pipelined through
 * pinned buffers (staging.c). */
#ifndef HIPKIT_MEMORY_STAGING_H
#define HIPKIT_MEMORY_STAGING_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

/* Sets *done when it did the copy; leaves it false (HK_SUCCESS) when the plain copy should. */
hk_status hk__staged_copy(const char *fn, void *dst, const void *src, size_t bytes, int to_device, bool *done);

#endif
