/* pool.h: the caching pools as the rest of the library uses them: stream-ordered device blocks of
 * the current device, pinned host blocks, and a dying stream telling the pool. */
#ifndef HIPKIT_MEMORY_POOL_H
#define HIPKIT_MEMORY_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

/* `bytes` on the current device, usable in order on `stream` (NULL: the default stream). */
hk_status hk__pool_alloc(const char *function, void **ptr, size_t bytes, void *stream);
/* Back to the cache, reused only after the work queued on `stream` (use_own_stream: the stream it
 * was allocated on, and any device). */
hk_status hk__pool_free(const char *function, void *ptr, void *stream, bool use_own_stream);
/* Blocks cached for `stream` become usable by everyone (called once its work is done, before it dies). */
void hk__pool_forget_stream(void *stream);

/* Pinned host memory from its pool; as hk_host_malloc and hk_host_free, but leaving hk_last_error()
 * alone on success. */
hk_status hk__host_alloc(const char *function, void **ptr, size_t bytes);
hk_status hk__host_free(const char *function, void *ptr);

#endif
