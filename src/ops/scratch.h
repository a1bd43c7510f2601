/* scratch.h: the device scratch an op call needs, as the kind asked for it (kinds/kind.h), taken from
 * the caching pool on the call's stream and freed after the work queued there. */
#ifndef HIPKIT_OPS_SCRATCH_H
#define HIPKIT_OPS_SCRATCH_H

#include "kinds/kind.h"

/* `bytes` of scratch on `stream`; bytes == 0 gives NULL without asking the pool. */
hk_status hk__scratch_alloc(const char *fn, void **ptr, size_t bytes, void *stream);
/* Frees `ptr` (NULL: nothing) stream-ordered; returns `status`, or the free's failure if `status` was
 * HK_SUCCESS. */
hk_status hk__scratch_free(const char *fn, void *ptr, void *stream, hk_status status);

/* Every buffer of `list`; an optional one the pool cannot give stays NULL. On failure none is left. */
hk_status hk__scratch_list_alloc(const char *fn, hk__scratch_list *list, void *stream);
hk_status hk__scratch_list_free(const char *fn, hk__scratch_list *list, void *stream, hk_status status);

#endif
